"""The provider registry is the one list of providers: the CLI's `--judge` choices, the Action's
key inputs (reading, masking, `judge: auto`'s skip) and the price table derive from it.

A provider registered here at test time (the way a new provider module is added: one entry
in `PROVIDERS`) must show up everywhere, with no second list to edit.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from citecheck.cli import build_parser
from citecheck.config import JUDGE_AUTO, JUDGE_NONE, Settings
from citecheck.errors import ConfigError
from citecheck.github.action import ACTION_INPUTS, ALL_INPUTS, SETTING_INPUTS, Event, Run
from citecheck.github.publish import ActionLog
from citecheck.judge.pricing import PRICES
from citecheck.judge.providers import PROVIDERS, judge_choices, key_inputs, run_secrets
from citecheck.judge.providers.openai_compatible import OpenAICompatibleProvider
from citecheck.judge.resolve import resolve_judge

# An OpenAI-protocol service with a key of its own: the smallest real new provider.
ACME = OpenAICompatibleProvider(name="acme", key_env="ACME_API_KEY", key_input="acme-api-key", auto=True)


@pytest.fixture
def acme(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PROVIDERS, ACME.name, ACME)


def _judge_choices_of_the_cli() -> dict[str, list[str]]:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    out = {}
    for command, sub in subparsers.choices.items():  # type: ignore[union-attr]
        for action in sub._actions:
            if action.dest == "judge":
                out[command] = list(action.choices)
    return out


def _action_run(tmp_path: Path, environ: dict[str, str]) -> Run:
    run = Run({"GITHUB_WORKSPACE": str(tmp_path), **environ}, ActionLog(io.StringIO()))
    run.event = Event("schedule", {})
    return run


def test_cli_choices_are_the_registry() -> None:
    choices = _judge_choices_of_the_cli()
    assert set(choices) == {"check", "eval"}
    assert all(c == [JUDGE_AUTO, *PROVIDERS, JUDGE_NONE] for c in choices.values())


def test_a_registered_provider_is_a_cli_choice(acme: None) -> None:
    assert all("acme" in c for c in _judge_choices_of_the_cli().values())
    args = build_parser().parse_args(["check", "docs", "--judge", "acme"])
    assert args.judge == "acme"


def test_an_unregistered_provider_is_not_a_cli_choice(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args(["check", "docs", "--judge", "acme"])
    assert info.value.code == 2 and "invalid choice: 'acme'" in capsys.readouterr().err


def test_a_registered_providers_key_is_read_masked_and_counted_by_the_action(
    tmp_path: Path, acme: None
) -> None:
    environ = {
        "INPUT_ACME_API_KEY": "acme-input-secret",
        "ACME_API_KEY": "acme-env-secret",
        "INPUT_BASE_URL": "https://llm.acme.example/v1",
    }
    run = _action_run(tmp_path, environ)
    assert run.pipeline_environ()["ACME_API_KEY"] == "acme-input-secret"
    assert {"acme-input-secret", "acme-env-secret"} <= set(run_secrets(run.environ))
    # `judge: auto` with only this provider's key has the key it needs.
    settings = run.judge_gate(run.settings())
    assert settings.judge == JUDGE_AUTO and not run.judge_skipped


def test_a_registered_providers_key_is_named_by_the_actions_no_key_error(tmp_path: Path, acme: None) -> None:
    run = _action_run(tmp_path, {"INPUT_JUDGE": "acme", "INPUT_BASE_URL": "https://llm.acme.example/v1"})
    with pytest.raises(ConfigError) as info:
        run.judge_gate(run.settings())
    assert "`acme-api-key` is empty" in info.value.message
    assert "the repository secret ACME_API_KEY and pass it as `acme-api-key`" in info.value.hint


def test_without_the_registration_the_same_key_is_not_the_actions(tmp_path: Path) -> None:
    run = _action_run(tmp_path, {"INPUT_ACME_API_KEY": "acme-input-secret"})
    assert "ACME_API_KEY" not in run.pipeline_environ()
    assert run_secrets(run.environ) == []
    # No key the Action knows: outside a fork PR that is an error naming the secrets to set ...
    with pytest.raises(ConfigError) as info:
        run.judge_gate(run.settings())
    assert info.value.code == "no-api-key" and "ACME" not in str(info.value)
    for provider in (p for p in PROVIDERS.values() if p.auto):
        assert (
            f"the repository secret {provider.key_env} and pass it as `{provider.key_input}`"
            in info.value.hint
        )
    # ... and on a fork PR, which GitHub gives no secrets, the judge is off.
    fork = {"number": 3, "base": {"sha": "b", "repo": {"full_name": "o/r"}}}
    fork["head"] = {"sha": "h", "repo": {"full_name": "someone/r"}}
    settings = run.settings()
    run.event = Event("pull_request", {"pull_request": fork})
    assert run.judge_gate(settings).judge == JUDGE_NONE and run.judge_skipped


def test_a_registered_provider_resolves_with_its_own_key(acme: None) -> None:
    settings = Settings(judge="acme", base_url="https://llm.acme.example/v1", model="gpt-4o-mini")
    cfg = resolve_judge(settings, {"ACME_API_KEY": "k", "OPENAI_API_KEY": "not-this-one"})
    assert cfg is not None and cfg.provider == "acme" and cfg.api_key.get_secret_value() == "k"
    # The no-key hint names its Action input too.
    with pytest.raises(ConfigError, match="ACME_API_KEY") as info:
        resolve_judge(settings, {"OPENAI_API_KEY": "not-this-one"})
    assert info.value.code == "no-api-key" and "acme-api-key" in info.value.hint


def test_action_inputs_hold_exactly_the_registrys_key_inputs_in_order() -> None:
    keys = list(key_inputs())
    assert keys == ["anthropic-api-key", "openai-api-key"]
    assert [n for n in ALL_INPUTS if n.endswith("-api-key")] == keys
    assert list(ACTION_INPUTS[: len(keys)]) == keys and not set(keys) & set(SETTING_INPUTS)
    assert key_inputs() == {p.key_input: p.key_env for p in PROVIDERS.values()}


def test_price_table_is_the_providers_lists() -> None:
    rows = {
        m: (p.price_family, r.input, r.output, r.cache_write, r.cache_read, r.batch_input, r.batch_output)
        for p in PROVIDERS.values()
        for m, r in p.prices.items()
    }
    table = {
        m: (
            p.provider,
            p.input_per_mtok,
            p.output_per_mtok,
            p.cache_write_per_mtok,
            p.cache_read_per_mtok,
            p.batch_input_per_mtok,
            p.batch_output_per_mtok,
        )
        for m, p in PRICES.items()
    }
    assert table == rows
    for provider in PROVIDERS.values():
        assert provider.serves_any_model or provider.default_model in provider.prices, provider.name


def test_batch_and_cache_prices_are_the_providers_published_discounts() -> None:
    # Both batch APIs: half the input and output price. Anthropic's cache: a write 1.25 x the
    # input price, a read 0.1 x; OpenAI's: cached input at its own list price, no write surcharge.
    for model, price in PRICES.items():
        assert price.batch_input_per_mtok == pytest.approx(price.input_per_mtok / 2), model
        assert price.batch_output_per_mtok == pytest.approx(price.output_per_mtok / 2), model
        if price.provider == "anthropic":
            assert price.cache_write_per_mtok == pytest.approx(1.25 * price.input_per_mtok), model
            assert price.cache_read_per_mtok == pytest.approx(0.1 * price.input_per_mtok), model
        else:
            assert price.cache_write_per_mtok is None and price.cache_read_per_mtok is not None
            assert price.cache_read_per_mtok < price.input_per_mtok, model
    assert PRICES["gpt-4o-mini"].cache_read_per_mtok == 0.075 and PRICES["gpt-4.1"].cache_read_per_mtok == 0.5
    batch = PRICES["claude-sonnet-4-6"].for_batch()
    assert (batch.input_per_mtok, batch.output_per_mtok, batch.cache_read_per_mtok) == (1.5, 7.5, None)


def test_every_provider_has_the_protocols_parts() -> None:
    for name, p in PROVIDERS.items():
        assert p.name == name and p.key_env.isupper() and p.key_input.endswith("-api-key")
        assert isinstance(p.auto, bool) and isinstance(p.needs_base_url, bool)
        assert callable(p.connect) and callable(p.classify_error) and callable(p.fallback_key)
        # Not an API error: a bug, which must propagate instead of becoming a missing verdict.
        assert p.classify_error(KeyError("x")) is None
        assert p.classify_error(TimeoutError()).code == "judge-timeout"  # type: ignore[union-attr]
    assert judge_choices()[0] == JUDGE_AUTO and judge_choices()[-1] == JUDGE_NONE


def test_importing_the_registry_cli_and_action_imports_no_sdk() -> None:
    # The SDKs take seconds to import; only a run that makes a judge call may pay for them.
    code = (
        "import sys, citecheck.judge.providers, citecheck.judge.resolve, citecheck.judge.core, "
        "citecheck.cli, citecheck.github.action\n"
        "print(sorted(m for m in ('anthropic', 'openai') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
