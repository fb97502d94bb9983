"""The MCP tools' error codes (README, "Error codes"): what an agent gets back instead of a
result, as `{"error": {"code", "message", "recovery": [...]}}`.

The codes are the reference interface's (`JUDGE_NOT_ENABLED`, `JUDGE_UNKNOWN_MODEL`,
`JUDGE_FAILED`) plus citecheck's own; a `CitecheckError` from the pipeline maps onto them by
its stable `code`. The recovery steps speak of the MCP server's configuration (its `env`
block, the tool's arguments) rather than of command-line flags, which an agent cannot set.
"""

from __future__ import annotations

from typing import Any

from citecheck.errors import CitecheckError
from citecheck.judge.pricing import known_models
from citecheck.mcp.schema import error_document

JUDGE_NOT_ENABLED = "JUDGE_NOT_ENABLED"
JUDGE_UNKNOWN_MODEL = "JUDGE_UNKNOWN_MODEL"
JUDGE_FAILED = "JUDGE_FAILED"
INVALID_INPUT = "INVALID_INPUT"
CONFIG_ERROR = "CONFIG_ERROR"
UNKNOWN_TOOL = "UNKNOWN_TOOL"
EVALUATION_NOT_FOUND = "EVALUATION_NOT_FOUND"
STORE_FAILED = "STORE_FAILED"
INTERNAL_ERROR = "INTERNAL_ERROR"

# Every code a tool or the evaluations resource answers with, and what it means.
CODES: dict[str, str] = {
    JUDGE_NOT_ENABLED: "the judge cannot run: no API key (or no base URL) in the server's environment",
    JUDGE_UNKNOWN_MODEL: "the model is not in citecheck's price table, or belongs to another provider",
    JUDGE_FAILED: "every judge call failed (API errors): no verdict to trust, never a pass",
    INVALID_INPUT: "an argument is missing, unknown or out of range, or the draft cannot be read",
    CONFIG_ERROR: "another setting is wrong (e.g. CITECHECK_BASE_URL is not http(s))",
    UNKNOWN_TOOL: "no tool of that name",
    EVALUATION_NOT_FOUND: "no stored evaluation has that id",
    STORE_FAILED: "the evaluation could not be stored or read (the cache folder is not writable)",
    INTERNAL_ERROR: "a bug in citecheck",
}

_KEY_STEPS = [
    "set ANTHROPIC_API_KEY or OPENAI_API_KEY in the `env` block of the citecheck server in your MCP "
    "client's configuration, then restart the server",
    'or call verify_citations with provider "none": only the number, quote and date checks run, at no cost',
]
_MODEL_STEPS = [
    "leave `model` out to use the provider's default model",
    'or set provider to "auto", which picks the model\'s own provider',
]


def _recovery(exc: CitecheckError) -> tuple[str, list[str]]:
    """The tool's code and recovery steps for a citecheck error."""
    if exc.code == "no-api-key":
        return JUDGE_NOT_ENABLED, _KEY_STEPS
    if exc.code == "no-base-url":
        return JUDGE_NOT_ENABLED, [
            "set CITECHECK_BASE_URL (e.g. http://localhost:11434/v1) in the server's `env` block",
            'or choose provider "anthropic" or "openai"',
        ]
    if exc.code in ("unknown-model", "model-provider-mismatch", "bad-price"):
        return JUDGE_UNKNOWN_MODEL, [f"choose one of: {', '.join(known_models())}", *_MODEL_STEPS]
    if exc.code == "judge-failed":
        steps = [exc.hint] if exc.hint else []
        return JUDGE_FAILED, [*steps, "check the API key, the model and the provider's status; call again"]
    if exc.code in ("unknown-judge", "no-input", "usage"):
        return INVALID_INPUT, [exc.hint] if exc.hint else []
    return CONFIG_ERROR, [exc.hint] if exc.hint else []


class ToolError(Exception):
    """A tool call that ends in an error document instead of a result."""

    def __init__(self, code: str, message: str, recovery: list[str] | None = None) -> None:
        super().__init__(message)
        assert code in CODES, code  # a new code goes into CODES and the README's table
        self.code = code
        self.message = message
        self.recovery = recovery or []

    @classmethod
    def from_citecheck(cls, exc: CitecheckError) -> ToolError:
        code, recovery = _recovery(exc)
        return cls(code, exc.message, recovery)

    def document(self) -> dict[str, Any]:
        return error_document(self.code, self.message, self.recovery)
