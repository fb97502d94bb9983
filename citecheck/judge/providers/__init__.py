"""The judge providers (docs/ARCHITECTURE.md, the judge stage): one module each, behind the
`Provider` protocol of `base.py`, and the registry the rest of citecheck derives from: the
`--judge` choices, the Action's key inputs and their masking, `judge: auto`'s order, the
price table and the checks of `resolve_judge`.

Adding a provider: its module (a `PROVIDER` implementing `Provider`), one line below, and
its tests. A provider with a key variable of its own also needs its key input in action.yml
(a test compares action.yml with the Action's inputs).

Importing this package is cheap: no provider module imports its SDK before a call is due.
"""

from __future__ import annotations

from collections.abc import Mapping

from citecheck.cache import CACHE_SECRET_ENV
from citecheck.config import JUDGE_AUTO, JUDGE_NONE
from citecheck.judge.providers import anthropic, openai, openai_compatible
from citecheck.judge.providers.base import Connection, JudgeFailure, Provider, Response
from citecheck.redact import Redactor

__all__ = ["PROVIDERS", "Connection", "JudgeFailure", "Provider", "Response", "judge_choices", "key_inputs"]

# In order of preference for `judge: auto`.
PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        anthropic.PROVIDER,
        openai.PROVIDER,
        openai_compatible.PROVIDER,
    )
}


def judge_choices() -> list[str]:
    """Every valid `judge` setting: auto, each provider, none."""
    return [JUDGE_AUTO, *PROVIDERS, JUDGE_NONE]


def key_inputs() -> dict[str, str]:
    """Action input → environment variable, for every provider's key (providers may share one)."""
    return {p.key_input: p.key_env for p in PROVIDERS.values()}


def input_variables(name: str) -> list[str]:
    """The environment variables the Action's input `name` arrives in: action.yml's `runs.env`
    (`INPUT_FILTER_MODE`), then the runner's own (`INPUT_FILTER-MODE`)."""
    return list(dict.fromkeys(["INPUT_" + name.upper().replace("-", "_"), "INPUT_" + name.upper()]))


def secret_variables() -> list[str]:
    """The environment variables that may hold a run's secrets: every provider's key, a GitHub
    token and the cache's secret, as variables and as the Action's inputs."""
    # the cache's signing secret too (`citecheck.cache`): whoever reads it could forge entries
    names = [*(p.key_env for p in PROVIDERS.values()), "GITHUB_TOKEN", "GH_TOKEN", CACHE_SECRET_ENV]
    for name in (*key_inputs(), "github-token"):
        names += input_variables(name)
    return list(dict.fromkeys(names))


def run_secrets(environ: Mapping[str, str]) -> list[str]:
    """The secret values a run's environment holds (`secret_variables`), each once."""
    return list(dict.fromkeys(v for n in secret_variables() if (v := environ.get(n, "").strip())))


def run_redactor(environ: Mapping[str, str]) -> Redactor:
    """The run's redactor (`citecheck.redact`), from every secret in its environment: what every
    face (CLI, Action, MCP server) builds once and passes every text it outputs through."""
    return Redactor(run_secrets(environ))
