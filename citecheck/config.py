"""Run settings: command-line flags / Action inputs, narrowed by an optional `.citecheck.toml`.

Security rule (SECURITY.md): the flags or workflow inputs are the ceiling. The repository's
config file may only narrow them — fewer domains, lower caps, more ignores, more fail-on
categories, a higher judge confidence threshold, more `exclude` patterns — never widen them.
A value the ceiling overrides (a cap above the workflow's, a lower confidence threshold) is
not an error but is never silent either: `narrowing` returns a note for each, which the
Action prints as a warning and adds to the report.

`exclude` holds Python regular expressions matched (`re.search`) against a citation's URL;
a link one matches is not a source (`citecheck.exclusions`). They come from the workflow
input / flags, the config file's `exclude` key and a `.citecheckignore` file (one pattern a
line, `#` comments, like lychee's `.lycheeignore`, `parse_ignore_file`); each is compiled
when read, so a bad one is an error naming it and where it came from.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, ValidationError, ValidationInfo, field_validator, model_validator

from citecheck.errors import ConfigError
from citecheck.policy import DEFAULT_FAIL_ON, DEFAULT_MIN_CONFIDENCE, FAIL_ON_CATEGORIES


class FilterMode(StrEnum):
    added = "added"
    diff_context = "diff_context"
    file = "file"
    nofilter = "nofilter"


class JudgeMode(StrEnum):
    interactive = "interactive"  # calls as pages arrive, paced to the account's rate limits
    batch = "batch"  # the provider's batch API: half the price, answers in minutes to hours


class ArchiveMode(StrEnum):
    """Where a source that could not be fetched is looked up (`citecheck.fetch.archive`)."""

    off = "off"
    wayback = "wayback"  # the Internet Archive's Wayback Machine, by its availability API


# The Internet Archive's availability API: the closest snapshot of a URL, as JSON.
DEFAULT_ARCHIVE_URL = "https://archive.org/wayback/available"
_ARCHIVE_OFF = {"", "off", "none", "false", "no", "0"}


# The judge's time budget (`judge_deadline_minutes`) when none is given, per mode: a PR run
# should not sit on a rate limit for longer than half an hour, and a batch usually ends
# within an hour but may take up to a day (both providers' window is 24 h) — 5 h 30 min keeps
# the report inside GitHub's default job timeout of 6 hours.
DEFAULT_DEADLINE_MINUTES = {JudgeMode.interactive: 30.0, JudgeMode.batch: 330.0}
# Calls in flight at most. Enough for the request rate of most paid accounts at a real
# model's latency (32 calls of ~3-5 s: 400-600 a minute), and a bound for servers that state
# no limits (a local OpenAI-compatible server), which the judge otherwise probes upwards.
DEFAULT_JUDGE_CONCURRENCY = 32


# The two `judge` values that are not providers. The providers themselves are registered in
# citecheck.judge.providers, a higher layer config may not import; resolve_judge checks the name.
JUDGE_AUTO = "auto"  # whichever key is set, else a configuration error
JUDGE_NONE = "none"  # the deterministic checks only


DEFAULT_PATHS = ["**/*.md", "**/*.mdx"]
# Seconds one Markdown file may take to extract: real files take milliseconds, and extraction
# is linear (docs/ARCHITECTURE.md, hostile input is bounded), so only a pathological file that
# the linear bounds still make slow (megabytes of constructs that each cost the most) reaches
# it; that file becomes a file error and the run goes on.
DEFAULT_EXTRACT_BUDGET_S = 15.0
IGNORE_FILE = ".citecheckignore"  # URL patterns of links that are not sources, one a line


def split_lines(value: str | list[str] | None) -> list[str]:
    """Patterns one a line (a multi-line Action input, a `.citecheckignore`), or a list of them
    (a TOML array, repeated flags); blank lines and `#` comments are dropped. Never split on
    commas or spaces as `split_list` does: a regular expression may hold both (`a{1,3}`)."""
    if value is None:
        return []
    lines = value if isinstance(value, list) else value.splitlines()
    out: list[str] = []
    for line in lines:
        if not isinstance(line, str):
            raise ValueError(f"{line!r} is not a string")
        pattern = line.strip()
        if pattern and not pattern.startswith("#"):
            out.append(pattern)
    return out


def pattern_error(pattern: str) -> str | None:
    """Why `pattern` is not a usable regular expression, or None."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"{pattern!r} is not a valid regular expression ({exc})"
    return None


def split_list(value: str | list[str] | None) -> list[str]:
    """Split a comma/newline/space separated input (as Action inputs arrive) into items."""
    if value is None:
        return []
    if isinstance(value, list):
        items: list[str] = []
        for v in value:
            items.extend(split_list(v))
        return items
    return [p for p in value.replace(",", " ").split() if p]


def parse_shard(value: str | None) -> tuple[int, int] | None:
    """`I/N` with 1 <= I <= N, or empty for no sharding."""
    if not value:
        return None
    try:
        i_s, n_s = value.split("/")
        i, n = int(i_s), int(n_s)
    except ValueError:
        raise ConfigError(f"shard {value!r} is not of the form I/N", "write e.g. --shard 1/4") from None
    if not 1 <= i <= n:
        raise ConfigError(f"shard {value!r}: I must be between 1 and N", "shards are numbered 1..N")
    return i, n


class Settings(BaseModel):
    """Everything a run needs to know; one instance per run (no global state)."""

    paths: list[str] = Field(default_factory=lambda: list(DEFAULT_PATHS))
    filter_mode: FilterMode = FilterMode.added
    allowed_domains: list[str] = Field(default_factory=list)  # empty: any public host
    allow_private_hosts: list[str] = Field(default_factory=list)
    judge: str = JUDGE_AUTO  # auto, none, or a provider's name
    model: str | None = None
    base_url: str | None = None
    max_cost_usd: float = Field(default=1.00, ge=0)
    max_claims: int = Field(default=200, ge=0)
    fail_on: list[str] = Field(default_factory=lambda: list(DEFAULT_FAIL_ON))
    comment: bool = True
    annotations: bool = True
    cache_dir: Path | None = None
    shard: str | None = None
    ignore: list[str] = Field(default_factory=list)  # globs of files to skip
    # Regular expressions on a citation's URL: a link one matches is not a source
    # (`citecheck.exclusions`, which also holds the built-in non-sources).
    exclude: list[str] = Field(default_factory=list)
    # Set only by a config file: a file must match `paths` and also one of these.
    also_paths: list[str] = Field(default_factory=list)

    # fetch stage
    concurrency: int = Field(default=64, ge=1)
    per_host_concurrency: int = Field(default=8, ge=1)
    host_interval_s: float = Field(default=0.0, ge=0)
    timeout_s: float = Field(default=10.0, gt=0)
    max_source_bytes: int = Field(default=5 * 1024 * 1024, gt=0)
    # HTTP statuses that mean "the link is live, its content was not read" (like lychee's
    # --accept): a source answering one is not extractable instead of unreachable or blocked.
    accept_status: list[int] = Field(default_factory=list)
    # A cached source younger than this is used without asking the server; older, it is
    # revalidated (ETag / Last-Modified).
    cache_max_age_s: float = Field(default=24 * 3600, ge=0)
    # No cache entry older than this (or dated in the future) is used at all: it is rejected
    # and counted. GitHub evicts a cache unused for 7 days; this bounds one that is kept in use.
    cache_ttl_s: float = Field(default=7 * 24 * 3600, gt=0)
    fetch: bool = True  # False: no network; cited claims are not verified
    # Link rot (`citecheck.fetch.archive`): a source that could not be fetched is looked up in
    # the archive, whose snapshot the report names as the link to cite instead; with
    # `archive_check`, the claim is checked against the snapshot's text. The archive's hosts
    # are admitted past `allowed_domains` for the archive's own requests only.
    archive: ArchiveMode = ArchiveMode.off
    archive_check: bool = False
    # The availability API asked: the Internet Archive's, or one that answers the same JSON (a
    # mirror, a test's stand-in). Its host and subdomains are the archive's hosts.
    archive_url: str = DEFAULT_ARCHIVE_URL

    # Internal links (`citecheck.fetch.site`): the folders of the checkout a site path ("/rules/x")
    # starts from, tried in order (none: the checkout's root), and the published site, where a
    # link no file of the checkout answers is fetched (its host must pass `allowed_domains`).
    site_root: list[str] = Field(default_factory=list)
    site_url: str | None = None

    # extract stage
    max_file_bytes: int = Field(default=5 * 1024 * 1024, gt=0)
    extract_budget_s: float = Field(default=DEFAULT_EXTRACT_BUDGET_S, gt=0)  # per file

    # evidence + judge stages
    evidence_chars: int = Field(default=4000, gt=0)
    batch_size: int = Field(default=8, ge=1)
    price_in_per_mtok: float | None = None  # for a model outside the price table
    price_out_per_mtok: float | None = None
    # A judge verdict given with less confidence is "not verified (judge unsure)" (fail-on
    # category `unsure`); see citecheck.policy.judge_doubt.
    min_confidence: float = Field(default=DEFAULT_MIN_CONFIDENCE, ge=0, le=1)
    # The ceiling of judge calls in flight; the judge paces itself below it to the account's
    # rate limits (citecheck.judge.pacing).
    judge_concurrency: int = Field(default=DEFAULT_JUDGE_CONCURRENCY, ge=1, le=1024)
    judge_mode: JudgeMode = JudgeMode.interactive
    # The judge's time budget, from the start of the run (None: DEFAULT_DEADLINE_MINUTES of
    # the mode): no call starts, and no rate-limit wait or batch poll goes on, after it; the
    # claims left are "not verified" with cause `limit`.
    judge_deadline_minutes: float | None = Field(default=None, gt=0)
    # The screen stage (`citecheck.screen`): the judge's model sets aside link-only and
    # unsourced sentences that state no fact, before anything is fetched.
    screen: bool = False

    @field_validator(
        "paths", "allowed_domains", "allow_private_hosts", "fail_on", "ignore", "also_paths", mode="before"
    )
    @classmethod
    def _split(cls, v: Any) -> list[str]:
        return split_list(v)

    @field_validator("site_root", mode="before")
    @classmethod
    def _split_roots(cls, v: Any) -> list[str]:
        return split_list(v)

    @field_validator("site_root")
    @classmethod
    def _check_roots(cls, v: list[str]) -> list[str]:
        out = []
        for folder in v:
            path = PurePosixPath(folder.replace("\\", "/"))
            if path.is_absolute() or ".." in path.parts:
                raise ValueError(
                    f"{folder!r} is not a folder of the checkout: name it from the checkout's root"
                )
            out.append(path.as_posix())
        return out

    @field_validator("site_url", mode="before")
    @classmethod
    def _check_site_url(cls, v: Any) -> Any:
        if v is None or (isinstance(v, str) and not v.strip()):
            return None
        parts = urlsplit(str(v).strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{v!r} is not an http(s) URL")
        return str(v).strip()

    @model_validator(mode="after")
    def _site_url_allowed(self) -> Settings:
        host = (urlsplit(self.site_url).hostname or "").lower() if self.site_url else ""
        if host and self.allowed_domains and not _domain_within(host.strip("."), self.allowed_domains):
            raise ValueError(
                f"site-url's host {host} is not in allowed-domains: its pages could not be fetched "
                "(add it to allowed-domains, or leave site-url out)"
            )
        return self

    @field_validator("exclude", mode="before")
    @classmethod
    def _split_patterns(cls, v: Any) -> list[str]:
        return split_lines(v)

    @field_validator("exclude")
    @classmethod
    def _check_patterns(cls, v: list[str]) -> list[str]:
        for pattern in v:
            if (why := pattern_error(pattern)) is not None:
                raise ValueError(why)
        return v

    @field_validator("archive", mode="before")
    @classmethod
    def _archive_off(cls, v: Any) -> Any:
        return ArchiveMode.off if isinstance(v, str) and v.strip().lower() in _ARCHIVE_OFF else v

    @field_validator("archive_check")
    @classmethod
    def _check_needs_archive(cls, v: bool, info: ValidationInfo) -> bool:
        if v and info.data.get("archive", ArchiveMode.off) == ArchiveMode.off:
            raise ValueError("archive-check checks claims against archived copies: it needs archive: wayback")
        return v

    @field_validator("archive_url")
    @classmethod
    def _check_archive_url(cls, v: str) -> str:
        parts = urlsplit(v.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{v!r} is not an http(s) URL")
        return v.strip()

    @field_validator("accept_status", mode="before")
    @classmethod
    def _split_statuses(cls, v: Any) -> list[Any]:
        if isinstance(v, int | str):
            v = [v]
        return split_list([str(x) for x in v]) if isinstance(v, list | tuple) else v

    @field_validator("accept_status")
    @classmethod
    def _check_statuses(cls, v: list[int]) -> list[int]:
        bad = [s for s in v if not 100 <= s <= 999]
        if bad:
            raise ValueError(f"{bad} are not HTTP status codes (100-999)")
        return sorted(set(v))

    @field_validator("allowed_domains", "allow_private_hosts")
    @classmethod
    def _lower_hosts(cls, v: list[str]) -> list[str]:
        return [d.lower().strip(".") for d in v]

    @field_validator("fail_on")
    @classmethod
    def _check_fail_on(cls, v: list[str]) -> list[str]:
        bad = [c for c in v if c not in FAIL_ON_CATEGORIES]
        if bad:
            raise ValueError(f"unknown fail-on categories {bad}; choose from {', '.join(FAIL_ON_CATEGORIES)}")
        return v

    @field_validator("shard")
    @classmethod
    def _check_shard(cls, v: str | None) -> str | None:
        parse_shard(v)
        return v or None

    @property
    def shard_tuple(self) -> tuple[int, int] | None:
        return parse_shard(self.shard)

    def deadline_minutes(self) -> float:
        """The judge's time budget in minutes (`judge_deadline_minutes`, or the mode's default)."""
        if self.judge_deadline_minutes is not None:
            return self.judge_deadline_minutes
        return DEFAULT_DEADLINE_MINUTES[self.judge_mode]


# Keys a `.citecheck.toml` may set, and how each may only narrow the ceiling.
_NARROWABLE = {
    "allowed_domains",
    "exclude",
    "accept_status",
    "max_cost_usd",
    "max_claims",
    "fail_on",
    "ignore",
    "paths",
    "evidence_chars",
    "timeout_s",
    "max_source_bytes",
    "concurrency",
    "min_confidence",
    "judge_concurrency",
    "judge_deadline_minutes",
    # Where internal links lead: no wider reach (site-url's host must pass the allowlist), so a
    # config file may name them where the workflow does not.
    "site_root",
    "site_url",
}


# Keys a config file cannot set at all, and where they are set instead.
_WORKFLOW_ONLY = {
    "judge": "the workflow's `judge` input (or --judge)",
    "allow_private_hosts": "the workflow's `allow-private-hosts` input (or --allow-private-host)",
    # It decides which sentences are checked at all: a PR's own file must not turn it on.
    "screen": "the workflow's `screen` input (or --screen)",
    # They admit the archive's hosts past the allowlist, and archive-check lets an archived copy
    # decide a claim whose link is dead.
    "archive": "the workflow's `archive` input (or --archive)",
    "archive_check": "the workflow's `archive-check` input (or --archive-check)",
    "archive_url": "--archive-url",
}
_CAPS = (
    "max_cost_usd",
    "max_claims",
    "evidence_chars",
    "timeout_s",
    "max_source_bytes",
    "concurrency",
    "judge_concurrency",
)


def _domain_within(domain: str, ceiling: list[str]) -> bool:
    return any(domain == c or domain.endswith("." + c) for c in ceiling)


def _shown(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


@dataclass
class Narrowed:
    """The settings a config file leaves, and a note for each of its values the ceiling
    overrode (so nobody wonders why `max_claims = 1000` checked 200 claims)."""

    settings: Settings
    notes: list[str] = field(default_factory=list)


def narrow(settings: Settings, file_config: dict[str, Any], source: str) -> Settings:
    """`narrowing(...).settings`: the config file applied, without its notes."""
    return narrowing(settings, file_config, source).settings


def narrowing(
    settings: Settings, file_config: dict[str, Any], source: str, *, ceiling: str = "the workflow's"
) -> Narrowed:
    """Apply a repository config file on top of the ceiling `settings`, narrowing only.

    A key that would widen the ceiling is an error naming the file, so a PR cannot quietly
    open the allowlist or raise the cost cap. A value the ceiling overrides is a note
    ("max_claims = 1000 in .citecheck.toml is above the workflow's 200; 200 applies");
    `ceiling` names where the ceiling comes from ("the workflow's", "the flags'").
    """
    cfg = {k.replace("-", "_"): v for k, v in file_config.items()}
    unknown = sorted(set(cfg) - _NARROWABLE)
    if unknown:
        elsewhere = [f"{k} is set in {_WORKFLOW_ONLY[k]}" for k in unknown if k in _WORKFLOW_ONLY]
        raise ConfigError(
            f"{source}: unknown or non-narrowable keys {unknown}",
            "; ".join([*elsewhere, f"a config file may set only: {', '.join(sorted(_NARROWABLE))}"]),
        )
    update: dict[str, Any] = {}
    notes: list[str] = []
    if "allowed_domains" in cfg:
        domains = [d.lower().strip(".") for d in split_list(cfg["allowed_domains"])]
        if settings.allowed_domains:
            wider = [d for d in domains if not _domain_within(d, settings.allowed_domains)]
            if not domains:  # an empty allowlist means any public host: that would widen
                wider = ["(empty: any host)"]
            if wider:
                raise ConfigError(
                    f"{source}: allowed_domains {wider} are outside the workflow's allowlist",
                    "the config file can only narrow allowed-domains; widen it in the workflow inputs",
                )
        update["allowed_domains"] = domains
    if "accept_status" in cfg:
        # Accepting a status can turn a failing `blocked` claim into one a fail-on list may let
        # through: the file may accept only statuses the workflow accepts.
        try:
            accepted = Settings(accept_status=cfg["accept_status"]).accept_status
        except ValidationError as exc:
            raise ConfigError(f"{source}: accept_status: {exc.errors()[0]['msg']}", "fix the value") from None
        wider = [s for s in accepted if s not in settings.accept_status]
        if wider:
            raise ConfigError(
                f"{source}: accept_status {wider} are not accepted by the workflow's accept-status",
                "the config file can only narrow accept-status; widen it in the workflow inputs",
            )
        update["accept_status"] = accepted
    for key in _CAPS:
        if key in cfg:
            value, top = cfg[key], getattr(settings, key)
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise ConfigError(f"{source}: {key} must be a number, not {value!r}", "fix the value")
            update[key] = min(value, top)
            if value > top:
                shown = _shown(top)
                notes.append(
                    f"{key} = {_shown(value)} in {source} is above {ceiling} {shown}; {shown} applies"
                )
    if "judge_deadline_minutes" in cfg:
        value, top = cfg["judge_deadline_minutes"], settings.deadline_minutes()
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ConfigError(
                f"{source}: judge_deadline_minutes must be a number, not {value!r}", "fix the value"
            )
        update["judge_deadline_minutes"] = min(value, top)
        if value > top:
            notes.append(
                f"judge_deadline_minutes = {_shown(value)} in {source} is above {ceiling} "
                f"{_shown(top)}; {_shown(top)} applies"
            )
    if "min_confidence" in cfg:
        value, top = cfg["min_confidence"], settings.min_confidence
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ConfigError(f"{source}: min_confidence must be a number, not {value!r}", "fix the value")
        # A higher threshold makes the judge abstain more often: stricter, so the higher wins.
        update["min_confidence"] = max(value, top)
        if value < top:
            notes.append(
                f"min_confidence = {_shown(value)} in {source} is below {ceiling} {_shown(top)}; "
                f"{_shown(top)} applies"
            )
    if "fail_on" in cfg:
        listed = split_list(cfg["fail_on"])
        update["fail_on"] = sorted(set(settings.fail_on) | set(listed))
        kept = [c for c in settings.fail_on if c not in listed]
        if listed and kept:
            notes.append(
                f"fail_on in {source} leaves out {', '.join(kept)}, which {ceiling} fail-on keeps: "
                "a config file can only add categories"
            )
    if "exclude" in cfg:
        try:
            added = Settings(exclude=cfg["exclude"]).exclude
        except (ValidationError, ValueError) as exc:
            why = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            raise ConfigError(
                f"{source}: exclude: {why.removeprefix('Value error, ')}",
                "write Python regular expressions matched against the URL, e.g. '^https?://intranet\\.'",
            ) from None
        update["exclude"] = settings.exclude + added
    if "ignore" in cfg:
        update["ignore"] = settings.ignore + split_list(cfg["ignore"])
    if "paths" in cfg:
        # Narrowing file globs: a file must match both the workflow's and the config's paths.
        update["also_paths"] = split_list(cfg["paths"])
    for key in ("site_root", "site_url"):
        if key in cfg:
            if getattr(settings, key):
                notes.append(f"{key} in {source} is ignored: {ceiling} {key.replace('_', '-')} applies")
            else:
                update[key] = cfg[key]
    try:
        return Narrowed(Settings.model_validate({**settings.model_dump(), **update}), notes)
    except ValidationError as exc:
        raise ConfigError(f"{source}: {exc.errors()[0]['msg']}", "fix the value in the config file") from None


def parse_ignore_file(text: str, source: str) -> list[str]:
    """The patterns of a `.citecheckignore` (`source` names it in errors): one regular
    expression a line, blank lines and `#` comments skipped; a bad one is an error naming
    its line."""
    patterns: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        pattern = line.strip()
        if not pattern or pattern.startswith("#"):
            continue
        if (why := pattern_error(pattern)) is not None:
            raise ConfigError(
                f"{source}:{n}: {why}",
                "one Python regular expression a line, matched against the URL; `#` starts a comment",
            )
        patterns.append(pattern)
    return patterns


def load_config_file(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"config file {path} not found", "check the `config` input / --config path"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config file: {exc.strerror}", "check the path") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}", "fix the syntax of the config file") from None
    # Accept both a flat file and a [citecheck] table.
    table = data.get("citecheck", data)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: `citecheck` must be a table", "write the settings under [citecheck]")
    return table
