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

from citecheck.config import JUDGE_AUTO, JUDGE_NONE
from citecheck.judge.providers import anthropic, openai, openai_compatible
from citecheck.judge.providers.base import Connection, JudgeFailure, Provider, Response

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


def secret_variables() -> list[str]:
    """The environment variables that may hold a run's secrets: every provider's key, and a
    GitHub token (what a CLI or MCP process redacts from the error text it prints)."""
    return [*(p.key_env for p in PROVIDERS.values()), "GITHUB_TOKEN", "GH_TOKEN"]
