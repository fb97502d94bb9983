"""The `citecheck` command line (its commands and flags are a contract: README, "Command line").

Exit codes: 0 passed, 1 a claim failed under `--fail-on`, 2 configuration or runtime error.
API keys come only from the environment (ANTHROPIC_API_KEY / OPENAI_API_KEY).

`check -` and `extract -` read a draft from standard input (`--stdin-name` names it in the
report). With `--format json`, an error that exits 2 is a JSON document on stdout,
`{"error": {"code", "message", "recovery": [...]}}` (the codes are in the README), besides the
line on stderr; so is a usage error, when `--format json` was on the command line.
`citecheck mcp` serves the MCP tools (citecheck.mcp) on stdin/stdout.
`check` shows its progress on standard error: a bar on a terminal, plain lines elsewhere
(`citecheck.terminal`); `--no-progress` (or CITECHECK_PROGRESS=0) turns it off.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from pydantic import ValidationError

from citecheck import __version__
from citecheck.config import (
    DEFAULT_ARCHIVE_URL,
    IGNORE_FILE,
    ArchiveMode,
    Settings,
    load_config_file,
    narrowing,
    parse_ignore_file,
)
from citecheck.draft import DEFAULT_STDIN_NAME, STDIN, draft_file
from citecheck.errors import CitecheckError, ConfigError, ExitCode, UnsafePathError
from citecheck.judge.providers import judge_choices, run_redactor
from citecheck.policy import DEFAULT_FAIL_ON, FAIL_ON_CATEGORIES
from citecheck.redact import Redactor
from citecheck.safe_paths import write_inside

DEFAULT_CONFIG_FILE = ".citecheck.toml"
UPSTREAM = "@{upstream}"  # `--changed` without a base: the branch's upstream
JUDGE_SKIPPED_NO_KEY = "judge skipped: no API key (--judge-optional)"
USAGE_ERROR = "usage"  # the error code of a command line argparse rejects
INTERNAL_ERROR = "internal-error"  # the error code of an unexpected crash
INTERRUPTED = "interrupted"  # the error code of Ctrl-C


class UsageExit(SystemExit):
    """argparse rejected the command line (it has printed usage and message on stderr, as
    always): exit 2, and `main` adds the JSON error when `--format json` was asked for."""

    def __init__(self, message: str, prog: str) -> None:
        super().__init__(ExitCode.ERROR)
        self.message = message
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise UsageExit(message, self.prog)


def _add_stdin_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--stdin-name",
        default=DEFAULT_STDIN_NAME,
        metavar="NAME",
        help=f"the draft's file name in the report, when `-` reads it from standard input "
        f"(default {DEFAULT_STDIN_NAME})",
    )


def _add_fetch_scope_options(p: argparse.ArgumentParser, allowed_help: str) -> None:
    """Where the fetcher may go: the allowlist and the private hosts let past the SSRF guard."""
    p.add_argument(
        "--allowed-domain",
        action="append",
        dest="allowed_domains",
        metavar="D",
        help=f"{allowed_help} (repeatable; default any public host)",
    )
    p.add_argument(
        "--allow-private-host",
        action="append",
        dest="allow_private_hosts",
        metavar="H",
        help="admit this private/loopback host past the SSRF guard (repeatable)",
    )


def _add_judge_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("judge")
    g.add_argument(
        "--judge",
        choices=judge_choices(),
        help="LLM provider (default: whichever API key is set, else an error)",
    )
    g.add_argument("--model", help="model name (default per provider)")
    g.add_argument("--base-url", help="API base URL (for openai-compatible servers or proxies)")
    g.add_argument("--max-cost-usd", type=float, help="hard cap on judge spend for the run (default 1.00)")
    g.add_argument(
        "--price-in",
        type=float,
        dest="price_in_per_mtok",
        help="USD per million input tokens, for a model outside the price table",
    )
    g.add_argument(
        "--price-out",
        type=float,
        dest="price_out_per_mtok",
        help="USD per million output tokens, for a model outside the price table",
    )
    g.add_argument(
        "--judge-concurrency",
        type=int,
        metavar="N",
        help="at most N judge calls at once; below it the judge paces itself to the account's "
        "rate limits (default 32)",
    )


def _add_judge_run_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("judge at audit scale")
    g.add_argument(
        "--judge-mode",
        choices=["interactive", "batch"],
        help="interactive (default): calls as the pages arrive, up to --judge-concurrency at once, "
        "for PRs; batch: the provider's batch API at half the price, answers in minutes to hours, "
        "for scheduled audits",
    )
    g.add_argument(
        "--judge-deadline-minutes",
        type=float,
        metavar="M",
        help="the judge's time budget from the start of the run (default 30; 330 in batch mode): "
        "claims not judged by then are not verified (limit)",
    )
    g.add_argument(
        "--screen",
        action="store_true",
        default=None,
        help="before fetching, the judge's model sets aside link-only and unsourced sentences that "
        "state no fact (pointers, instructions, titles, opinions …); they are listed, not checked",
    )


def _add_output_options(p: argparse.ArgumentParser, formats: Sequence[str], help: str = "") -> None:
    default = formats[0]
    p.add_argument("--format", choices=list(formats), default=default, help=f"{help}default: {default}")
    p.add_argument("--output", "-o", type=Path, help="write the report here instead of stdout")


def _add_report_options(p: argparse.ArgumentParser, *, extra_files: bool = False) -> None:
    from citecheck.output import DEFAULT_FORMAT, FORMATS

    names = [DEFAULT_FORMAT, *(n for n, f in FORMATS.items() if f.stdout and n != DEFAULT_FORMAT)]
    _add_output_options(p, names, "".join(f"{n}: {FORMATS[n].description}; " for n in names))
    if extra_files:
        for name in FORMATS:
            p.add_argument(
                f"--{name}",
                type=Path,
                dest=f"{name}_file",
                metavar="FILE",
                help=f"also write the {name} report here",
            )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="citecheck",
        description="Check the claims in Markdown documentation against the sources they cite.",
    )
    parser.add_argument("--version", action="version", version=f"citecheck {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("extract", help="list the claims and citations of Markdown files (no network)")
    p.add_argument(
        "paths",
        nargs="+",
        type=Path,
        help="files, or directories (every *.md/*.mdx/*.markdown); - reads a draft from standard input",
    )
    p.add_argument("--max-file-bytes", type=int, help="skip files larger than this (default 5 MB)")
    p.add_argument(
        "--skipped",
        action="store_true",
        help="also list the sentences a skip rule set aside (a citation or a fact's signal, and a form "
        "that asserts nothing), each with its rule",
    )
    _add_stdin_option(p)
    _add_output_options(p, ["text", "json"])

    p = sub.add_parser("check", help="verify the claims against their sources and write the report")
    p.add_argument(
        "paths",
        nargs="*",
        help="files or directories (default: the current directory); - reads a draft from standard input",
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--diff", metavar="REF", help="only claims on lines that differ between git REF and the working tree"
    )
    g.add_argument(
        "--changed",
        nargs="?",
        const=UPSTREAM,
        metavar="BASE",
        help="only claims on the lines your branch changed: since it left git BASE (their merge base), "
        "committed or not, new files included (default BASE: the upstream branch, @{upstream}; write "
        "--changed=BASE before file paths)",
    )
    p.add_argument(
        "--filter-mode",
        choices=["added", "diff_context", "file", "nofilter"],
        help="with --diff or --changed: which claims count (default added)",
    )
    p.add_argument(
        "--config", type=Path, help=f"config file that narrows the flags (default {DEFAULT_CONFIG_FILE})"
    )
    _add_fetch_scope_options(p, "fetch only these domains and their subdomains")
    _add_judge_options(p)
    _add_judge_run_options(p)
    p.add_argument("--max-claims", type=int, help="verify at most N claims (default 200)")
    p.add_argument(
        "--fail-on",
        help="comma list of: "
        + ", ".join(FAIL_ON_CATEGORIES)
        + " (default: "
        + ",".join(DEFAULT_FAIL_ON)
        + ")",
    )
    p.add_argument(
        "--accept-status",
        metavar="CODES",
        help="comma list of HTTP statuses that mean the link is live though its content is not read "
        "(e.g. 403,429): such a source is 'content not extractable', not unreachable or blocked",
    )
    p.add_argument(
        "--exclude",
        action="append",
        metavar="REGEX",
        help=f"a link whose URL this regular expression matches is not a source (repeatable; "
        f"{IGNORE_FILE} here adds more; localhost and example/test domains never are)",
    )
    p.add_argument("--cache-dir", type=Path, help="keep fetched sources and verdicts here")
    p.add_argument("--shard", help="I/N: check a stable 1/N slice of the files")
    p.add_argument("--concurrency", type=int, help="simultaneous fetches (default 64)")
    p.add_argument(
        "--timeout",
        type=float,
        dest="timeout_s",
        help="deadline of each source's whole fetch: hops, retries, waits, reading its text and "
        "checking the claims on it (seconds, default 10)",
    )
    p.add_argument("--no-fetch", action="store_true", help="fetch nothing; cited claims are not verified")
    g = p.add_argument_group("dead links")
    g.add_argument(
        "--archive",
        choices=[m.value for m in ArchiveMode],
        help="wayback: look a source that cannot be fetched up in the Internet Archive and name its "
        "snapshot as the link to cite instead (default off)",
    )
    g.add_argument(
        "--archive-check",
        action="store_true",
        default=None,
        help="with --archive wayback: check such a claim against the snapshot; its verdict then rests on it",
    )
    g.add_argument(
        "--archive-url",
        metavar="URL",
        help=f"the archive's availability API (default {DEFAULT_ARCHIVE_URL}; a mirror that answers "
        "the same JSON, or a test's stand-in)",
    )
    g = p.add_argument_group("internal links")
    g.add_argument(
        "--root",
        type=Path,
        metavar="DIR",
        help="the checkout internal links are followed in (default: the git working tree here, else the "
        "current folder); a draft on standard input follows its links only when --root is given, as "
        "the file --stdin-name names in it",
    )
    g.add_argument(
        "--site-root",
        metavar="DIRS",
        help="the folders of the checkout a site path (/rules/x) starts from, tried in order "
        "(comma list, e.g. docs,.; default: the checkout's root)",
    )
    g.add_argument(
        "--site-url",
        metavar="URL",
        help="the published site: a link no file of the checkout answers is fetched from it (its "
        "host must pass --allowed-domains)",
    )
    g = p.add_argument_group("pre-commit and editors")
    g.add_argument(
        "--judge-optional",
        action="store_true",
        help="with the default --judge auto and no API key set, run only the number, quote and date "
        "checks instead of stopping; claims that need the judge are then not verified and do not fail",
    )
    g.add_argument(
        "--user-cache",
        action="store_true",
        help="keep fetched sources and verdicts in your cache folder (as `citecheck mcp` does: "
        "$CITECHECK_CACHE_HOME, else e.g. ~/.cache/citecheck), unless --cache-dir is given",
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--progress",
        action="store_const",
        const=True,
        dest="progress",
        help="show progress on stderr (the default: a bar on a terminal, plain lines elsewhere), "
        "even when CITECHECK_PROGRESS=0",
    )
    g.add_argument(
        "--no-progress",
        action="store_const",
        const=False,
        dest="progress",
        help="show no progress on stderr (CITECHECK_PROGRESS=0 does the same)",
    )
    p.add_argument(
        "--fix",
        action="store_true",
        help="apply the suggested changes to the files: a figure, date or quotation a check found the "
        "cited page gives otherwise, replaced by the page's words (the diff is shown and you are asked "
        "first, unless --yes)",
    )
    p.add_argument("--yes", "-y", action="store_true", help="with --fix: apply without asking")
    _add_stdin_option(p)
    _add_report_options(p, extra_files=True)

    p = sub.add_parser("merge", help="join the JSON reports of sharded runs into one")
    p.add_argument("reports", nargs="+", type=Path)
    p.add_argument("--fail-on", help="fail-on list for the merged verdict (default: the shards')")
    _add_report_options(p)

    p = sub.add_parser("demo", help="check the bundled example against bundled local sources (no key)")
    _add_report_options(p)

    p = sub.add_parser(
        "eval",
        help="false failures, catch rate, cost and latency on a labelled set, models side by side",
        conflict_handler="resolve",  # its --model is repeatable: one column per model
    )
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument(
        "--data",
        type=Path,
        action="append",
        metavar="FILE",
        help="your labelled JSONL: claim, url or text/evidence, label, optional kind (repeatable)",
    )
    g.add_argument(
        "--bundled", action="store_true", help="the labelled set shipped with citecheck (300 claims)"
    )
    p.add_argument("--limit", type=int, help="only the first N usable rows")
    p.add_argument(
        "--judge-only",
        action="store_true",
        help="the judge decides every claim (default: the number/quote/date checks first, as in `check`)",
    )
    _add_judge_options(p)
    p.add_argument(
        "--model",
        action="append",
        dest="models",
        metavar="M",
        help="a model to evaluate; repeat to compare models side by side (default: the provider's)",
    )
    _add_fetch_scope_options(p, "fetch `url` sources only from these domains")
    p.add_argument("--timeout", type=float, dest="timeout_s", help="seconds per `url` source (default 10)")
    p.add_argument(
        "--max-false-failures",
        type=float,
        metavar="RATE",
        help="exit 1 if a model fails more supported claims (0..1)",
    )
    p.add_argument(
        "--min-catch-rate",
        type=float,
        metavar="RATE",
        help="exit 1 if a model fails fewer unsupported claims (0..1)",
    )
    _add_output_options(p, ["markdown", "json"])

    sub.add_parser(
        "mcp",
        help="serve the verify_citations and extract_claims tools to an MCP client, on stdin/stdout",
        description="An MCP server on stdio (see the README, 'For writers and agents'). API keys, "
        "CITECHECK_ALLOW_FETCH, CITECHECK_BASE_URL and CITECHECK_ALLOW_PRIVATE_HOSTS come from the "
        "environment.",
    )
    return parser


_SETTING_FLAGS = (
    "filter_mode",
    "allowed_domains",
    "allow_private_hosts",
    "judge",
    "model",
    "base_url",
    "max_cost_usd",
    "max_claims",
    "fail_on",
    "accept_status",
    "exclude",
    "cache_dir",
    "shard",
    "concurrency",
    "timeout_s",
    "price_in_per_mtok",
    "price_out_per_mtok",
    "max_file_bytes",
    "judge_concurrency",
    "judge_mode",
    "judge_deadline_minutes",
    "screen",
    "archive",
    "archive_check",
    "archive_url",
    "site_root",
    "site_url",
)


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Flags are the ceiling; a config file (explicit, or `.citecheck.toml` here) may only narrow."""
    values: dict[str, Any] = {
        k: getattr(args, k) for k in _SETTING_FLAGS if getattr(args, k, None) is not None
    }
    if getattr(args, "no_fetch", False):
        values["fetch"] = False
    if getattr(args, "user_cache", False) and "cache_dir" not in values:
        values["cache_dir"] = _user_cache()
    try:
        settings = Settings.model_validate(values)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err["loc"] else "value"
        message = str(err["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"--{field.replace('_', '-')}: {message}", "see `citecheck check --help`") from None
    config_path: Path | None = getattr(args, "config", None)
    if config_path is None and Path(DEFAULT_CONFIG_FILE).is_file() and hasattr(args, "config"):
        config_path = Path(DEFAULT_CONFIG_FILE)
    if config_path is not None:
        narrowed = narrowing(
            settings, load_config_file(config_path), str(config_path), ceiling="the command line's"
        )
        for note in narrowed.notes:
            print(f"citecheck: note: {note}", file=sys.stderr)
        settings = narrowed.settings
    ignore_file = Path(IGNORE_FILE)
    if hasattr(args, "config") and ignore_file.is_file():  # `check`, like lychee's .lycheeignore
        try:
            text = ignore_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{IGNORE_FILE}: cannot read it: {exc}", "fix or remove the file") from None
        patterns = parse_ignore_file(text, IGNORE_FILE)
        settings = settings.model_copy(update={"exclude": [*settings.exclude, *patterns]})
    return settings


def _user_cache() -> Path:
    """`--user-cache`: the sources and verdicts folder of the user's cache, the one `citecheck mcp`
    keeps (`citecheck.mcp.store`), made private to the user."""
    from citecheck.mcp.store import SOURCES, cache_home

    home = cache_home(os.environ)
    folder = home / SOURCES
    try:
        home.mkdir(parents=True, exist_ok=True, mode=0o700)
        folder.mkdir(exist_ok=True, mode=0o700)
    except OSError as exc:
        raise ConfigError(
            f"--user-cache: cannot make {folder}: {exc.strerror}", "give --cache-dir DIR instead"
        ) from None
    return folder


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        _write_file(output, text)


def _write_file(path: Path, text: str) -> None:
    """Write a report file through no symbolic link below the current folder: in CI that is a
    checkout a PR can write (`-o citecheck-report/report.md`, with that path committed as a
    link to a file of the runner's). A path outside it is the caller's own: its folders are
    made as given, and only the file itself is not followed."""
    target, here = Path(os.path.abspath(path)), Path.cwd()
    if target.is_relative_to(here) and target != here:
        top, rel = here, target.relative_to(here).as_posix()
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        top, rel = target.parent, target.name
    try:
        write_inside(top, rel, text)
    except UnsafePathError as exc:
        raise UnsafePathError(exc.message, UNSAFE_PATH_HINT) from None


UNSAFE_PATH_HINT = (
    "write the report to a path without symbolic links below the current folder, or remove the "
    "link (in CI, the pull request may have committed it)"
)


def _print_file_errors(errors: Sequence[Any], redact: Redactor) -> None:
    for e in errors:
        where = f"{e.file}:{e.line}" if e.line else e.file
        print(redact(f"{where}: {'error' if e.fatal else 'warning'}: {e.message}"), file=sys.stderr)


def _read_stdin(max_bytes: int) -> bytes:
    """The draft on standard input; one byte more than `max_bytes` at most, so that reading it
    as a file reports it as too large instead of reading on."""
    stream = sys.stdin
    if stream is None:
        raise ConfigError(
            "`-` reads standard input, but there is none", "pipe the draft in: … | citecheck check -"
        )
    if stream.isatty():
        print("citecheck: reading Markdown from standard input (end it with Ctrl-D)", file=sys.stderr)
    return stream.buffer.read(max_bytes + 1)


def _stdin_name(args: argparse.Namespace) -> str:
    name = args.stdin_name.strip()
    if not name:
        raise ConfigError("--stdin-name is empty", "name the draft, e.g. --stdin-name draft.md", code="usage")
    return name


def cmd_extract(args: argparse.Namespace, redact: Redactor) -> int:
    from citecheck.extract.document import extract_file, render_text
    from citecheck.select import find_markdown_files

    max_bytes = args.max_file_bytes or Settings().max_file_bytes
    from_stdin = Path(STDIN) in args.paths
    files, errors = find_markdown_files([p for p in args.paths if p != Path(STDIN)])
    docs = [extract_file(f, max_bytes=max_bytes) for f in files]
    if from_stdin:
        with draft_file(_read_stdin(max_bytes), _stdin_name(args)) as draft:
            docs.append(extract_file(Path(draft.path), display=draft.display, max_bytes=max_bytes))
    all_errors = list(errors) + [e for d in docs for e in d.errors]
    _print_file_errors(all_errors, redact)
    readable = [d for d in docs if not any(e.fatal for e in d.errors)]
    if not readable:
        raise ConfigError("no Markdown file could be read", "check the paths you gave", code="no-input")
    skipped = [s for d in docs for s in d.skipped] if args.skipped else []
    if args.format == "json":
        payload = {
            "claims": [c.model_dump(mode="json") for d in docs for c in d.claims],
            "errors": [e.model_dump(mode="json") for e in all_errors],
        }
        if args.skipped:
            payload["skipped"] = [s.model_dump(mode="json") for s in skipped]
        _emit(json.dumps(redact.data(payload), indent=2, ensure_ascii=False), args.output)
    else:
        lines = [
            f"{s.file}:{s.line}  skipped ({s.rule}{', cited' if s.cited else ''})  {s.text}" for s in skipped
        ]
        _emit(redact(render_text(docs) + "".join(f"{line}\n" for line in lines)), args.output)
    return ExitCode.PASSED


def _write_reports(report: Any, args: argparse.Namespace, redact: Redactor) -> None:
    from citecheck.output import FORMATS
    from citecheck.output.common import color_allowed

    color = args.output is None and color_allowed(sys.stdout, os.environ)
    wanted = [(FORMATS[args.format].render(report, redact, color=color), args.output)]
    for name, fmt in FORMATS.items():
        path = getattr(args, f"{name}_file", None)
        if path:
            wanted.append((fmt.render(report, redact), path))
    refused: list[str] = []
    for text, path in wanted:
        try:
            _emit(text, path)
        except UnsafePathError as exc:  # the other files are still written
            refused.append(exc.message)
    if refused:
        raise UnsafePathError("; ".join(refused), UNSAFE_PATH_HINT)


def cache_environ(settings: Settings, paths: Sequence[str], *, diff: bool) -> dict[str, str]:
    """The run's environment with the cache's secret (`citecheck.cache`, "Origin"), after
    refusing a `--cache-dir` that a change under test could write: inside a tree this run
    checks (`select.checked_trees`), or holding the secret's own file."""
    from citecheck.cache import CACHE_SECRET_ENV, cache_secret, inside, user_secret_file
    from citecheck.select import checked_trees

    environ = dict(os.environ)
    cache_dir = settings.cache_dir
    if cache_dir is None:
        return environ
    for tree in checked_trees(paths, diff=diff):
        if inside(cache_dir, tree):
            raise ConfigError(
                f"--cache-dir {cache_dir} is inside {tree}, which this run checks: a change there could "
                "write cache entries and so decide its own claims",
                "keep the cache outside the repository, e.g. --cache-dir ~/.cache/citecheck",
            )
    secret_file = None if environ.get(CACHE_SECRET_ENV, "").strip() else user_secret_file(environ)
    if secret_file is not None and inside(secret_file, cache_dir):
        raise ConfigError(
            f"--cache-dir {cache_dir} holds the file of the cache's secret, {secret_file}",
            "choose a folder outside it, e.g. --cache-dir ~/.cache/citecheck",
        )
    try:
        secret = cache_secret(environ, secret_file)
    except OSError as exc:
        raise ConfigError(
            f"cannot read or make the cache's secret {secret_file}: {exc}",
            f"make its folder writable, or set {CACHE_SECRET_ENV}",
        ) from None
    if secret is not None:
        environ[CACHE_SECRET_ENV] = secret
    return environ


def cmd_check(args: argparse.Namespace, redact: Redactor) -> int:
    from citecheck.pipeline import check
    from citecheck.select import select_local
    from citecheck.terminal import progress_display

    settings = settings_from_args(args)
    judge_off_reason = ""
    if args.judge_optional:
        settings, judge_off_reason = _judge_if_key(settings)
    paths = args.paths or ["."]
    from_stdin = STDIN in paths
    git_flag = "--diff" if args.diff else "--changed" if args.changed else None
    if from_stdin and git_flag:
        raise ConfigError(
            f"{git_flag} cannot check a draft from standard input", "give file paths", code="usage"
        )
    others = [p for p in paths if p != STDIN]
    if args.yes and not args.fix:
        raise ConfigError("--yes only goes with --fix", "add --fix, or leave --yes out", code="usage")
    environ = cache_environ(settings, others, diff=bool(args.diff or args.changed))
    files, errors = (
        select_local(others, settings, diff_ref=args.diff, changed=args.changed) if others else ([], [])
    )
    local = {f.display: Path(f.path) for f in files}  # the files --fix may write (not a draft on stdin)
    _print_file_errors(errors, redact)
    if not files and errors and not from_stdin:
        what = f"the paths and the git base ({git_flag}) you gave" if git_flag else "the paths you gave"
        raise ConfigError("no Markdown file could be selected", f"check {what}", code="no-input")
    root = checkout_root(args.root)
    with contextlib.ExitStack() as stack:
        if from_stdin:
            stdin = _read_stdin(settings.max_file_bytes)
            draft = stack.enter_context(draft_file(stdin, _stdin_name(args)))
            if args.root is not None:  # its internal links are followed as the named file's
                draft = draft.model_copy(update={"place": draft.display})
            files.append(draft)
        # The bar (or lines) ends with the run, before anything else is printed.
        progress = stack.enter_context(progress_display(args.progress, sys.stderr, os.environ))
        report = check(
            settings,
            files,
            environ=environ,
            redact=redact,
            judge_off_reason=judge_off_reason,
            progress=progress,
            root=root,
        )
    # Imported once the run is done: the run's first step starts an extraction worker,
    # whose imports overlap everything imported after it.
    from citecheck.output.report import with_errors
    from citecheck.policy import exit_code

    _print_file_errors(report.errors, redact)
    report = with_errors(report, errors)
    _write_reports(report, args, redact)
    if args.fix:
        apply_fixes(report, local, redact, ask=not args.yes)
    return exit_code(report)


def checkout_root(given: Path | None) -> Path:
    """The checkout internal links are followed in: `--root`, else the git working tree of the
    current folder (the nearest folder up with a `.git`), else the current folder."""
    if given is not None:
        if not given.is_dir():
            raise ConfigError(f"--root {given}: not a folder", "name the checkout's folder", code="usage")
        return given.resolve()
    here = Path.cwd().resolve()
    return next((d for d in (here, *here.parents) if (d / ".git").exists()), here)


def _judge_if_key(settings: Settings) -> tuple[Settings, str]:
    """`--judge-optional`: the settings with the judge off when no API key is set for it, and the
    reason the claims that needed it give ("" with a key)."""
    from citecheck.judge.resolve import judge_off, missing_key

    if missing_key(settings, os.environ) is None:
        return settings, ""
    print("citecheck: note: no API key set: the judge is off (--judge-optional)", file=sys.stderr)
    return judge_off(settings), JUDGE_SKIPPED_NO_KEY


def apply_fixes(report: Any, paths: dict[str, Path], redact: Redactor, *, ask: bool) -> int:
    """`check --fix`: each file's fixes (`citecheck.output.fixes`) shown as a diff on standard
    error, then written, once the user says yes (`ask`; without a terminal to ask on, nothing is
    written). The exit code stays the check's: the report is of the files as they were checked.
    Returns how many fixes were written."""
    from citecheck.output.common import strip_invisible
    from citecheck.output.fixes import FileFix, by_file, fix_text

    planned: list[tuple[Path, FileFix]] = []
    for name, suggestions in by_file(report).items():
        path = paths.get(name)
        try:
            text = path.read_bytes().decode("utf-8") if path is not None else None
        except (OSError, UnicodeDecodeError):
            text = None
        if path is None or text is None:
            print(f"citecheck: --fix: {name} not fixed: it cannot be read back", file=sys.stderr)
            continue
        fixed = fix_text(name, text, suggestions)
        for s in fixed.skipped:
            print(
                f"citecheck: --fix: {name}:{s.line}: not applied: the line does not read as the report "
                "has it (the file changed since, or the report redacted a secret in it), or another "
                "fix overlaps it",
                file=sys.stderr,
            )
        if fixed.applied:
            planned.append((path, fixed))
    count = sum(len(f.applied) for _, f in planned)
    if not planned:
        print("citecheck: --fix: no suggested change to apply", file=sys.stderr)
        return 0
    # The file's own lines, shown on a terminal: no escape sequence or bidi control of theirs.
    sys.stderr.write(strip_invisible(redact("".join(f.diff() for _, f in planned))))
    files = f"{len(planned)} file{'s' if len(planned) != 1 else ''}"
    what = f"{count} change{'s' if count != 1 else ''} to {files}"
    if ask:
        if sys.stdin is None or not sys.stdin.isatty():
            print(f"citecheck: --fix: {what} not applied: no terminal to ask on (add --yes)", file=sys.stderr)
            return 0
        sys.stderr.write(f"Apply {what}? [y/N] ")
        sys.stderr.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            print("citecheck: --fix: nothing applied", file=sys.stderr)
            return 0
    for path, fixed in planned:
        path.write_bytes(fixed.after.encode("utf-8"))
    print(f"citecheck: --fix: applied {what}", file=sys.stderr)
    return count


def cmd_merge(args: argparse.Namespace, redact: Redactor) -> int:
    from citecheck.output.report import merge_reports, read_report
    from citecheck.policy import exit_code

    reports = [read_report(path) for path in args.reports]
    fail_on = Settings(fail_on=args.fail_on).fail_on if args.fail_on else reports[0].fail_on
    merged = merge_reports(reports, fail_on)
    _write_reports(merged, args, redact)
    return exit_code(merged)


def cmd_demo(args: argparse.Namespace, redact: Redactor) -> int:
    from citecheck.demo import run_demo
    from citecheck.policy import exit_code

    report = run_demo(redact)
    _write_reports(report, args, redact)
    code = exit_code(report)
    print(
        f"\ndemo finished: `citecheck check` would exit {code} on this document "
        f"({'some claims failed, as the example intends' if code else 'every claim passed'}); "
        "the demo itself exits 0.",
        file=sys.stderr,
    )
    return ExitCode.PASSED


def cmd_eval(args: argparse.Namespace, redact: Redactor) -> int:
    from citecheck.evaluate import (
        check_thresholds,
        failure_error,
        render_json,
        render_markdown,
        run_eval,
        with_gate,
    )

    check_thresholds(args.max_false_failures, args.min_catch_rate)
    settings = settings_from_args(args)
    report = run_eval(
        settings,
        os.environ,
        data=args.data or [],
        bundled=args.bundled,
        models=args.models or [None],
        judge_only=args.judge_only,
        limit=args.limit,
    )
    report = with_gate(
        report, max_false_failure_rate=args.max_false_failures, min_catch_rate=args.min_catch_rate
    )
    report = redact.model(report)  # the judge's rationales and errors, as in a check's report
    _print_file_errors(report.errors, redact)
    _emit(render_json(report) if args.format == "json" else render_markdown(report), args.output)
    failure = failure_error(report)
    if failure is not None:
        raise failure
    for missed in report.gate_failures:
        print(f"citecheck eval: gate missed: {missed}", file=sys.stderr)
    return ExitCode.FAILED if report.gate_failures else ExitCode.PASSED


def cmd_mcp(args: argparse.Namespace, redact: Redactor) -> int:
    from citecheck.mcp.server import serve

    serve(os.environ, redact)
    return ExitCode.PASSED


COMMANDS = {
    "extract": cmd_extract,
    "check": cmd_check,
    "merge": cmd_merge,
    "demo": cmd_demo,
    "eval": cmd_eval,
    "mcp": cmd_mcp,
}


def _asks_for_json(argv: Sequence[str]) -> bool:
    """Whether a command line argparse could not parse asked for `--format json` (as argparse
    reads it: `--format json`, `--format=json`, or a prefix such as `--form json`)."""
    for i, arg in enumerate(argv):
        option, eq, value = arg.partition("=")
        given = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
        if len(option) > 2 and "--format".startswith(option) and given == "json":
            return True
    return False


def _print_json_error(code: str, message: str, recovery: Sequence[str]) -> None:
    from citecheck.mcp.schema import error_document

    sys.stdout.write(json.dumps(error_document(code, message, recovery), indent=2, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = build_parser().parse_args(argv)
    except UsageExit as exc:
        if _asks_for_json(argv):
            _print_json_error(USAGE_ERROR, exc.message, [f"see `{exc.prog} --help`"])
        return ExitCode.ERROR
    as_json = getattr(args, "format", None) == "json"
    # The run's one redactor: every report, error text and line on standard error.
    redact = run_redactor(os.environ)
    try:
        return COMMANDS[args.command](args, redact)
    except CitecheckError as exc:
        message, hint = redact(exc.message), redact(exc.hint)
        print(f"citecheck: error [{exc.code}]: {message}", file=sys.stderr)
        if hint:
            print(f"  what to do: {hint}", file=sys.stderr)
        if as_json:
            _print_json_error(exc.code, message, [hint] if hint else [])
        return exc.exit_code
    except KeyboardInterrupt:
        if as_json:
            _print_json_error(INTERRUPTED, "interrupted", ["run the command again"])
        return ExitCode.ERROR
    except Exception as exc:  # an unexpected crash must never read as exit 1 ("claims failed")
        # An SDK's exception text may quote a request, key and all: redacted like every output.
        sys.stderr.write(redact(traceback.format_exc()))
        print(
            "citecheck: internal error (exit 2); please report it with the traceback above", file=sys.stderr
        )
        if as_json:
            _print_json_error(
                INTERNAL_ERROR,
                redact(f"internal error: {type(exc).__name__}: {exc}"),
                ["please report it with the traceback printed on standard error"],
            )
        return ExitCode.ERROR


if __name__ == "__main__":
    sys.exit(main())
