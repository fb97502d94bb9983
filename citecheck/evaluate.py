"""`citecheck eval`: how often a run fails claims a labelled set calls supported, and catches the
ones it calls unsupported, for one or more judge models side by side (docs/ARCHITECTURE.md).

The rows are a team's own JSONL files or the set bundled with citecheck (`data/eval/`, see its
NOTICE.md). One object a line:
- `claim`: the sentence;
- the source: `url`, fetched the way `check` fetches (SSRF guard, allowlist, size and time
  limits), or inline `text` / `evidence` (a string, or a list of sentences joined by newlines),
  with an optional `title`. A row with both is judged on the inline text, shown under its URL;
- `label`: supported (`supported`, `SUPPORT`) or not (`not_supported`; `partially_supported`,
  since partial support is not support; `REFUTE`, `NOTENOUGHINFO`), case, `-` and spaces ignored;
- optional `kind` (a name or a list; default: the kinds citecheck's extractor detects in the
  claim, `hyperlinked` when none), `set` (default: the file's name), `id`.
A row that cannot be used is reported with its file:line and skipped; the run goes on.

Each row is decided the way `check` decides a claim citing that source (`citecheck.policy`): a
source that could not be fetched abstains; then, unless `judge_only`, the link's text fragment
and the number, quote and date checks, one the page contradicts failing the claim with no judge
call; then the judge, on the passages `select_evidence` picks within the run's evidence budget,
told what the checks did not find on the page, with its evidence and doubt rules. Two
differences from `check`, both so that the figures measure rows one by one: each row is judged
in a call of its own (`check` shares a call among up to `batch_size` claims citing one page, so
its cost per claim is lower; here a row never sees another, such as Check-COVID's pairs of
claims that differ in one figure), and no cache is used. The cost cap (`max_cost_usd`) covers
the whole eval run: each model has an equal share.

The figures (`Scores`): false failures (supported claims failed), catch rate (unsupported claims
failed), balanced accuracy (the mean of the shares of supported claims passed and unsupported
claims failed: an abstention counts against both), abstentions by cause (the judge unsure, a
judge error, the cost cap, a source that could not be fetched), cost and judge latency per
claim; overall, by claim kind, by set, by gold label as written.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, computed_field

from citecheck import __version__, checks, policy
from citecheck.checks.passages import select_evidence
from citecheck.config import JUDGE_NONE, Settings
from citecheck.errors import ConfigError, JudgeFailedError
from citecheck.extract.kinds import detect_kinds
from citecheck.extract.resolve import link_citation
from citecheck.judge.core import Judge, JudgeItem
from citecheck.judge.providers import PROVIDERS
from citecheck.judge.resolve import JudgeConfig, resolve_judge
from citecheck.models import (
    Cause,
    CheckResult,
    Citation,
    CitationKind,
    Claim,
    ClaimKind,
    ClaimResult,
    DecidedBy,
    FetchedSource,
    FetchOutcome,
    FileError,
    SourceInfo,
    Verdict,
)
from citecheck.output.common import escape_markdown, shorten

if TYPE_CHECKING:
    from citecheck.checks import CheckedPage

BUNDLED = "bundled"  # how reports name the bundled set
BUNDLED_FILE = "data/eval/bundled.jsonl"  # inside the package
NOTICE_FILE = "citecheck/data/eval/NOTICE.md"

_SUPPORTED = frozenset({"supported", "support", "supports"})
_NOT_SUPPORTED = frozenset(
    {
        "not_supported",
        "unsupported",
        "partially_supported",
        "refute",
        "refutes",
        "refuted",
        "notenoughinfo",
        "not_enough_info",
        "nei",
    }
)
LABEL_HELP = "supported / SUPPORT, or not_supported / partially_supported / REFUTE / NOTENOUGHINFO"

FULL, JUDGE_ONLY = "full", "judge-only"
# Why a row got neither pass nor fail, in report order.
ABSTAIN_CAUSES = ("unsure", "no-fact", "judge-error", "cost-cap", "source")
_CAUSE_NAMES = {
    "unsure": "unsure",
    "no-fact": "no fact stated",
    "judge-error": "judge error",
    "cost-cap": "cost cap",
    "source": "source",
}
_LIST_LIMIT = 20  # skipped rows and false failures listed in the Markdown
# A verdict `decided_by` one of these was given by a deterministic check, with no judge call.
_CHECK_DECIDERS = frozenset(d.value for d in DecidedBy) - {DecidedBy.judge, DecidedBy.fetch, DecidedBy.policy}


def label_key(label: str) -> str:
    """A label as it is compared and grouped: lower case, `-` and spaces as `_`."""
    return re.sub(r"[\s-]+", "_", label.strip().lower())


def gold(label: object) -> bool | None:
    """Whether a label means supported (None: not a label eval knows)."""
    if not isinstance(label, str):
        return None
    key = label_key(label)
    return True if key in _SUPPORTED else False if key in _NOT_SUPPORTED else None


# --------------------------------------------------------------------------- rows


class EvalItem(BaseModel):
    """One usable row of a labelled file."""

    file: str  # as reports name it: the path given, or `bundled`
    line: int
    id: str | None = None
    claim: str
    label: str  # as written
    supported: bool  # the gold label
    kinds: list[str]
    set: str
    url: str | None = None  # fetched when there is no inline text
    text: str | None = None
    title: str | None = None


def _kinds(value: object, claim: str) -> list[str] | None:
    if value is None:
        return [k.value for k in detect_kinds(claim)] or [ClaimKind.hyperlinked.value]
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip() for n in names):
        return None
    return list(dict.fromkeys(n.strip() for n in names))


def _item(row: object, file: str, line: int) -> EvalItem | str:
    """The row as an item, or what is wrong with it."""
    if not isinstance(row, dict):
        return "not a JSON object"
    problems: list[str] = []
    claim = row.get("claim")
    if not isinstance(claim, str) or not claim.strip():
        problems.append("`claim` must be a non-empty string")
        claim = ""
    inline = row.get("text", row.get("evidence"))
    if isinstance(inline, list) and all(isinstance(s, str) for s in inline):
        inline = "\n".join(inline)
    url = row.get("url")
    if inline is not None and (not isinstance(inline, str) or not inline.strip()):
        problems.append("`text` / `evidence` must be a non-empty string or list of strings")
    if url is not None and (not isinstance(url, str) or link_citation(url, CitationKind.link, url) is None):
        problems.append(f"`url` must be an http(s) URL, not {url!r}")
    if inline is None and url is None:
        problems.append("give the source as `url`, or inline as `text` / `evidence`")
    label = row.get("label")
    supported = gold(label)
    if supported is None:
        problems.append(f"`label` must be one of {LABEL_HELP}, not {label!r}")
    kinds = _kinds(row.get("kind"), claim)
    if kinds is None:
        problems.append("`kind` must be a non-empty string or list of strings")
    set_name, title, row_id = row.get("set"), row.get("title"), row.get("id")
    for name, value in (("set", set_name), ("title", title)):
        if value is not None and not isinstance(value, str):
            problems.append(f"`{name}` must be a string")
    if problems:
        return "; ".join(problems)
    return EvalItem(
        file=file,
        line=line,
        id=None if row_id is None else str(row_id),
        claim=claim.strip(),
        label=str(label),
        supported=bool(supported),
        kinds=kinds or [],
        set=(set_name or "").strip() or file,
        url=url,
        text=inline,
        title=title,
    )


def parse_rows(text: str, file: str, limit: int | None = None) -> tuple[list[EvalItem], list[FileError]]:
    """The usable rows of a JSONL text (at most `limit`), and a file:line error for each bad one."""
    items: list[EvalItem] = []
    errors: list[FileError] = []
    for n, line in enumerate(text.splitlines(), 1):
        if limit is not None and len(items) >= limit:
            break
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            errors.append(FileError(file=file, line=n, message=f"row skipped: not JSON ({exc})"))
            continue
        got = _item(row, file, n)
        if isinstance(got, str):
            errors.append(FileError(file=file, line=n, message=f"row skipped: {got}"))
        else:
            items.append(got)
    return items, errors


def load_file(path: Path, limit: int | None = None) -> tuple[list[EvalItem], list[FileError]]:
    """The usable rows of a team's labelled file (ConfigError when it cannot be read)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"eval data {path} not found", "give a JSONL file with --data, or use --bundled", code="eval-data"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"cannot read eval data {path}: {exc}", "give a UTF-8 JSONL file", code="eval-data"
        ) from None
    return parse_rows(text, str(path), limit)


def load_bundled(limit: int | None = None) -> tuple[list[EvalItem], list[FileError]]:
    """The rows of the set bundled with citecheck (its order makes any prefix a fair sample)."""
    text = files("citecheck").joinpath(BUNDLED_FILE).read_text(encoding="utf-8")
    return parse_rows(text, BUNDLED, limit)


# --------------------------------------------------------------------------- results


class Outcome(BaseModel):
    """What the run made of one row with one model."""

    verdict: str  # pass | fail | abstained
    cause: str | None = None  # abstained: one of ABSTAIN_CAUSES
    decided_by: str | None = None  # number | quote | date | judge | fetch | policy
    reason: str | None = None
    cost_usd: float = 0.0
    latency_ms: int | None = None  # the judge's call(s) for the row; None when none was made
    cached: bool = False


def outcome_of(result: ClaimResult) -> Outcome:
    """A claim's verdict as eval counts it."""
    judged = result.judge
    common: dict[str, Any] = {
        "decided_by": result.decided_by.value if result.decided_by else None,
        "reason": result.reason,
        "cost_usd": judged.cost_usd if judged else 0.0,
        "latency_ms": judged.latency_ms if judged and not judged.cached and not judged.limit else None,
        "cached": bool(judged and judged.cached),
    }
    if result.verdict == Verdict.pass_:
        return Outcome(verdict="pass", **common)
    if result.verdict == Verdict.fail:
        return Outcome(verdict="fail", **common)
    if result.limit or result.cause == Cause.limit or (judged is not None and judged.limit):
        cause = "cost-cap"
    elif result.cause == Cause.unsure:
        cause = "unsure"
    elif result.cause == Cause.no_fact:
        cause = "no-fact"
    elif result.cause == Cause.judge_error:
        cause = "judge-error"
    else:  # the source could not be fetched or read
        cause = "source"
    return Outcome(verdict="abstained", cause=cause, **common)


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


class Scores(BaseModel):
    """The figures of one model on a group of rows."""

    claims: int = 0
    supported: int = 0
    not_supported: int = 0
    passed_supported: int = 0
    false_failures: int = 0  # supported claims failed
    false_failures_by_check: int = 0  # … by a deterministic check, with no judge call
    caught: int = 0  # unsupported claims failed
    caught_by_check: int = 0
    missed: int = 0  # unsupported claims passed
    abstained: dict[str, int] = Field(default_factory=lambda: dict.fromkeys(ABSTAIN_CAUSES, 0))
    judge_calls: int = 0  # rows the judge was called for (not cached, not stopped by the cap)
    cached: int = 0
    cost_usd: float = 0.0
    latency_median_ms: int | None = None
    latency_p90_ms: int | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def false_failure_rate(self) -> float | None:
        return _share(self.false_failures, self.supported)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def catch_rate(self) -> float | None:
        return _share(self.caught, self.not_supported)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def balanced_accuracy(self) -> float | None:
        if not self.supported or not self.not_supported:
            return None
        return (self.passed_supported / self.supported + self.caught / self.not_supported) / 2

    @computed_field  # type: ignore[prop-decorator]
    @property
    def abstention_rate(self) -> float | None:
        return _share(sum(self.abstained.values()), self.claims)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def cost_per_claim_usd(self) -> float | None:
        return self.cost_usd / self.claims if self.claims else None


def _percentile(values: list[int], q: float) -> int | None:
    """The nearest-rank percentile."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def score(pairs: Iterable[tuple[EvalItem, Outcome]]) -> Scores:
    """The figures of the rows' outcomes."""
    s = Scores()
    latencies: list[int] = []
    for item, out in pairs:
        s.claims += 1
        s.cost_usd += out.cost_usd
        s.cached += out.cached
        by_check = out.decided_by in _CHECK_DECIDERS
        if out.latency_ms is not None:
            s.judge_calls += 1
            latencies.append(out.latency_ms)
        if item.supported:
            s.supported += 1
            s.passed_supported += out.verdict == "pass"
            s.false_failures += out.verdict == "fail"
            s.false_failures_by_check += out.verdict == "fail" and by_check
        else:
            s.not_supported += 1
            s.caught += out.verdict == "fail"
            s.caught_by_check += out.verdict == "fail" and by_check
            s.missed += out.verdict == "pass"
        if out.cause is not None:
            s.abstained[out.cause] += 1
    s.cost_usd = round(s.cost_usd, 8)
    s.latency_median_ms = _percentile(latencies, 0.5)
    s.latency_p90_ms = _percentile(latencies, 0.9)
    return s


class RowResult(BaseModel):
    file: str
    line: int
    id: str | None = None
    set: str
    claim: str
    label: str
    supported: bool
    kinds: list[str]
    url: str | None = None  # the source's URL, when it was given
    outcomes: dict[str, Outcome] = Field(default_factory=dict)  # by model


class ModelRun(BaseModel):
    """One column: a model's figures."""

    model: str
    provider: str
    max_cost_usd: float  # its share of the run's cap
    calls_made: int = 0
    calls_failed: int = 0
    failure: str | None = None  # every call failed: the figures mean nothing
    overall: Scores
    by_kind: dict[str, Scores] = Field(default_factory=dict)
    by_set: dict[str, Scores] = Field(default_factory=dict)
    by_label: dict[str, Scores] = Field(default_factory=dict)  # by gold label, as first written


class EvalReport(BaseModel):
    """The JSON output of `citecheck eval` (`--format json`)."""

    version: str = __version__
    data: list[str]  # the files read, or ["bundled"]
    decision: str  # full (checks, then the judge, as `check` decides) | judge-only
    max_cost_usd: float  # for the whole run
    models: list[ModelRun]
    rows: list[RowResult]
    errors: list[FileError] = Field(default_factory=list)  # rows skipped
    notes: list[str] = Field(default_factory=list)
    # Thresholds a team set, and what missed them (a non-empty `gate_failures` exits 1).
    thresholds: dict[str, float] = Field(default_factory=dict)
    gate_failures: list[str] = Field(default_factory=list)


def _groups(items: Sequence[EvalItem], key: Callable[[EvalItem], Iterable[str]]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        for name in key(item):
            out.setdefault(name, []).append(i)
    return out


def _model_run(
    config: JudgeConfig, cap: float, judge: Judge, items: Sequence[EvalItem], outcomes: Sequence[Outcome]
) -> ModelRun:
    def scores(rows: list[int]) -> Scores:
        return score((items[i], outcomes[i]) for i in rows)

    kinds = _groups(items, lambda it: it.kinds)
    # Labels grouped as compared (case, `-` and spaces aside), named as first written.
    spelled: dict[str, str] = {}
    for it in items:
        spelled.setdefault(label_key(it.label), it.label)
    labels = _groups(items, lambda it: [spelled[label_key(it.label)]])
    # Kinds with the most claims first.
    order = sorted(kinds, key=lambda k: (-len(kinds[k]), k))
    failure = judge.failure_error()
    return ModelRun(
        model=config.model,
        provider=config.provider,
        max_cost_usd=cap,
        calls_made=judge.calls_made,
        calls_failed=judge.calls_failed,
        failure=failure.message if failure else None,
        overall=scores(list(range(len(items)))),
        by_kind={k: scores(kinds[k]) for k in order},
        by_set={k: scores(v) for k, v in _groups(items, lambda it: [it.set]).items()},
        # Supported labels first, then by claims.
        by_label={
            k: scores(v)
            for k, v in sorted(labels.items(), key=lambda kv: (not gold(kv[0]), -len(kv[1]), kv[0]))
        },
    )


# --------------------------------------------------------------------------- the run


def _claim(item: EvalItem) -> tuple[Claim, Citation]:
    """The row as `check` would see a claim citing its source."""
    url = item.url or f"{item.file}#L{item.line}"
    citation = link_citation(f"<{url}>", CitationKind.link, url) if item.url else None
    if citation is None:  # inline text under no URL: a name for the source, never fetched
        citation = Citation(raw=url, kind=CitationKind.link, url=url)
    # The checks run by the kinds `check` would find, whatever `kind` the row names.
    claim = Claim(
        text=item.claim,
        kinds=[*detect_kinds(item.claim), ClaimKind.hyperlinked],
        file=item.file,
        line=item.line,
        column=1,
        citations=[citation],
    )
    return claim, citation


class _Rows:
    """The rows made ready for the judge: their claims, sources, pages and, for rows a failed
    fetch or a check decided, that verdict (the same whichever model judges)."""

    def __init__(self, items: Sequence[EvalItem]) -> None:
        self.items = items
        pairs = [_claim(item) for item in items]
        self.claims = [c for c, _ in pairs]
        self.citations = [c for _, c in pairs]
        self.sources: list[FetchedSource] = []
        self.pages: list[CheckedPage | None] = []
        self.checks: list[list[CheckResult]] = [[] for _ in items]
        self.decided: list[ClaimResult | None] = [None] * len(items)

    async def prepare(self, settings: Settings, judge_only: bool) -> None:
        from citecheck.checks import CheckedPage
        from citecheck.fetch.fetcher import FetchResult, fetch_all, fetch_key

        fetched: FetchResult[CheckedPage] = FetchResult(sources={}, prepared={})
        to_fetch = {i: self.citations[i].url or "" for i, it in enumerate(self.items) if it.text is None}
        if to_fetch:
            by_page: dict[str, list[Claim]] = {}
            for i, url in to_fetch.items():
                by_page.setdefault(fetch_key(url), []).append(self.claims[i])
            prepare = None if judge_only else checks.preparers(by_page)
            fetched = await fetch_all(sorted(set(to_fetch.values())), settings, prepare=prepare)
        pages = checks.checked_pages(fetched.sources, fetched.prepared)
        for i, item in enumerate(self.items):
            url = self.citations[i].url or ""
            if i in to_fetch:
                source = fetched.sources[url]
                page = pages.get(url)
            else:
                source = FetchedSource(
                    info=SourceInfo(url=url), outcome=FetchOutcome.ok, text=item.text or "", title=item.title
                )
                page = CheckedPage.of(source.text)
            self.sources.append(source)
            self.pages.append(page)
            claim, citation = self.claims[i], self.citations[i]
            decided = policy.fetch_verdict(claim, url, source)
            if decided is None and not judge_only and page is not None:
                self.checks[i] = checks.claim_results(claim, citation, page)
                decided = policy.checks_verdict(
                    claim, url, self.checks[i], decide_alone=checks.DECIDE_ALONE, judge_on=True
                )
            self.decided[i] = decided

    async def judge(self, config: JudgeConfig, settings: Settings) -> tuple[list[Outcome], Judge]:
        """Every row's outcome with this judge (rows decided already make no call)."""
        judge = Judge(config, settings, None)

        async def one(i: int) -> ClaimResult:
            decided = self.decided[i]
            if decided is not None:
                return decided
            claim, citation, source, page = self.claims[i], self.citations[i], self.sources[i], self.pages[i]
            passages = select_evidence(
                claim.text,
                source.text,
                budget_chars=settings.evidence_chars,
                text_fragment=citation.text_fragment,
                page=page.index if page is not None else None,
            )
            # as `check` does: the judge is told what the checks did not find on the page
            hints = checks.judge_hints(self.checks[i])
            [judged] = await judge.judge_source(source, [JudgeItem(claim, passages, hints)])
            return policy.judge_verdict(claim, citation.url or "", self.checks[i], judged)

        try:
            results = await asyncio.gather(*(one(i) for i in range(len(self.items))))
        finally:
            await judge.aclose()
        return [outcome_of(r) for r in results], judge


def _configs(
    settings: Settings, environ: Mapping[str, str], models: Sequence[str | None]
) -> list[JudgeConfig]:
    """Every model's judge, resolved before anything is fetched or called."""
    if settings.judge == JUDGE_NONE:
        raise ConfigError(
            "eval needs a judge, but the judge is `none`",
            f"choose --judge {'|'.join(PROVIDERS)} (or leave it out) and set its API key",
            code="no-judge",
        )
    configs = [resolve_judge(settings.model_copy(update={"model": m}), environ) for m in models or [None]]
    resolved = [c for c in configs if c is not None]
    names = [c.model for c in resolved]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(
            f"model {', '.join(twice)} given twice", "give each --model once", code="eval-models"
        )
    return resolved


def _load(data: Sequence[Path], bundled: bool, limit: int | None) -> tuple[list[EvalItem], list[FileError]]:
    if bundled == bool(data):
        raise ConfigError(
            "give --data FILE or --bundled (not both)", "see `citecheck eval --help`", code="eval-data"
        )
    if bundled:
        return load_bundled(limit)
    items: list[EvalItem] = []
    errors: list[FileError] = []
    for path in data:
        got, bad = load_file(path, None if limit is None else max(0, limit - len(items)))
        items += got
        errors += bad
    return items, errors


def run_eval(
    settings: Settings,
    environ: Mapping[str, str],
    *,
    data: Sequence[Path] = (),
    bundled: bool = False,
    models: Sequence[str | None] = (None,),
    judge_only: bool = False,
    limit: int | None = None,
) -> EvalReport:
    """Decide every row (the first `limit`) with each model; the figures per model.

    ConfigError (exit 2) for no judge, a model that does not resolve, unreadable data or no
    usable row; a model whose every call failed is reported in its column (`failure`).
    """
    configs = _configs(settings, environ, models)
    items, errors = _load(data, bundled, limit)
    if not items:
        raise ConfigError(
            "no usable row in the eval data",
            "each line needs `claim`, `label` and a source (`url`, or `text` / `evidence`); "
            "see the errors above",
            code="eval-data",
        )
    share = settings.max_cost_usd / len(configs)
    rows = _Rows(items)

    async def run() -> list[tuple[list[Outcome], Judge]]:
        await rows.prepare(settings, judge_only)
        per_model = [settings.model_copy(update={"model": c.model, "max_cost_usd": share}) for c in configs]
        # Models are judged side by side; each judge bounds its own concurrency.
        return list(
            await asyncio.gather(*(rows.judge(c, s) for c, s in zip(configs, per_model, strict=True)))
        )

    judged = asyncio.run(run())
    columns = [
        _model_run(config, share, judge, items, outcomes)
        for config, (outcomes, judge) in zip(configs, judged, strict=True)
    ]
    results = [
        RowResult(
            file=item.file,
            line=item.line,
            id=item.id,
            set=item.set,
            claim=item.claim,
            label=item.label,
            supported=item.supported,
            kinds=item.kinds,
            url=item.url,
            outcomes={c.model: outcomes[i] for c, (outcomes, _) in zip(configs, judged, strict=True)},
        )
        for i, item in enumerate(items)
    ]
    notes = []
    for column in columns:
        capped = column.overall.abstained["cost-cap"]
        if capped:
            notes.append(
                f"{column.model} reached its share of the cost cap (${column.max_cost_usd:.2f}): {capped} "
                "claim(s) not judged — its figures cover fewer claims; raise --max-cost-usd"
            )
        if column.failure:
            notes.append(f"{column.model}: {column.failure}")
    return EvalReport(
        data=[BUNDLED] if bundled else [str(p) for p in data],
        decision=JUDGE_ONLY if judge_only else FULL,
        max_cost_usd=settings.max_cost_usd,
        models=columns,
        rows=results,
        errors=errors,
        notes=notes,
    )


def check_thresholds(max_false_failure_rate: float | None, min_catch_rate: float | None) -> None:
    """ConfigError for a threshold that is not a rate (called before the run spends anything)."""
    for name, value in (
        ("--max-false-failures", max_false_failure_rate),
        ("--min-catch-rate", min_catch_rate),
    ):
        if value is not None and not 0 <= value <= 1:
            raise ConfigError(
                f"{name} {value:g} is not a rate", "give a fraction from 0 to 1, e.g. 0.05 for 5 %"
            )


def with_gate(
    report: EvalReport, *, max_false_failure_rate: float | None = None, min_catch_rate: float | None = None
) -> EvalReport:
    """The report with the team's thresholds applied to every model: what missed them. A rate
    that cannot be measured (no claim of that label) misses its threshold."""
    for name, value in (
        ("--max-false-failures", max_false_failure_rate),
        ("--min-catch-rate", min_catch_rate),
    ):
        if value is not None and not 0 <= value <= 1:
            raise ConfigError(
                f"{name} {value:g} is not a rate", "give a fraction from 0 to 1, e.g. 0.05 for 5 %"
            )
    thresholds: dict[str, float] = {}
    missed: list[str] = []
    for column in report.models:
        s = column.overall
        if max_false_failure_rate is not None:
            thresholds["max_false_failure_rate"] = max_false_failure_rate
            rate = s.false_failure_rate
            if rate is None or rate > max_false_failure_rate:
                missed.append(
                    f"{column.model}: false failures {_pct(rate)} > {_pct(max_false_failure_rate)} allowed"
                )
        if min_catch_rate is not None:
            thresholds["min_catch_rate"] = min_catch_rate
            rate = s.catch_rate
            if rate is None or rate < min_catch_rate:
                missed.append(f"{column.model}: catch rate {_pct(rate)} < {_pct(min_catch_rate)} required")
    return report.model_copy(update={"thresholds": thresholds, "gate_failures": missed})


def failure_error(report: EvalReport) -> JudgeFailedError | None:
    """The exit-2 error when every judge call of a model failed (its column means nothing)."""
    failed = [c for c in report.models if c.failure]
    if not failed:
        return None
    return JudgeFailedError(
        "; ".join(f"{c.model}: {c.failure}" for c in failed),
        "check the model name, the key's access to it and the judge settings, and re-run",
    )


# --------------------------------------------------------------------------- Markdown


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


def _rate(part: int, whole: int) -> str:
    return "n/a" if not whole else f"{_pct(part / whole)} ({part}/{whole})"


def _ratio(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _ms(ms: int | None) -> str:
    if ms is None:
        return "n/a"
    return f"{ms} ms" if ms < 1000 else f"{ms / 1000:.2f} s"


def _usd(x: float | None) -> str:
    return "n/a" if x is None else f"${x:.5f}" if x < 0.01 else f"${x:.4f}"


def _cell(text: str) -> str:
    return escape_markdown(text)


def _abstained(s: Scores, *, brief: bool = False) -> str:
    total = sum(s.abstained.values())
    head = _rate(total, s.claims)
    if brief or not total:
        return head
    parts = ", ".join(f"{_CAUSE_NAMES[c]} {n}" for c, n in s.abstained.items() if n)
    return f"{head}: {parts}"


def _overall_table(report: EvalReport) -> list[str]:
    cols = report.models
    full = report.decision == FULL
    rows: list[tuple[str, Callable[[ModelRun], str]]] = [
        (
            "false failures: supported claims failed",
            lambda c: _rate(c.overall.false_failures, c.overall.supported),
        ),
    ]
    if full:
        rows.append(
            ("… of which by a check, no judge call", lambda c: str(c.overall.false_failures_by_check))
        )
    rows.append(
        ("catch rate: unsupported claims failed", lambda c: _rate(c.overall.caught, c.overall.not_supported))
    )
    if full:
        rows.append(("… of which by a check, no judge call", lambda c: str(c.overall.caught_by_check)))
    rows += [
        ("balanced accuracy", lambda c: _ratio(c.overall.balanced_accuracy)),
        ("abstained: neither pass nor fail", lambda c: _abstained(c.overall)),
        ("cost per claim", lambda c: _usd(c.overall.cost_per_claim_usd)),
        ("cost, all claims (cap share)", lambda c: f"{_usd(c.overall.cost_usd)} (${c.max_cost_usd:.2f})"),
        (
            "judge latency per claim: median / p90",
            lambda c: f"{_ms(c.overall.latency_median_ms)} / {_ms(c.overall.latency_p90_ms)}",
        ),
        ("judge calls (failed)", lambda c: f"{c.calls_made} ({c.calls_failed})"),
    ]
    out = [
        "| | " + " | ".join(_cell(c.model) for c in cols) + " |",
        "| --- |" + " ---: |" * len(cols),
    ]
    out += [f"| {name} | " + " | ".join(fn(c) for c in cols) + " |" for name, fn in rows]
    return out


def _group_table(
    report: EvalReport, title: str, groups: Callable[[ModelRun], dict[str, Scores]]
) -> list[str]:
    out = [
        f"| {title} | model | claims (supported / not) | false failures | catch rate | balanced accuracy "
        "| abstained | cost per claim | judge latency, median |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in groups(report.models[0]):
        for n, column in enumerate(report.models):
            s = groups(column)[name]
            cells = [
                _cell(name) if n == 0 else "",
                _cell(column.model),
                f"{s.supported} / {s.not_supported}",
                _rate(s.false_failures, s.supported),
                _rate(s.caught, s.not_supported),
                _ratio(s.balanced_accuracy),
                _abstained(s, brief=True),
                _usd(s.cost_per_claim_usd),
                _ms(s.latency_median_ms),
            ]
            out.append("| " + " | ".join(cells) + " |")
    return out


def _label_table(report: EvalReport) -> list[str]:
    cols = report.models
    out = [
        "| gold label | claims | " + " | ".join(f"{_cell(c.model)}: failed" for c in cols) + " |",
        "| --- | ---: |" + " ---: |" * len(cols),
    ]
    for name, s in cols[0].by_label.items():
        cells = [
            _rate(col.by_label[name].false_failures + col.by_label[name].caught, col.by_label[name].claims)
            for col in cols
        ]
        meaning = "supported" if s.supported else "not supported"
        out.append(f"| {_cell(name)} ({meaning}) | {s.claims} | " + " | ".join(cells) + " |")
    return out


def _data_line(report: EvalReport) -> str:
    s = report.models[0].overall
    counts = f"{s.claims} claims: {s.supported} supported, {s.not_supported} not supported"
    if report.data == [BUNDLED]:
        sets = ", ".join(report.models[0].by_set)
        return (
            f"**Data**: the bundled set ({counts}; from {sets}, attribution and licences in `{NOTICE_FILE}`)"
        )
    return f"**Data**: {', '.join(_cell(d) for d in report.data)} ({counts})"


def _false_failures(report: EvalReport) -> list[str]:
    out: list[str] = []
    for column in report.models:
        failed = [r for r in report.rows if r.supported and r.outcomes[column.model].verdict == "fail"]
        if not failed:
            continue
        out += [
            "",
            f"<details><summary>{_cell(column.model)}: supported claims it failed ({len(failed)})</summary>",
            "",
        ]
        for r in failed[:_LIST_LIMIT]:
            o = r.outcomes[column.model]
            out.append(
                f"- {_cell(f'{r.file}:{r.line}')}: {_cell(shorten(r.claim, 200))} — by {o.decided_by}: "
                f"{_cell(shorten(o.reason or '', 200))}"
            )
        if len(failed) > _LIST_LIMIT:
            out.append(f"- … and {len(failed) - _LIST_LIMIT} more (`--format json` lists every row)")
        out += ["", "</details>"]
    return out


def render_markdown(report: EvalReport) -> str:
    """The report as Markdown a team can paste into a decision: one column per model."""
    decision = (
        "**Decided as `citecheck check` decides**: a source that cannot be fetched abstains; the "
        "text-fragment, number, quote and date checks fail a claim with no judge call; the judge decides "
        "the rest (`--judge-only` skips the checks)."
        if report.decision == FULL
        else "**Decided by the judge alone** (`--judge-only`): the deterministic checks were not applied."
    )
    lines = [
        f"## citecheck eval: {' vs '.join(_cell(c.model) for c in report.models)}",
        "",
        _data_line(report) + "  ",
        decision + "  ",
        f"**Cost cap**: ${report.max_cost_usd:.2f} for the run, an equal share per model · "
        f"citecheck {report.version}",
        "",
        *_overall_table(report),
        "",
        "### By claim kind",
        "",
        "A claim with several kinds counts under each; `hyperlinked`: no number, quote, date or comparison.",
        "",
        *_group_table(report, "kind", lambda c: c.by_kind),
    ]
    if len(report.models[0].by_set) > 1:
        lines += ["", "### By set", "", *_group_table(report, "set", lambda c: c.by_set)]
    if len(report.models[0].by_label) > 2 or any(
        k not in ("supported", "not_supported") for k in report.models[0].by_label
    ):
        lines += ["", "### By gold label", "", *_label_table(report)]
    if report.thresholds:
        wanted = ", ".join(f"{k.replace('_', ' ')} {_pct(v)}" for k, v in report.thresholds.items())
        verdict = "missed" if report.gate_failures else "met by every model"
        lines += ["", f"**Gate** ({wanted}): {verdict}"]
        lines += [f"- {_cell(m)}" for m in report.gate_failures]
    if report.notes:
        lines += ["", *[f"> **Note**: {_cell(n)}  " for n in report.notes]]
    if report.errors:
        lines += ["", f"**Rows skipped** ({len(report.errors)}):", ""]
        lines += [f"- {_cell(f'{e.file}:{e.line}')}: {_cell(e.message)}" for e in report.errors[:_LIST_LIMIT]]
        if len(report.errors) > _LIST_LIMIT:
            lines.append(f"- … and {len(report.errors) - _LIST_LIMIT} more")
    lines += _false_failures(report)
    lines += [
        "",
        "False failures: supported claims failed, of all supported claims. Catch rate: unsupported claims "
        "failed, of all unsupported. Balanced accuracy: the mean of the share of supported claims passed and "
        "the share of unsupported claims failed; an abstention counts against it. Abstained: the judge was "
        "unsure, erred, was stopped by the cost cap, or the source could not be fetched — under the default "
        "`fail-on` these fail the check too. Cost per claim: the model's spend over every claim, those "
        "decided by a check included; each claim is judged in a call of its own. Latency: per judge call.",
    ]
    return "\n".join(lines) + "\n"


def render_json(report: EvalReport) -> str:
    return report.model_dump_json(indent=2)
