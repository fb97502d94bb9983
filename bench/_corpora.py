"""Labelled claims with the page they cite, from every public fact-checking set the benches read
(not a bench; `bench/numbers.py` and `bench/contradictions.py` share it).

Each set gives `Labelled` rows: a claim, the page it is checked against (the set's evidence
sentences, one a line, as extracted page text has one paragraph a line), the gold sentences
that support it where the set marks them, and its label folded to supported / refuted /
neither. Where each set is looked for:

- WiCE dev (`wice/claims_dev.jsonl`) and Check-COVID (`check_covid/`): the evaluation data
  (`bench._data.eval_file`: `../shared/eval` or CITECHECK_EVAL_DIR; `--quick` falls back to
  `tests/data/eval_sample`);
- the sets fetched beside it, in the folders listed in CITECHECK_CORPORA (separated by `:`),
  each under the path its repository gives it: WiCE test (ryokamoi/wice,
  `data/entailment_retrieval/claim/test.jsonl`, kept as `wice/claims_test.jsonl`), COVID-Fact
  (asaakyan/covidfact, `src/asaakyan+covidfact/COVIDFACT_dataset.jsonl`: claims of r/COVID19
  posts and the sentences of the linked article that support or refute them) and CLIMATE-FEVER
  (tdiggelm/climate-fever-dataset, `src/tdiggelm+climate-fever-dataset/dataset/
  climate-fever.jsonl`: claims with five Wikipedia sentences, each labelled). A set not found
  is left out, and the benches say so. FEVER and HoVer name their Wikipedia sentences without
  their text, so they give no page.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench._data import eval_file, read_jsonl

SUPPORTED, REFUTED, NEITHER = "supported", "refuted", "neither"


@dataclass(frozen=True)
class Labelled:
    """A claim, the page it cites (its sentences) and its label."""

    corpus: str
    claim: str
    page: tuple[str, ...]  # the page's sentences, in order
    gold: tuple[str, ...]  # the sentences the set marks as supporting it (may be empty)
    label: str  # SUPPORTED, REFUTED or NEITHER
    partial: bool = False  # WiCE's "partially supported" (a REFUTED row)

    @property
    def page_text(self) -> str:
        return "\n".join(self.page)


def _extra(relative: str) -> Path | None:
    """The first folder of CITECHECK_CORPORA that holds `relative`."""
    for folder in filter(None, os.environ.get("CITECHECK_CORPORA", "").split(os.pathsep)):
        if (path := Path(folder) / relative).exists():
            return path
    return None


def _wice(path: Path, name: str, limit: int | None) -> list[Labelled]:
    labels = {"supported": SUPPORTED, "partially_supported": REFUTED, "not_supported": REFUTED}
    out = []
    for r in read_jsonl(path, limit):
        page = tuple(r["evidence"])
        gold = tuple(dict.fromkeys(page[i] for group in r["supporting_sentences"] for i in group))
        out.append(
            Labelled(name, r["claim"], page, gold, labels[r["label"]], r["label"] == "partially_supported")
        )
    return out


def wice_dev(quick: bool, limit: int | None = None) -> list[Labelled]:
    return _wice(eval_file("wice/claims_dev.jsonl", quick), "WiCE dev", limit)


def wice_test(quick: bool, limit: int | None = None) -> list[Labelled]:
    path = _extra("wice/claims_test.jsonl")
    return _wice(path, "WiCE test", limit) if path else []


def check_covid(quick: bool, limit: int | None = None) -> list[Labelled]:
    corpus = {r["cord_id"]: r for r in read_jsonl(eval_file("check_covid/corpus.json", quick))}
    labels = {"SUPPORT": SUPPORTED, "REFUTE": REFUTED, "NOTENOUGHINFO": NEITHER}
    out = []
    # JSON lines, despite the name
    for c in read_jsonl(eval_file("check_covid/Check-COVID_all.json", quick), limit):
        if c["cord_id"] not in corpus:
            continue
        page = tuple(corpus[c["cord_id"]]["abstract"])
        indices = [e["sent_index"] for e in c.get("evidence_set") or []]
        gold = tuple(page[i] for i in indices if i < len(page))
        out.append(Labelled("Check-COVID", c["claim"], page, gold, labels[c["label"]]))
    return out


def covidfact(quick: bool, limit: int | None = None) -> list[Labelled]:
    path = _extra("src/asaakyan+covidfact/COVIDFACT_dataset.jsonl")
    if path is None:
        return []
    labels = {"SUPPORTED": SUPPORTED, "REFUTED": REFUTED}
    out = []
    for r in read_jsonl(path, limit):
        page = tuple(r["evidence"])
        out.append(Labelled("COVID-Fact", r["claim"], page, page, labels[r["label"]]))
    return out


def climate_fever(quick: bool, limit: int | None = None) -> list[Labelled]:
    path = _extra("src/tdiggelm+climate-fever-dataset/dataset/climate-fever.jsonl")
    if path is None:
        return []
    labels = {"SUPPORTS": SUPPORTED, "REFUTES": REFUTED}
    out = []
    for r in read_jsonl(path, limit):
        page = tuple(e["evidence"] for e in r["evidences"])
        gold = tuple(e["evidence"] for e in r["evidences"] if e["evidence_label"] == "SUPPORTS")
        out.append(Labelled("CLIMATE-FEVER", r["claim"], page, gold, labels.get(r["claim_label"], NEITHER)))
    return out


# Every set, in the order the benches print them.
SETS: dict[str, Callable[[bool, int | None], list[Labelled]]] = {
    "WiCE dev": wice_dev,
    "Check-COVID": check_covid,
    "WiCE test": wice_test,
    "COVID-Fact": covidfact,
    "CLIMATE-FEVER": climate_fever,
}
