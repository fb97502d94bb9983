"""The one error hierarchy, and the process exit codes (see docs/ARCHITECTURE.md, "Policy").

Every error that ends a run is a `CitecheckError`; it carries its exit code (always
`ExitCode.ERROR`: an error is never a pass, and never reads as "claims failed"), a stable
`code` that scripts and the JSON error output rely on, and a `hint` saying what to do.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What the `citecheck` process and the Action exit with."""

    PASSED = 0  # no claim failed under fail-on (or nothing was verified and nothing failed)
    FAILED = 1  # a claim failed under fail-on
    ERROR = 2  # configuration or runtime error: no verdict


class CitecheckError(Exception):
    """A run-ending error; `code` is stable (documented), `hint` says what to do about it."""

    exit_code = ExitCode.ERROR
    default_code = "error"

    def __init__(self, message: str, hint: str = "", code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.code = code or self.default_code

    def __str__(self) -> str:
        return f"{self.message}\n  hint: {self.hint}" if self.hint else self.message


class ConfigError(CitecheckError):
    """A configuration or input problem found before (or instead of) checking claims."""

    default_code = "config"


class JudgeFailedError(CitecheckError):
    """Every judge call of the run failed: the run has no verdicts to trust."""

    default_code = "judge-failed"


class UnsafePathError(CitecheckError):
    """A path leads through a symbolic link, or to something other than a file or a folder,
    where a pull request could have put one (`citecheck.safe_paths`): not followed."""

    default_code = "unsafe-path"
