"""Which judge a run uses (docs/ARCHITECTURE.md, the judge stage): settings and environment
in, a `JudgeConfig` out, or a ConfigError (exit 2) that says how to recover.

Called before anything is fetched, so a typo in `judge`, a missing key or an unpriced model
costs the run nothing. Keys come only from the environment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from citecheck.config import JUDGE_AUTO, JUDGE_NONE, JudgeMode, Settings
from citecheck.errors import ConfigError
from citecheck.judge.pricing import PRICES, ModelPrice, known_models
from citecheck.judge.providers import PROVIDERS, Provider, judge_choices, key_inputs
from citecheck.policy import fail_on_without_judge


class JudgeConfig(BaseModel):
    """A resolved, ready-to-use judge: provider, model, price, key (masked in any output)."""

    model_config = ConfigDict(frozen=True)

    provider: str  # a name in the provider registry
    model: str
    price: ModelPrice
    api_key: SecretStr
    base_url: str | None = None
    timeout_s: float = Field(default=120.0, gt=0)  # one HTTP attempt
    # Tries after a transient failure (a timeout, a dropped connection, 408/409/5xx), made by the
    # judge itself (citecheck.judge.dispatch); rate limits and overloads are waited out until
    # the judge deadline, without a count. The SDK's own retries serve the batch API's calls.
    max_retries: int = Field(default=3, ge=0)
    # Bounds one attempt of a call (the SDK's timeout covers each read, not the whole answer).
    call_deadline_s: float = Field(default=600.0, gt=0)
    max_concurrency: int = Field(default=32, ge=1)  # the ceiling of calls in flight (judge-concurrency)
    # Scales the batch dispatcher's poll intervals (tests shorten them).
    batch_poll_scale: float = Field(default=1.0, gt=0)

    @field_validator("provider")
    @classmethod
    def _registered(cls, v: str) -> str:
        if v not in PROVIDERS:
            raise ValueError(f"unknown judge provider {v!r}")
        return v

    @property
    def reasoning_model(self) -> bool:
        """The model reasons before answering (OpenAI o-series): no system role, no
        response_format, and its output budget includes the reasoning."""
        return PROVIDERS[self.provider].reasoning_model(self.model)

    @property
    def reasoning_tokens(self) -> int:
        """Output tokens to allow a call beyond its answer, for the model's reasoning."""
        return 4096 if self.reasoning_model else 0


def _no_key_error(variables: Sequence[str]) -> ConfigError:
    names = " or ".join(dict.fromkeys(variables))
    return ConfigError(
        f"no API key for the LLM judge: {names} is not set",
        f"set {names} in the environment (in the Action: the {' / '.join(key_inputs())} "
        "input from a repository secret), or run without the judge with `--judge none` "
        "(in the Action: `judge: none` in the workflow's `with:`; a config file cannot set it): "
        "then only the deterministic number, quote and date checks run and other claims are "
        "reported as not verified",
        code="no-api-key",
    )


def _price_for(settings: Settings, model: str, provider: Provider) -> ModelPrice:
    given = (settings.price_in_per_mtok, settings.price_out_per_mtok)
    if (given[0] is None) != (given[1] is None):
        raise ConfigError(
            "only one of price_in_per_mtok / price_out_per_mtok is set",
            "give both the input and the output price per million tokens, or neither",
            code="bad-price",
        )
    family = provider.price_family
    if given[0] is not None and given[1] is not None:
        return ModelPrice(family, given[0], given[1])
    price = PRICES.get(model)
    if price is None:
        raise ConfigError(
            f"unknown judge model {model!r}: it is not in citecheck's price table, so the cost cap "
            "cannot be enforced",
            f"choose one of {', '.join(known_models(None if provider.serves_any_model else family))}, "
            "or give the model's prices per million tokens with --price-in and --price-out",
            code="unknown-model",
        )
    if not provider.serves_any_model and price.provider != family:
        raise ConfigError(
            f"model {model!r} is a {price.provider} model but the judge is {provider.name!r}",
            f"use --judge {price.provider}, or a model of {provider.name}: {', '.join(known_models(family))}",
            code="model-provider-mismatch",
        )
    return price


def _choose_auto(settings: Settings, keys: Mapping[str, str]) -> Provider:
    """`judge: auto`: the provider of the model asked for, else the first whose key is set."""
    candidates = [p for p in PROVIDERS.values() if p.auto]
    if settings.model in PRICES:
        family = PRICES[settings.model].provider
        for provider in candidates:
            if provider.price_family == family:
                return provider
    for provider in candidates:
        if keys.get(provider.key_env):
            return provider
    raise _no_key_error([p.key_env for p in candidates])


def resolve_judge(settings: Settings, environ: Mapping[str, str]) -> JudgeConfig | None:
    """The judge this run uses, or None for `judge: none`. Call before any fetch.

    Raises ConfigError (exit 2) with recovery steps: a judge that is not a provider
    ("unknown-judge"), no key ("no-api-key"), unknown model ("unknown-model"), a model of
    another provider, a provider that needs a base URL without one.
    Keys come only from `environ`.
    """
    if settings.judge == JUDGE_NONE:
        return None
    if settings.judge != JUDGE_AUTO and settings.judge not in PROVIDERS:
        raise ConfigError(
            f"unknown judge {settings.judge!r}",
            f"choose one of {', '.join(judge_choices())}",
            code="unknown-judge",
        )
    keys = {p.key_env: environ.get(p.key_env, "").strip() for p in PROVIDERS.values()}
    provider = _choose_auto(settings, keys) if settings.judge == JUDGE_AUTO else PROVIDERS[settings.judge]

    base_url = settings.base_url or None
    if base_url and urlsplit(base_url).scheme not in ("http", "https"):
        raise ConfigError(f"base URL {base_url!r} is not http(s)", "give e.g. http://localhost:8000/v1")
    if provider.needs_base_url and not base_url:
        raise ConfigError(
            f"the {provider.name} judge needs a base URL",
            "give --base-url (Action input base-url), e.g. http://localhost:11434/v1",
            code="no-base-url",
        )
    key = keys[provider.key_env] or provider.fallback_key(base_url)
    if not key:
        raise _no_key_error([provider.key_env])

    if settings.judge_mode == JudgeMode.batch and not provider.supports_batch:
        raise ConfigError(
            f"judge-mode batch: the {provider.name} judge has no batch API citecheck can count on "
            "(OpenAI-compatible servers differ in whether they have /v1/files and /v1/batches)",
            "use judge-mode interactive with this server, or --judge anthropic / openai for batches",
            code="no-batch-api",
        )
    model = settings.model or provider.default_model
    price = _price_for(settings, model, provider)
    return JudgeConfig(
        provider=provider.name,
        model=model,
        price=price,
        api_key=SecretStr(key),
        base_url=base_url,
        max_concurrency=settings.judge_concurrency,
    )


def missing_key(settings: Settings, environ: Mapping[str, str]) -> ConfigError | None:
    """The error a run of `settings` would stop at for want of an API key ("no-api-key"), or
    None: a key is set, the judge is off, or the judge setting is wrong in another way (then
    the run stops at that, before anything is fetched)."""
    if settings.judge == JUDGE_NONE:
        return None
    try:
        resolve_judge(settings, environ)
    except ConfigError as exc:
        return exc if exc.code == "no-api-key" else None
    return None


def judge_off(settings: Settings) -> Settings:
    """`settings` of a run that goes on without the judge it has no key for (a fork PR, the
    pre-commit hook): judge none, and the fail-on categories only the judge can hit dropped,
    so the claims that need it are not verified and fail nothing."""
    return settings.model_copy(
        update={"judge": JUDGE_NONE, "fail_on": fail_on_without_judge(settings.fail_on)}
    )
