"""Extraction on real documentation, scored against hand-labelled claims.

Usage: python bench/realdocs.py [SET_DIR ...] [--quick] [--rounds 3] [--json OUT] [--before BEFORE.json] [-v]
       python bench/realdocs.py --time DIR [--rounds 3]   (throughput alone, on any Markdown)
       python bench/realdocs.py --time DIR --one-pass none|parse|extract   (for an instruction counter)

A labelled set is a folder laid out like `../shared/eval/realdocs-dev` (its README gives the
labelling rules): `corpus/OWNER+NAME/original/PATH` (the Markdown files, unchanged),
`judgments.jsonl` (a sample of extracted claims, each judged: `real` Y/N, `citations_ok`
Y/P/N/-, …), `recall.jsonl` (every real claim of some files read in full, with the
`citations` each truly carries) and optionally `truth.jsonl` (the citations a judged claim truly
carries where the judgment says its extracted ones were partly right or wrong; for a read-only
set, `bench/<SET NAME>.truth.jsonl`). By default the
bench scores the development set (`realdocs-dev` in ../shared/eval or CITECHECK_EVAL_DIR) and the
held-out sets `tests/data/realdocs-heldout` to `-heldout27` (labelled from
repositories nobody tuned for; see their READMEs). `--quick` (CI's smoke run): one timing
round; where the development set is absent, the small committed sample `tests/data/realdocs`
instead (a few files of it, with their labels).

What each figure means (the extraction of every corpus file is matched to the labels by file,
line and text: same line, and the same text or one containing the other or a close fuzzy match,
so a claim whose text lost its template markup or raw citation keys still matches):
- precision: of the judged claims still extracted, the share that are real claims (`real` = Y);
  per kind, over the claims that now carry that kind. "labelled, no longer extracted" counts the
  judged claims the extractor dropped (real ones among them are lost claims); "unlabelled" the
  extracted claims no judgment covers, which the figures say nothing about (coverage);
- unsourced precision: of the judged claims now reported unsourced (no citation at all), the
  share that are real and truly cite nothing (`citations_ok` "-");
- citations exactly right: of the real claims whose true citations are known (judged Y with
  `citations_ok` Y or "-", `truth.jsonl`, and every found claim of `recall.jsonl`), the share whose
  resolved URLs are exactly the true ones (site-relative links, notes without a URL and the like
  are no web source: the truth then expects none from them);
- recall: of the real claims of the fully read files, the share extracted (by kind and file);
- template-markup leaks: extracted claims whose text holds template or MDX markup (Hugo
  shortcodes, Liquid, `{{macro}}`s, `:::` admonitions, `{/* */}`, JSX props, kramdown attributes,
  `<placeholder text>`); `-v` lists them. Raw pandoc citations (`[@key]`) left in a claim's text
  are counted apart;
- throughput: citecheck's extraction of the corpus against markdown-it-py's bare CommonMark parse
  of the same files, best of `--rounds` rounds, process CPU time (on a shared machine the figures
  are noisy: compare them within one run).

`--json OUT` writes the figures; `--before BEFORE.json` prints a before column beside this run's
(make it with the old code: `PYTHONPATH=<old checkout> python bench/realdocs.py --json before.json`).
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/realdocs.py`, this file's folder comes first on sys.path, where
# bench/numbers.py would shadow the standard library's `numbers` module (imported by `decimal`).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
_ROOT = Path(__file__).resolve().parent.parent
if not __import__("os").environ.get("PYTHONPATH"):
    sys.path.insert(0, str(_ROOT))  # this checkout's citecheck, unless PYTHONPATH names another

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

from markdown_it import MarkdownIt  # noqa: E402
from rapidfuzz import fuzz  # noqa: E402

from citecheck.extract.citations import web_url  # noqa: E402
from citecheck.extract.document import extract_file  # noqa: E402
from citecheck.models import Claim, ResolveStatus  # noqa: E402

KINDS = ("hyperlinked", "statistic", "quote", "temporal", "comparative")
SAMPLE = _ROOT / "tests" / "data" / "realdocs"
HELD_OUT = [_ROOT / "tests" / "data" / f"realdocs-heldout{n}" for n in ("", *map(str, range(2, 39)))]
SUFFIXES = (".md", ".mdx", ".markdown")

# Template and MDX markup that is not prose; a claim whose text holds one leaked it.
LEAK = re.compile(
    r"\{\{|\}\}|\{%|%\}"  # Hugo shortcodes, Liquid, Go templates, {{macro()}}s
    r"|(?:^|\s):::"  # admonition fences
    r"|\{/\*|\*/\}"  # MDX comments
    r"|\{\*|\*\}"  # MkDocs code includes: {* file.py hl[3] *}
    r"|\b[A-Za-z]+=\{"  # JSX props
    r"|\{:[^}]{0,80}\}|\{#[\w:.-]{1,80}\}|\{ ?\.[A-Za-z][^}]{0,80}\}"  # kramdown / pandoc / attr_list
    r"|:(?:material|fontawesome|octicons|simple)-[a-z0-9-]+:"  # Material for MkDocs icons
    r"|\[![A-Za-z][\w-]*\]"  # a callout's label: "[!NOTE]", "[!info]"
    r"|(?<![\w:/|]):[a-z0-9_+-]{0,39}[a-z][a-z0-9_+-]{0,39}:(?![\w:/`|])"  # emoji shortcodes: ":unicorn:"
    r"|^(?:draft|author|date|title|description): "  # an MDX export's metadata object
    r"|<[a-z][\w-]{0,30}(?: [\w.-]{1,30}){1,8}>"  # "<path to tar.gz>" placeholders
    # MyST / Sphinx / d2lbook roles: {numref}`x`, :cite:`key`
    r"|(?<![\w:]):(?:numref|ref|eqref|eq|label|doc|cite|citet|citep):|\{(?:numref|ref|eq|doc|cite)(?::\w+)?\}"
)


RAW_KEYS = re.compile(r"\[-?@[\w:]")  # raw pandoc citations left in a claim's text
TEX_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\s][^$]*?\$")  # "$$V \in {\text{"h"}}$$": math, not markup


def _eval_dir() -> Path:
    return Path(os.environ.get("CITECHECK_EVAL_DIR") or _ROOT.parent / "shared" / "eval")


def _jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _norm(text: str) -> str:
    return " ".join(text.split())


# --- extraction and matching ------------------------------------------------------------------


def extract_set(corpus: Path) -> dict[str, list[Claim]]:
    """Every Markdown file under `corpus`, extracted, by its path relative to `corpus`."""
    out: dict[str, list[Claim]] = {}
    for path in sorted(p for p in corpus.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES):
        rel = path.relative_to(corpus).as_posix()
        out[rel] = extract_file(path, display=rel, budget_s=None).claims
    return out


def _similarity(a: str, b: str) -> float:
    if a == b:
        return 100.0
    if min(len(a), len(b)) >= 15 and (a in b or b in a):
        return 90.0
    if len(a) >= 25 and len(b) >= 25 and a[:25] == b[:25]:
        return 80.0  # the same sentence, its tail changed (markup, raw keys)
    return fuzz.ratio(a, b)


def match(claims: dict[str, list[Claim]], row: dict, threshold: float = 75.0) -> Claim | None:
    """The extracted claim a labelled row stands for: same file and line, the closest text; or a
    claim starting up to three lines before (merged with the sentence before it) or one line after
    (a label's line one off) that holds the row's text."""
    want = _norm(row["text"])
    best: tuple[float, Claim | None] = (threshold, None)
    for c in claims.get(row["file"], ()):
        if c.line == row["line"]:
            score = _similarity(_norm(c.text), want)
        elif row["line"] - 3 <= c.line < row["line"] and len(want) >= 15 and want in _norm(c.text):
            score = 85.0  # merged with the sentence before it
        elif c.line == row["line"] + 1:
            score = _similarity(_norm(c.text), want) - 5  # a label's line one off
        else:
            continue
        if score >= best[0] and (best[1] is None or score > best[0]):
            best = (score, c)
    return best[1]


def urls(claim: Claim) -> set[str]:
    return {c.url for c in claim.citations if c.resolve_status == ResolveStatus.ok and c.url}


def truth_urls(cited: list[str]) -> set[str]:
    """The web URLs of a label's true citations, made canonical as the extractor makes them:
    `arxiv:ID`, `pmid:N`, `tag:key = URL` forms written out; relative links and notes without a
    URL are no web source."""
    out: set[str] = set()
    for item in cited:
        item = item.strip()
        if item.startswith("unresolved:"):
            continue
        if " = " in item:
            item = item.split(" = ", 1)[1].strip()
        low = item.lower()
        if low.startswith("arxiv:"):
            item = f"https://arxiv.org/abs/{item[6:]}"
        elif low.startswith("pmid:"):
            item = f"https://pubmed.ncbi.nlm.nih.gov/{item[5:]}/"
        elif low.startswith("doi:"):
            item = f"https://doi.org/{item[4:]}"
        url = web_url(item.split(" ", 1)[0]) if not item.startswith(("[", "/", "{")) else None
        if url:
            out.add(url)
    return out


# --- scoring ----------------------------------------------------------------------------------


@dataclass
class Figures:
    name: str
    files: int = 0
    kbytes: float = 0.0
    claims: int = 0
    judged: int = 0
    judged_kept: int = 0
    judged_kept_real: int = 0
    dropped_real: int = 0
    dropped_not_real: int = 0
    unlabelled: int = 0
    per_kind: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind: (real, kept)
    unsourced: tuple[int, int] = (0, 0)  # (right, reported)
    citations: tuple[int, int] = (0, 0)  # (exact, known)
    recall: tuple[int, int] = (0, 0)
    # Issue 31: a sentence that carries a citation and asserts something is never dropped.
    # labelled real claims that carry a web citation in the sentence itself (judgments, cited.jsonl)
    cited_real: tuple[int, int] = (0, 0)
    cited_asserts: tuple[int, int] = (0, 0)  # cited.jsonl: asserting sentences with a web citation
    cited_internal: tuple[int, int] = (0, 0)  # cited.jsonl: asserting, citing only in-site links
    unsourced_recall: tuple[int, int] = (0, 0)  # recall.jsonl's real claims that cite nothing: found
    recall_by_kind: dict[str, tuple[int, int]] = field(default_factory=dict)
    recall_by_file: dict[str, tuple[int, int]] = field(default_factory=dict)
    leaks: int = 0
    raw_keys: int = 0
    bare_s: float = 0.0
    extract_s: float = 0.0
    details: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def as_json(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if k != "details"}
        return d


def score(set_dir: Path, rounds: int) -> Figures:
    corpus = set_dir / "corpus"
    fig = Figures(name=set_dir.name)
    claims = extract_set(corpus)
    fig.files = len(claims)
    fig.kbytes = sum((corpus / f).stat().st_size for f in claims) / 1000
    fig.claims = sum(len(v) for v in claims.values())
    judgments = _jsonl(set_dir / "judgments.jsonl")
    recall_rows = _jsonl(set_dir / "recall.jsonl")
    truth_rows = _jsonl(set_dir / "truth.jsonl") or _jsonl(_ROOT / "bench" / f"{set_dir.name}.truth.jsonl")
    truth = {(t["file"], t["line"], _norm(t["text"])[:60]): t["citations"] for t in truth_rows}
    matched_ids: set[int] = set()
    per_kind: dict[str, list[int]] = {k: [0, 0] for k in KINDS}
    uns_right = uns_all = 0
    cit_rows: dict[tuple[str, int, str], tuple[set[str], Claim]] = {}
    fig.judged = len(judgments)
    for row in judgments:
        c = match(claims, row)
        real = row["real"] == "Y"
        if c is None:
            if real:
                fig.dropped_real += 1
                fig.details["lost (labelled real, no longer extracted)"].append(
                    f"{row['file']}:{row['line']} {row['text'][:120]}"
                )
            else:
                fig.dropped_not_real += 1
            continue
        matched_ids.add(id(c))
        fig.judged_kept += 1
        fig.judged_kept_real += real
        if not real:
            fig.details["kept, labelled not real"].append(f"{row['file']}:{row['line']} {c.text[:120]}")
        for k in c.kinds:
            per_kind[k.value][0] += real
            per_kind[k.value][1] += 1
        cites_nothing = row["citations_ok"] == "-"
        if not c.citations:
            uns_all += 1
            uns_right += real and cites_nothing
            if not (real and cites_nothing):
                fig.details["unsourced, wrongly"].append(f"{row['file']}:{row['line']} {c.text[:120]}")
        if real:
            key = (row["file"], row["line"], _norm(row["text"])[:60])
            if key in truth:
                cit_rows[key] = (truth_urls(truth[key]), c)
            elif row["citations_ok"] == "Y":
                cit_rows[key] = (truth_urls(row["citations"]), c)
            elif cites_nothing:
                cit_rows[key] = (set(), c)
    fig.per_kind = {k: (v[0], v[1]) for k, v in per_kind.items()}
    fig.unsourced = (uns_right, uns_all)
    found = 0
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_file: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in recall_rows:
        c = match(claims, row)
        by_kind[row["kind"]][1] += 1
        by_file[row["file"]][1] += 1
        if c is None:
            fig.details["missed (recall)"].append(f"{row['file']}:{row['line']} {row['text'][:120]}")
            continue
        matched_ids.add(id(c))
        found += 1
        by_kind[row["kind"]][0] += 1
        by_file[row["file"]][0] += 1
        cit_rows[(row["file"], row["line"], _norm(row["text"])[:60])] = (truth_urls(row["citations"]), c)
    fig.recall = (found, len(recall_rows))
    _score_cited(fig, claims, judgments, recall_rows, _jsonl(set_dir / "cited.jsonl"))
    fig.recall_by_kind = {k: (v[0], v[1]) for k, v in sorted(by_kind.items())}
    fig.recall_by_file = {k: (v[0], v[1]) for k, v in sorted(by_file.items())}
    exact = 0
    for (file, line, _), (want, c) in cit_rows.items():
        if urls(c) == want:
            exact += 1
        else:
            got = sorted(urls(c))
            fig.details["citations not exact"].append(
                f"{file}:{line} {c.text[:80]} | got {got} want {sorted(want)}"
            )
    fig.citations = (exact, len(cit_rows))
    for file, cs in claims.items():
        for c in cs:
            if id(c) not in matched_ids:
                fig.unlabelled += 1
            if LEAK.search(TEX_MATH.sub(" ", c.text)):
                fig.leaks += 1
                fig.details["template-markup leaks"].append(f"{file}:{c.line} {c.text[:120]}")
            if RAW_KEYS.search(c.text):
                fig.raw_keys += 1
    if rounds > 0:  # 0: the figures without timing (the tests)
        fig.bare_s, fig.extract_s = throughput(corpus, list(claims), rounds)
    return fig


def _score_cited(
    fig: Figures, claims: dict[str, list[Claim]], judgments: list[dict], recall: list[dict], cited: list[dict]
) -> None:
    """The issue-31 figures: cited real claims and cited assertions kept, unsourced recall."""
    real: dict[tuple[str, int, str], dict] = {}
    for row in judgments:
        if row["real"] == "Y" and truth_urls(row.get("citations") or []):
            real[(row["file"], row["line"], _norm(row["text"])[:60])] = row
    # cited.jsonl lists the sentences that carry a citation themselves; recall.jsonl may give a
    # sentence the link of the one before it (a labelling convention), so it counts under recall
    for row in (r for r in cited if r.get("real") == "Y"):
        if truth_urls(row.get("citations") or []):
            real.setdefault((row["file"], row["line"], _norm(row["text"])[:60]), row)
    kept = 0
    for row in real.values():
        if match(claims, row) is not None:
            kept += 1
        else:
            fig.details["cited real claim lost"].append(f"{row['file']}:{row['line']} {row['text'][:120]}")
    fig.cited_real = (kept, len(real))
    web = [r for r in cited if r["asserts"] == "Y" and truth_urls(r["citations"])]
    internal = [r for r in cited if r["asserts"] == "Y" and not truth_urls(r["citations"])]
    for rows_, attr, what in (
        (web, "cited_asserts", "cited assertion lost"),
        (internal, "cited_internal", ""),
    ):
        found = [r for r in rows_ if match(claims, r) is not None]
        setattr(fig, attr, (len(found), len(rows_)))
        if what:
            for r in rows_:
                if match(claims, r) is None:
                    fig.details[what].append(f"{r['file']}:{r['line']} {r['text'][:120]}")
    uncited = [r for r in recall if not truth_urls(r.get("citations") or [])]
    fig.unsourced_recall = (sum(match(claims, r) is not None for r in uncited), len(uncited))


def throughput(corpus: Path, files: list[str], rounds: int) -> tuple[float, float]:
    """Best-of-`rounds` CPU seconds of the bare parse and of the extraction, interleaved."""
    from citecheck.extract.document import extract_text

    texts = [(f, (corpus / f).read_text(encoding="utf-8")) for f in files]
    md = MarkdownIt("commonmark")
    bare = ext = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _, text in texts:
            md.parse(text)
        bare = min(bare, time.process_time() - start)
        start = time.process_time()
        for name, text in texts:
            extract_text(text, name)
        ext = min(ext, time.process_time() - start)
    return bare, ext


def one_pass(corpus: Path, files: list[str], what: str) -> None:
    """One pass of `what` over the files, after the same imports and reads whatever `what` is."""
    from citecheck.extract.document import extract_text

    texts = [(f, (corpus / f).read_text(encoding="utf-8")) for f in files]
    md = MarkdownIt("commonmark")
    for name, text in texts:
        if what == "parse":
            md.parse(text)
        elif what == "extract":
            extract_text(text, name)


# --- report -----------------------------------------------------------------------------------


def _ratio(pair: tuple[int, int] | list[int]) -> str:
    a, b = pair
    return f"{a}/{b} = {a / b:.2f}" if b else "-"


def rows(fig: dict) -> list[tuple[str, str]]:
    out = [
        ("files, KB", f"{fig['files']}, {fig['kbytes']:.0f}"),
        ("claims extracted", str(fig["claims"])),
        (
            "precision (judged claims still extracted: real)",
            _ratio((fig["judged_kept_real"], fig["judged_kept"])),
        ),
    ]
    for k in KINDS:
        out.append((f"  {k}", _ratio(fig["per_kind"].get(k, (0, 0)))))
    out += [
        (
            "judged, no longer extracted: real (lost) / not real",
            f"{fig['dropped_real']} / {fig['dropped_not_real']}",
        ),
        ("extracted, unlabelled (coverage)", str(fig["unlabelled"])),
        ("unsourced precision (real, truly cite nothing)", _ratio(fig["unsourced"])),
        ("citations exactly right (real claims)", _ratio(fig["citations"])),
        ("recall (fully read files)", _ratio(fig["recall"])),
        ("cited real claims kept (web citations)", _ratio(fig.get("cited_real", (0, 0)))),
        ("cited assertions kept (cited.jsonl, web)", _ratio(fig.get("cited_asserts", (0, 0)))),
        ("cited assertions kept (in-site links only)", _ratio(fig.get("cited_internal", (0, 0)))),
        ("unsourced recall (real claims citing nothing)", _ratio(fig.get("unsourced_recall", (0, 0)))),
        ("template-markup leaks", str(fig["leaks"])),
        ("raw pandoc citations in claim text", str(fig.get("raw_keys", 0))),
    ]
    if fig["extract_s"]:
        out.append(("throughput: extraction / bare parse", f"{fig['bare_s'] / fig['extract_s']:.0%}"))
    return out


def print_table(fig: Figures, before: dict | None) -> None:
    now = rows(fig.as_json())
    then = dict(rows(before)) if before else {}
    width = max(len(label) for label, _ in now) + 2
    print(f"\n## {fig.name}")
    if before:
        print(f"{'':{width}}{'before':>22}  {'after':>22}")
    for label, value in now:
        print(f"{label:{width}}" + (f"{then.get(label, '-'):>22}  " if before else "") + f"{value:>22}")
    print("recall by kind: " + ", ".join(f"{k} {_ratio(v)}" for k, v in fig.recall_by_kind.items()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="*", type=Path, help="labelled set folders (default: dev and held-out)")
    ap.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: one timing round; the committed sample if the data is absent",
    )
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--before", type=Path, help="figures of an earlier run, printed beside these")
    ap.add_argument("-v", "--verbose", action="store_true", help="list lost, wrong and leaking claims")
    ap.add_argument(
        "--time",
        type=Path,
        metavar="DIR",
        help="only the throughput on the Markdown files under DIR (no labels)",
    )
    ap.add_argument(
        "--one-pass",
        choices=("none", "parse", "extract"),
        help="with --time: read the files, then make one pass of the bare parse or the extraction "
        "(or none) and print nothing: for an instruction counter, which repeats where timings do not "
        "(`valgrind --tool=callgrind python bench/realdocs.py --time DIR --one-pass extract`, minus "
        "the count of `--one-pass none`)",
    )
    args = ap.parse_args()
    if args.quick:
        args.rounds = 1
    if args.time:
        files = sorted(
            p.relative_to(args.time).as_posix()
            for p in args.time.rglob("*")
            if p.is_file() and p.suffix.lower() in SUFFIXES
        )
        if args.one_pass:
            one_pass(args.time, files, args.one_pass)
            return
        bare, ext = throughput(args.time, files, max(args.rounds, 1))
        print(
            f"{args.time}: {len(files)} files, bare parse {bare:.3f} s,"
            f" extraction {ext:.3f} s: {bare / ext:.0%}"
        )
        return
    sets = args.sets
    if not sets:
        dev = _eval_dir() / "realdocs-dev"
        sets = [dev if dev.exists() or not args.quick else SAMPLE]
        sets += [d for d in HELD_OUT if d.exists()]
    before = json.loads(args.before.read_text()) if args.before else {}
    out: dict[str, dict] = {}
    for set_dir in sets:
        if not (set_dir / "corpus").exists():
            raise SystemExit(f"{set_dir}: no corpus/ folder (a labelled set is laid out like realdocs-dev)")
        fig = score(set_dir, args.rounds)
        out[fig.name] = fig.as_json()
        print_table(fig, before.get(fig.name))
        if args.verbose:
            for what, items in fig.details.items():
                print(f"\n{what} ({len(items)}):")
                for item in items:
                    print(f"  {item}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
