"""Resolving the judge from settings and environment (no server): provider, key, model, price,
and the configuration errors with their codes and recovery hints."""

from __future__ import annotations

import pytest

from citecheck.config import Settings
from citecheck.errors import ConfigError, ExitCode
from citecheck.judge.pricing import PRICES
from citecheck.judge.providers import PROVIDERS, judge_choices
from citecheck.judge.resolve import JudgeConfig, resolve_judge

ENV = {"ANTHROPIC_API_KEY": "sk-ant-test-secret", "OPENAI_API_KEY": "sk-openai-test-secret"}


def test_auto_prefers_anthropic_then_openai() -> None:
    cfg = resolve_judge(Settings(), ENV)
    assert cfg is not None and (cfg.provider, cfg.model) == ("anthropic", "claude-sonnet-4-6")
    cfg = resolve_judge(Settings(), {"OPENAI_API_KEY": "k"})
    assert cfg is not None and (cfg.provider, cfg.model) == ("openai", "gpt-4o-mini")
    cfg = resolve_judge(Settings(model="gpt-4o"), ENV)
    assert cfg is not None and cfg.provider == "openai"


def test_no_key_names_both_variables_and_judge_none() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_judge(Settings(), {"UNRELATED": "x"})
    err = info.value
    assert err.code == "no-api-key"
    assert "ANTHROPIC_API_KEY" in str(err) and "OPENAI_API_KEY" in str(err)
    assert "--judge none" in err.hint and "judge: none" in err.hint
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        resolve_judge(Settings(judge="openai"), {"ANTHROPIC_API_KEY": "k"})


def test_judge_none_needs_no_key() -> None:
    assert resolve_judge(Settings(judge="none"), {}) is None


def test_unknown_model_is_a_config_error_unless_priced() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_judge(Settings(judge="anthropic", model="claude-imaginary-9"), ENV)
    assert info.value.code == "unknown-model" and "claude-haiku-4-5" in info.value.hint
    cfg = resolve_judge(
        Settings(judge="anthropic", model="claude-imaginary-9", price_in_per_mtok=2, price_out_per_mtok=8),
        ENV,
    )
    assert cfg is not None and (cfg.price.input_per_mtok, cfg.price.output_per_mtok) == (2, 8)
    with pytest.raises(ConfigError) as info:
        resolve_judge(Settings(judge="openai", model="x", price_in_per_mtok=2), ENV)
    assert info.value.code == "bad-price"


def test_model_of_the_other_provider_is_an_error() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_judge(Settings(judge="anthropic", model="gpt-4o"), ENV)
    assert info.value.code == "model-provider-mismatch"


def test_required_models_are_priced() -> None:
    for model in ("claude-opus-4-7", "claude-sonnet-4-6", "claude-haiku-4-5", "claude-haiku-4-5-20251001",
                  "gpt-4o", "gpt-4o-mini", "o1-mini"):  # fmt: skip
        provider = "anthropic" if model.startswith("claude") else "openai"
        cfg = resolve_judge(Settings(judge=provider, model=model), ENV)
        assert cfg is not None and cfg.price.input_per_mtok > 0 and cfg.price.output_per_mtok > 0


def test_openai_compatible_rules() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_judge(Settings(judge="openai-compatible", model="gpt-4o-mini"), ENV)
    assert info.value.code == "no-base-url"
    with pytest.raises(ConfigError) as info:
        resolve_judge(Settings(judge="openai-compatible", base_url="https://llm.example.com/v1"), {})
    assert info.value.code == "no-api-key"
    cfg = resolve_judge(Settings(judge="openai-compatible", base_url="https://llm.example.com/v1"), ENV)
    assert cfg is not None and cfg.api_key.get_secret_value() == ENV["OPENAI_API_KEY"]
    cfg = resolve_judge(Settings(judge="openai-compatible", base_url="http://localhost:11434/v1"), {})
    assert cfg is not None and cfg.api_key.get_secret_value() == "citecheck-no-key"


def test_batch_mode_needs_a_provider_with_a_batch_api() -> None:
    for provider in ("anthropic", "openai"):
        assert resolve_judge(Settings(judge=provider, judge_mode="batch"), ENV) is not None
    with pytest.raises(ConfigError) as info:
        settings = Settings(
            judge="openai-compatible", base_url="http://localhost:11434/v1", judge_mode="batch"
        )
        resolve_judge(settings, ENV)
    assert info.value.code == "no-batch-api" and "interactive" in info.value.hint


def test_judge_concurrency_is_the_ceiling_of_calls_in_flight() -> None:
    cfg = resolve_judge(Settings(judge="anthropic", judge_concurrency=7), ENV)
    assert cfg is not None and cfg.max_concurrency == 7
    cfg = resolve_judge(Settings(judge="anthropic"), ENV)
    assert cfg is not None and cfg.max_concurrency == 32


def test_key_never_appears_in_reprs() -> None:
    cfg = resolve_judge(Settings(), ENV)
    assert isinstance(cfg, JudgeConfig)
    for text in (repr(cfg), str(cfg), cfg.model_dump_json()):
        assert ENV["ANTHROPIC_API_KEY"] not in text


@pytest.mark.parametrize("name", ["gpt", "Anthropic", "openai_compatible", ""])
def test_unknown_judge_is_a_config_error_naming_the_choices(name: str) -> None:
    with pytest.raises(ConfigError) as info:
        resolve_judge(Settings(judge=name), ENV)
    err = info.value
    assert err.code == "unknown-judge" and err.exit_code == ExitCode.ERROR
    assert repr(name) in err.message
    assert err.hint == "choose one of auto, anthropic, openai, openai-compatible, none"


def test_unknown_judge_is_rejected_before_any_key_is_looked_for() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_judge(Settings(judge="gpt"), {})
    assert info.value.code == "unknown-judge"


def test_every_provider_resolves_with_its_own_key_and_default_model() -> None:
    for name, provider in PROVIDERS.items():
        base_url = "https://llm.example.com/v1" if provider.needs_base_url else None
        cfg = resolve_judge(Settings(judge=name, base_url=base_url), {provider.key_env: "k-" + name})
        assert cfg is not None and cfg.provider == name
        assert cfg.api_key.get_secret_value() == "k-" + name
        assert cfg.model == provider.default_model and PRICES[cfg.model].provider == provider.price_family
        with pytest.raises(ConfigError) as info:
            resolve_judge(Settings(judge=name, base_url=base_url), {})
        assert info.value.code == "no-api-key" and provider.key_env in info.value.message


def test_no_key_hint_names_every_key_input_of_the_action() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_judge(Settings(judge="anthropic"), {})
    assert "the anthropic-api-key / openai-api-key input" in info.value.hint


def test_auto_follows_the_model_even_without_its_key() -> None:
    # The model names the provider; its missing key is then the error, not the other provider.
    with pytest.raises(ConfigError) as info:
        resolve_judge(Settings(model="claude-haiku-4-5"), {"OPENAI_API_KEY": "k"})
    assert info.value.code == "no-api-key" and "ANTHROPIC_API_KEY" in info.value.message
    assert "OPENAI_API_KEY" not in info.value.message


def test_base_url_must_be_http() -> None:
    with pytest.raises(ConfigError, match="not http"):
        resolve_judge(Settings(judge="openai", base_url="file:///etc/passwd"), ENV)


def test_judge_config_only_names_registered_providers() -> None:
    cfg = resolve_judge(Settings(), ENV)
    assert cfg is not None
    with pytest.raises(ValueError, match="unknown judge provider"):
        JudgeConfig.model_validate({**cfg.model_dump(), "provider": "acme", "api_key": "k"})


def test_choices_are_auto_the_providers_and_none() -> None:
    assert judge_choices() == ["auto", "anthropic", "openai", "openai-compatible", "none"]
