"""Cited sentences kept by extraction: on public claim corpora, each claim written as one
sentence with one link, what share does the extractor keep as a claim carrying that link?

A dropped cited sentence is the worst thing a required check can do: the pull request goes
green on a claim nobody checked (issue 31). Every claim of every corpus below asserts
something and cites its source, so each one the extractor drops is a miss.

Each claim becomes a tiny Markdown document, `claim.md`, in each of four citation styles
(reported apart), after normalising it (whitespace collapsed, a final full stop added when it
ends without one):
- paren:    `CLAIM ([source](URL)).`
- trailing: `CLAIM [source](URL).`
- inline:   `[First Words](URL) rest of the claim.` (the link on the first word and the
            capitalised words after it, three at most: the subject's name)
- footnote: `CLAIM.[^1]` and, after a blank line, `[^1]: URL`
and goes through `citecheck.extract.document.extract_text`. A claim is kept when an extracted
claim starts on its line and carries a citation of that URL (in the canonical form the
resolver gives it: a PubMed link as https://pubmed.ncbi.nlm.nih.gov/ID/). A drop's reason is
the named skip rule that set the sentence aside (`ExtractedDocument.skipped`), else "not
extracted";
a sentence kept with another URL says so ("kept, its URL cut to ...", "kept, citing ...
instead"), and one whose line kept only another sentence too. Its form (an "X is a Y"
definition, a short inline sentence, a question...) is a rough grouping made here, by pattern,
to read the drops by.

Corpora (JSONL, one `{"id", "claim", "url", "corpus"}` a line; `--prepare` writes them):
- wice: WiCE dev (Kamoi et al., EMNLP 2023; github ryokamoi/wice), read from
  ../shared/eval/wice/claims_dev.jsonl (349 Wikipedia sentences that cite a web page); URL:
  the Wikipedia article the sentence comes from. Annotations ODC-BY, text CC BY-SA.
- check_covid: Check-COVID (Wang et al., ACL Findings 2023; github posuer/Check-COVID, MIT),
  read from ../shared/eval/check_covid/Check-COVID_all.json (1,504 rows, 1,006 distinct claims
  about a CORD-19 paper); the data names no DOI, so the URL is a placeholder DOI under
  Crossref's test prefix, https://doi.org/10.5555/cord19.CORD_ID.
- fever: FEVER 1.0 paper_dev (Thorne et al., NAACL 2018; fever.ai), the official
  paper_dev.jsonl as committed in github zixianma/interactive-chains at
  b782dd03efb68720644c889e3d7dded3b5bf5845, data/paper_dev.jsonl (9,999 claims: 3,333 each
  SUPPORTS, REFUTES, NOT ENOUGH INFO); CC BY-SA 3.0 (FEVER's data licence). Atomic claims
  about Wikipedia pages, many "X is a Y"; URL: the page of the first evidence, for a claim
  without evidence the article of its first words.
- hover: HoVer dev (Jiang et al., Findings of EMNLP 2020), github hover-nlp/hover at
  39b84697f196308f398a251a7aea9b82ae0f0562, data/hover/hover_dev_release_v1.1.json (4,000
  claims, repository MIT, written over Wikipedia); URL: the article of the first supporting
  fact.
- climate_fever: CLIMATE-FEVER (Diggelmann et al., 2020), github tdiggelm/climate-fever-dataset
  at 03de61617b10a5c1935f8e08bb0e8ac1ee775356, dataset/climate-fever.jsonl (1,535 real-world
  claims); URL: the Wikipedia article of the first evidence that supports or refutes the claim
  (else the first). No licence is stated: not redistributed, no sample.
- covidfact: COVID-Fact (Saakyan et al., ACL 2021), github asaakyan/covidfact at
  ceeb613cde5a6c19dea4f2c165654e510ff52b10, COVIDFACT_dataset.jsonl (4,086 rows: real claims
  from r/COVID19 post titles and their counter-claims); URL: `gold_source`, the post's own
  link. No licence is stated: not redistributed, no sample.
Within a corpus a claim is counted once (the first of its identical normalised texts).

Usage, from the repository root:
  python bench/cited.py [--quick] [-v] [--json OUT] [--corpus NAME=PATH ...] [--style S ...]
  python bench/cited.py --prepare NAME SRC OUT.jsonl
A full run reads wice and check_covid from ../shared/eval (or CITECHECK_EVAL_DIR), and each
other corpus from `--corpus NAME=PATH` or CITECHECK_CORPORA_DIR/NAME.jsonl (a corpus not found
is listed as absent). `--prepare` converts a source file (or the repository checkout that
holds it) into that JSONL; e.g. `git -C MIRROR show HEAD:dataset/climate-fever.jsonl >
/tmp/cf.jsonl && python bench/cited.py --prepare climate_fever /tmp/cf.jsonl
$CITECHECK_CORPORA_DIR/climate_fever.jsonl`. `--quick` (CI, seconds) runs on the samples in
tests/data/cited_sample/ (at most 60 claims of each corpus whose licence allows copying; see
the NOTICE there) and needs nothing outside the repository. `-v` lists every drop with its
reason; `--json OUT` writes the figures and the drops. It prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import quote

# This checkout's citecheck, unless PYTHONPATH names another (a before figure:
# `PYTHONPATH=<old checkout> python bench/cited.py`); bench/ itself is this checkout's.
_HERE = str(Path(__file__).resolve().parent.parent)
sys.path.insert(0, _HERE) if not os.environ.get("PYTHONPATH") else sys.path.append(_HERE)

from bench._data import ROOT, add_quick, eval_dir, read_jsonl  # noqa: E402

# citecheck's own modules, all here: their paths may move in a restructure
from citecheck.extract.citations import web_url  # noqa: E402
from citecheck.extract.document import extract_text  # noqa: E402
from citecheck.extract.urls import trim_url  # noqa: E402

SAMPLE_DIR = ROOT / "tests" / "data" / "cited_sample"
STYLES = ("paren", "trailing", "inline", "footnote")
FILE = "claim.md"
INLINE_WORDS = 3

# --- normalising and writing a claim -----------------------------------------------------------

_CLOSERS = "\"'”’)]"
_ENDS = re.compile(r"[.!?…][" + re.escape(_CLOSERS) + r"]*$")


def normalise(claim: str) -> str:
    """One line, stripped, ending in a full stop unless it already ends a sentence."""
    text = " ".join(claim.split())
    return text if not text or _ENDS.search(text) else text + "."


def _stem(text: str) -> tuple[str, str]:
    """The claim without its final full stop, and the stop ("" when it ends otherwise: a
    question or exclamation mark, or a stop inside quotes stays where the author put it)."""
    return (text[:-1], ".") if text.endswith(".") and not text.endswith("..") else (text, "")


def _inline_split(text: str) -> tuple[str, str]:
    """The words the inline style links (the first and the capitalised words after it, three
    at most, never all of a longer claim) and the rest."""
    words = text.split(" ")
    n = 1
    while n < min(INLINE_WORDS, len(words) - 1) and words[n][:1].isupper():
        n += 1
    return " ".join(words[:n]), " ".join(words[n:])


def _inline(text: str, url: str) -> str:
    head, rest = _inline_split(text)
    head, stop = _stem(head) if not rest else (head, "")
    return f"[{head}]({url}){stop}" + (f" {rest}" if rest else "")


def document(claim: str, url: str, style: str) -> str:
    """The Markdown of one claim citing `url` in `style`; the claim is on line 1."""
    text = normalise(claim)
    stem, stop = _stem(text)
    if style == "paren":
        return f"{stem} ([source]({url})){stop}\n"
    if style == "trailing":
        return f"{stem} [source]({url}){stop}\n"
    if style == "inline":
        return _inline(text, url) + "\n"
    if style == "footnote":
        return f"{text}[^1]\n\n[^1]: {url}\n"
    raise ValueError(f"unknown style {style!r}")


# --- measuring -------------------------------------------------------------------------------


@dataclass
class Drop:
    corpus: str
    style: str
    id: str
    claim: str
    url: str
    reason: str
    form: str


def _same_url(cited: str | None, given: str, style: str) -> bool:
    """Whether a citation's URL is the link's, once the resolver has made it canonical (a
    PubMed link is cited as https://pubmed.ncbi.nlm.nih.gov/ID/). A bare URL in a footnote
    loses the full stop it ends with ("…/wiki/Juventus_F.C."), as GitHub's autolinks drop it:
    the link a reader follows."""
    if cited is None:
        return False
    wanted = {given, trim_url(given)} if style == "footnote" else {given}
    return any(cited.rstrip("/").lower() == (web_url(w) or w).rstrip("/").lower() for w in wanted)


def check(row: dict, style: str) -> str | None:
    """None when the claim is kept, else why not: the skip rules that set its sentences aside
    (`ExtractedDocument.skipped`), or what became of its link."""
    doc = extract_text(document(row["claim"], row["url"], style), FILE)
    on_line = [c for c in doc.claims if c.line == 1]
    if any(_same_url(cit.url, row["url"], style) for c in on_line for cit in c.citations):
        return None
    if doc.errors:
        return "error: " + "; ".join(e.message for e in doc.errors)
    skipped = [s.rule for s in getattr(doc, "skipped", ()) if s.line == 1]  # (a version before the trace)
    if skipped:
        return ", ".join(dict.fromkeys(skipped))
    cited = sorted({cit.url or cit.raw for c in on_line for cit in c.citations})
    cut = [u for u in cited if row["url"].startswith(u)]
    if cut:
        return f"kept, its URL cut to {cut[0]}"
    if cited:
        return f"kept, citing {', '.join(cited)} instead"
    if on_line:
        return "not extracted, another sentence of the line kept without the link"
    return "not extracted"


# A rough grouping of the drops to read them by; first match wins.
_COPULA = r"(?:is|are|was|were)(?:\s+(?:not|also|only|just|still|once|never))?"
_SUBJECT = r"^[^,;:]{1,80}?\s"


_TITLE_WORDS = re.compile(
    r"\s(?:To|Be|Is|Are|Was|Of|In|For|On|And|With|From|Over|About|Into|By|As|Has|Have|Than)\s"
)


def _title_case(claim: str) -> bool:
    """A headline in Title Case: a short word capitalised inside it ("... Appears To Be ...")."""
    return _TITLE_WORDS.search(claim) is not None


_SENTENCE_END = re.compile(r"(\S+)[.?][\"'”’)]*\s+[A-Z\"“]")
_ABBREVIATIONS = frozenset(
    ["st", "ste", "mr", "mrs", "ms", "dr", "jr", "sr", "co", "corp", "inc", "ltd", "vs", "no", "mt", "ft"]
)


def _several_sentences(claim: str) -> bool:
    """A full stop after a word that is no initial or abbreviation, then a capital."""
    for m in _SENTENCE_END.finditer(claim):
        word = m.group(1).strip("\"'“”‘’(")
        if len(word) > 1 and "." not in word and word.lower() not in _ABBREVIATIONS:
            return True
    return False


def _matches(pattern: str, flags: int = 0) -> Callable[[str], bool]:
    return re.compile(pattern, flags).search  # type: ignore[return-value]


FORMS: tuple[tuple[str, Callable[[str], object]], ...] = (
    ("question", _matches(r"\?[\"'”’)]*$")),
    ("several sentences", _several_sentences),
    ("starts in lower case", _matches(r"^[\W_]*[a-z]")),
    ("'X is a Y' definition", _matches(rf"{_SUBJECT}{_COPULA}\s+(?:a|an|one)\b", re.I)),
    ("'X is the Y' identity", _matches(rf"{_SUBJECT}{_COPULA}\s+the\b", re.I)),
    ("Title Case headline", _title_case),
    ("'X is ADJ/NAME' predicate", _matches(rf"{_SUBJECT}{_COPULA}\s+\S", re.I)),
    ("has/had/contains", _matches(rf"{_SUBJECT}(?:has|have|had|contains?|includes?)\b", re.I)),
    ("negation", _matches(r"\b(?:not|never|no|n't|none|nobody)\b", re.I)),
    ("modal", _matches(r"\b(?:should|must|can|could|may|might|will|would)\b")),
)


def form(claim: str, style: str, reason: str) -> str:
    if reason.startswith("kept,"):
        return "sentence kept, with another URL"
    if style == "inline" and len(_inline_split(normalise(claim))[1].split()) < 3:
        return "inline: under three words outside the link"
    return next((name for name, test in FORMS if test(claim)), "other")


@dataclass
class Result:
    corpus: str
    claims: int
    kept: dict[str, int]
    drops: list[Drop]


def measure(corpus: str, rows: list[dict], styles: Iterable[str]) -> Result:
    kept: dict[str, int] = {}
    drops: list[Drop] = []
    for style in styles:
        kept[style] = 0
        for row in rows:
            reason = check(row, style)
            if reason is None:
                kept[style] += 1
            else:
                drops.append(
                    Drop(
                        corpus,
                        style,
                        str(row["id"]),
                        normalise(row["claim"]),
                        row["url"],
                        reason,
                        form(row["claim"], style, reason),
                    )
                )
    return Result(corpus, len(rows), kept, drops)


# --- corpora: converters and where each is found ------------------------------------------------


def _wiki(title: str) -> str:
    return "https://en.wikipedia.org/wiki/" + quote(title.strip().replace(" ", "_"), safe="_(),'!-.:")


def _rows_of(path: Path) -> list[dict]:
    """A JSON list, or JSON lines."""
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


_PTB = {
    "-LRB-": "(",
    "-RRB-": ")",
    "-LSB-": "[",
    "-RSB-": "]",
    "-LCB-": "{",
    "-RCB-": "}",
    "``": '"',
    "''": '"',
}
_SPACE_BEFORE = re.compile(r" (?=[.,;:!?%)\]}]|'s\b|'re\b|'ve\b|'ll\b|'d\b|'m\b|n't\b|' )")
_SPACE_AFTER = re.compile(r"(?<=[(\[{$]) ")


def detokenise(text: str) -> str:
    """A claim as a person writes it, from FEVER's Penn-Treebank tokens (and HoVer's)."""
    words = [_PTB.get(w, w) for w in text.split()]
    out = _SPACE_AFTER.sub("", _SPACE_BEFORE.sub("", " ".join(words)))
    out = re.sub(r"(?<=\d)\. (?=\d)", ".", out)  # "a 241. 26 mi route": a decimal split in two
    return re.sub(r'"\s*([^"]*?)\s*"', r'"\1"', out)


def _first_words(claim: str) -> str:
    head, _ = _inline_split(" ".join(claim.split()))
    return re.sub(r"['’]s$", "", head.strip(".,;:'\""))


def _wice(rows: list[dict]) -> Iterator[tuple[str, str, str]]:
    for r in rows:
        yield r["meta"]["id"], r["claim"], _wiki(r["meta"]["claim_title"])


def _check_covid(rows: list[dict]) -> Iterator[tuple[str, str, str]]:
    for r in rows:
        yield r["id"], r["claim"], f"https://doi.org/10.5555/cord19.{r['cord_id']}"


def _page_title(page: str) -> str:
    """A FEVER page id as its Wikipedia title: 'Soul_Food_-LRB-film-RRB-' -> 'Soul Food (film)'."""
    for token, char in _PTB.items():
        page = page.replace(token, char)
    return page.replace("_", " ")


def _fever(rows: list[dict]) -> Iterator[tuple[str, str, str]]:
    for r in rows:
        pages = [e[2] for group in r["evidence"] for e in group if e[2]]
        title = _page_title(pages[0]) if pages else _first_words(r["claim"])
        yield str(r["id"]), detokenise(r["claim"]), _wiki(title)


def _hover(rows: list[dict]) -> Iterator[tuple[str, str, str]]:
    for r in rows:
        yield r["uid"], detokenise(r["claim"]), _wiki(r["supporting_facts"][0][0])


def _climate_fever(rows: list[dict]) -> Iterator[tuple[str, str, str]]:
    for r in rows:
        evidence = r["evidences"]
        decisive = [e for e in evidence if e["evidence_label"] in ("SUPPORTS", "REFUTES")] or evidence
        yield r["claim_id"], r["claim"], _wiki(decisive[0]["article"])


def _covidfact(rows: list[dict]) -> Iterator[tuple[str, str, str]]:
    for n, r in enumerate(rows):
        yield str(n), detokenise(r["claim"]), r["gold_source"].strip()


@dataclass(frozen=True)
class Corpus:
    convert: Callable[[list[dict]], Iterator[tuple[str, str, str]]]
    files: tuple[str, ...]  # its source files inside the repository checkout (or ../shared/eval)
    shared: str | None = None  # its place under ../shared/eval, when it is there


CORPORA: dict[str, Corpus] = {
    "wice": Corpus(_wice, ("claims_dev.jsonl",), "wice/claims_dev.jsonl"),
    "check_covid": Corpus(_check_covid, ("Check-COVID_all.json",), "check_covid/Check-COVID_all.json"),
    "fever": Corpus(_fever, ("data/paper_dev.jsonl",)),
    "hover": Corpus(_hover, ("data/hover/hover_dev_release_v1.1.json",)),
    "climate_fever": Corpus(_climate_fever, ("dataset/climate-fever.jsonl",)),
    "covidfact": Corpus(_covidfact, ("COVIDFACT_dataset.jsonl",)),
}


def prepare(name: str, source: Path) -> list[dict]:
    """The corpus `name` as bench rows, from its source file or the checkout holding its files;
    distinct normalised claims, the first of each."""
    corpus = CORPORA[name]
    paths = [source / f for f in corpus.files] if source.is_dir() else [source]
    rows: list[dict] = []
    seen: set[str] = set()
    for path in paths:
        for id_, claim, url in corpus.convert(_rows_of(path)):
            text = normalise(claim)
            if text and text not in seen:
                seen.add(text)
                rows.append({"id": id_, "claim": text, "url": url, "corpus": name})
    return rows


def write_jsonl(rows: list[dict], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def locate(quick: bool, given: dict[str, Path]) -> dict[str, tuple[Path | None, bool]]:
    """Each corpus's file and whether it still needs converting (a shared source file) or is
    bench rows already; None when it is absent."""
    if quick:
        return {
            n: ((SAMPLE_DIR / f"{n}.jsonl"), False) for n in CORPORA if (SAMPLE_DIR / f"{n}.jsonl").exists()
        }
    folder = os.environ.get("CITECHECK_CORPORA_DIR")
    found: dict[str, tuple[Path | None, bool]] = {}
    for name, corpus in CORPORA.items():
        if name in given:
            found[name] = (given[name], False)
        elif corpus.shared and (eval_dir() / corpus.shared).exists():
            found[name] = (eval_dir() / corpus.shared, True)
        elif folder and (Path(folder) / f"{name}.jsonl").exists():
            found[name] = (Path(folder) / f"{name}.jsonl", False)
        else:
            found[name] = (None, False)
    return found


# --- report ------------------------------------------------------------------------------------


def _revision() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# The URLs a reason names, left out when reasons are counted.
_REASON_DETAIL = re.compile(r"(?<=cut) to .*|(?<=citing) .* instead$")


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} {100 * n / d:.1f}%" if d else "-"


def report(results: list[Result], absent: list[str], styles: list[str], verbose: bool) -> None:
    print(f"cited sentences kept by extraction, citecheck at {_revision()}")
    print(f"{'corpus':<14}{'claims':>7}" + "".join(f"  {s:<19}" for s in styles))
    for r in results:
        print(f"{r.corpus:<14}{r.claims:>7}" + "".join(f"  {_pct(r.kept[s], r.claims):<19}" for s in styles))
    for name in absent:
        shared = CORPORA[name].shared
        where = f"{eval_dir() / shared}, " if shared else ""
        print(f"{name:<14}{'absent':>7}  ({where}--corpus {name}=PATH or CITECHECK_CORPORA_DIR/{name}.jsonl)")
    drops = [d for r in results for d in r.drops]
    if not drops:
        return
    print("\ndrops by form (" + " / ".join(styles) + ")")
    for r in results:
        counts = Counter((d.form, d.style) for d in r.drops)
        for name in sorted({d.form for d in r.drops}, key=lambda f: -sum(counts[f, s] for s in styles)):
            print(f"  {r.corpus:<14}{name:<45}" + " / ".join(str(counts[name, s]) for s in styles))
    print("drops by reason (claim x style)")
    for reason, n in Counter(_REASON_DETAIL.sub("", d.reason) for d in drops).most_common():
        print(f"  {n:>6}  {reason}")
    if verbose:
        print("\nevery drop: corpus, style, id, form, reason, claim")
        for d in drops:
            print(f"  {d.corpus}\t{d.style}\t{d.id}\t{d.form}\t{d.reason}\t{d.claim}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--corpus", action="append", default=[], metavar="NAME=PATH", help="a corpus's bench JSONL"
    )
    ap.add_argument("--style", action="append", choices=STYLES, help="only these styles (default: all)")
    ap.add_argument(
        "--only", action="append", choices=sorted(CORPORA), help="only these corpora (default: all)"
    )
    ap.add_argument("--json", type=Path, metavar="OUT", help="write the figures and every drop here")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every drop with its reason")
    ap.add_argument(
        "--prepare",
        nargs=3,
        metavar=("NAME", "SRC", "OUT"),
        help="convert a source corpus into the bench's JSONL",
    )
    add_quick(ap, "the samples in tests/data/cited_sample")
    args = ap.parse_args()
    if args.prepare:
        name, source, out = args.prepare
        if name not in CORPORA:
            ap.error(f"unknown corpus {name!r}; one of {', '.join(CORPORA)}")
        rows = prepare(name, Path(source))
        write_jsonl(rows, Path(out))
        print(f"{name}: {len(rows)} claims -> {out}")
        return
    given: dict[str, Path] = {}
    for item in args.corpus:
        name, sep, path = item.partition("=")
        if not sep or name not in CORPORA:
            ap.error(f"--corpus wants NAME=PATH with NAME one of {', '.join(CORPORA)}: {item!r}")
        given[name] = Path(path)
    styles = args.style or list(STYLES)
    results: list[Result] = []
    absent: list[str] = []
    for name, (path, raw) in locate(args.quick, given).items():
        if args.only and name not in args.only:
            continue
        if path is None:
            absent.append(name)
            continue
        rows = prepare(name, path) if raw else read_jsonl(path)
        results.append(measure(name, rows, styles))
    report(results, absent, styles, args.verbose)
    if args.json:
        figures = {
            "revision": _revision(),
            "styles": styles,
            "corpora": {r.corpus: {"claims": r.claims, "kept": r.kept} for r in results},
            "absent": absent,
            "drops": [asdict(d) for r in results for d in r.drops],
        }
        args.json.write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
