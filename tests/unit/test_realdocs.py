"""Extraction on real documentation keeps the figures it reached (bench/realdocs.py, issue 15).

The committed sample (tests/data/realdocs: 8 files of realdocs-dev with their labels) always
runs; the whole labelled corpus runs when ../shared/eval/realdocs-dev (or CITECHECK_EVAL_DIR) is
there. A floor is the figure measured when the rules were written, rounded down: a change that
loses real claims, mislabels kinds, misses citations or leaks template markup fails here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.realdocs import Figures, score

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "realdocs"
DEV = Path(os.environ.get("CITECHECK_EVAL_DIR") or ROOT.parent / "shared" / "eval") / "realdocs-dev"


def _rate(pair: tuple[int, int]) -> float:
    return pair[0] / pair[1] if pair[1] else 1.0


def _precision(fig: Figures) -> float:
    return _rate((fig.judged_kept_real, fig.judged_kept))


def test_sample_figures_hold() -> None:
    fig = score(SAMPLE, rounds=0)
    assert fig.files == 8 and fig.judged == 20 and fig.recall[1] == 131
    assert fig.dropped_real == 0, fig.details["lost (labelled real, no longer extracted)"]
    assert _precision(fig) >= 0.90
    assert _rate(fig.recall) >= 0.99, fig.details["missed (recall)"]
    assert _rate(fig.citations) >= 0.98, fig.details["citations not exact"]
    assert _rate(fig.unsourced) >= 0.80
    assert fig.leaks == 0 and fig.raw_keys == 0


# Per-kind precision floors on realdocs-dev (judged claims still extracted that carry the kind).
# Issue 31 took the meaning rules off cited sentences (the judge's `no-fact` reads them): the
# hyperlinked floor fell from 0.94 to 0.90 by design, and no real claim was lost.
DEV_FLOORS = {"hyperlinked": 0.90, "statistic": 0.94, "quote": 1.0, "temporal": 1.0, "comparative": 0.94}


@pytest.mark.skipif(
    not (DEV / "corpus").exists(), reason="the realdocs-dev corpus is not beside the repository"
)
def test_dev_corpus_figures_hold() -> None:
    fig = score(DEV, rounds=0)
    assert fig.dropped_real == 0, fig.details["lost (labelled real, no longer extracted)"]
    assert _rate(fig.cited_real) == 1.0, fig.details["cited real claim lost"]
    assert _precision(fig) >= 0.90
    for kind, floor in DEV_FLOORS.items():
        assert _rate(fig.per_kind[kind]) >= floor, (kind, fig.per_kind[kind])
    assert _rate(fig.recall) >= 0.97, fig.details["missed (recall)"]
    assert _rate(fig.citations) >= 0.97, fig.details["citations not exact"]
    assert _rate(fig.unsourced) >= 0.91, fig.details["unsourced, wrongly"]
    assert fig.leaks == 0, fig.details["template-markup leaks"]
    assert fig.raw_keys == 0


# The held-out sets (tests/data/realdocs-heldout*, each README says how it was drawn and
# labelled): (folder, judged claims, precision floor, unsourced-precision floor, citations floor).
# - heldout: labelled after the rules were written, from repositories they were not tuned on;
#   before issue 15 its precision was 12/23 and 13 of its real claims were not extracted at all.
# - heldout2: 50 claims of main's extraction (tokio blog, Turing REG handbook, GOV.UK design
#   system) labelled before the precision rules of h21; 13 real; of the 14 reported unsourced
#   then, 1 was a real claim citing nothing.
# - heldout3: 40 claims of main's extraction (numpy.org, the Scientific Python blog) labelled
#   before the rules of h23; 9 real; precision was 9/40 and unsourced precision 3/15 then.
# - heldout4: 60 claims of main's extraction at 1674d3d (Prometheus blog, uv docs, FastAPI
#   tutorial) labelled before the rules of session 8; 16 real; precision was 16/60 and unsourced
#   precision 5/11 then.
# - heldout5: 60 claims of the union of the extractions at 1674d3d and 225687d (Carpentries blog,
#   Prettier docs, opensource.guide) labelled blind to which extracted them; 32 real (21 of them
#   sentences of sourced quotations); precision 32/60 at 1674d3d, 31/54 at 225687d (one real claim
#   lost, "If you place the CONTRIBUTING file …, GitHub will …", kept since).
# - heldout6 and heldout7: 60 claims each of main's extraction at 58cad7d (Rust blog, OpenTelemetry
#   blog, Dive into Deep Learning; Node.js blog, Sourcegraph handbook, fivethirtyeight data READMEs),
#   labelled before the lead saw them; 33 and 9 real; precision was 33/60 and 9/60 then, and 33/59
#   and 9/59 with the first rule of session 9 (written before they were seen).
# - heldout8 and heldout9: 60 claims each of main's extraction at 3b0ed15 (pyOpenSci blog, Astro
#   docs, simonw/til; Canadian Digital Service blog, This Week in Rust, awesome-falsehood), labelled
#   before the lead saw them; 17 and 9 real; 17/60 and 9/60 then, 17/60 and 9/59 with the rules
#   written after 3b0ed15 and before they were read.
# - heldout10 and heldout11: 60 claims each of main's extraction at dabdc66 (Julia blog, Fly.io docs,
#   The State of Open Source AI; RustSec advisories, Ethereum EIPs, scikit-learn blog), labelled
#   before the lead saw them; 31 and 19 real (0.52 and 0.32 then).
# - heldout12 and heldout13: 60 claims each of main's extraction at bfb4c3a, the session's final
#   rules (Artsy engineering blog, Privacy Guides, git-lfs docs; Frictionless Data blog, Swift
#   evolution proposals, CarbonPlan blog), labelled before the lead saw them; 19 and 28 real.
# - heldout14 and heldout15: 60 and 43 (all) claims of main's extraction at 0e839dd (Helm blog,
#   CodeRefinery blog, ONS's QA of code guidance; Chia post-mortems, NHS England's RAP guidance,
#   ESLint release posts), labelled before the lead saw them; 26 and 27 real.
# - heldout16 and heldout17: 60 claims each of main's extraction at 1bc2e96 (Kubernetes KEPs, Simply
#   Statistics, QuestDB docs; PyPI blog, QuestDB docs, Simply Statistics: two helpers chose two of
#   the same repositories, their files differ), labelled before the lead saw them; 21 and 27 real
#   (0.35 and 0.45 then). Ten of heldout16's non-claims (checklist entries, wordless table rows)
#   are no longer extracted.
# - heldout18 and heldout19: 60 claims each of main's extraction at c97e206 (Open Science Training
#   Handbook, Foundation for Public Code blog, Dapr concepts; Project Zero's 0-day root-cause
#   analyses, Bitcoin Optech newsletters, DeepSpeed blog), labelled before the lead saw them; 26
#   and 33 real (0.43 and 0.55 then).
# - heldout20 and heldout21: 60 claims each of main's extraction at 254830d, the session's final
#   rules (Stride game-engine blog, The A11Y Project, Apache DataFusion blog; ZMK firmware blog,
#   Measurement Lab blog, Svelte blog), labelled before the lead saw them; 22 and 18 real (0.37
#   and 0.30 then).
# - heldout22: 60 claims of main's extraction at 1e20eeb (OpenSSF TAC governance records, Easyperf
#   performance blog, Delphi Epidata docs), labelled before the lead saw them; 31 real (0.52 then;
#   nine of its non-claims, a funding process's schedule, are no longer extracted).
# - heldout23: 60 claims of main's extraction at 1e20eeb (Nim release posts, ELIXIR RDMkit domain
#   pages, Railway docs), labelled before the lead saw them; 32 real (0.53 then).
# - heldout24 and heldout25: 60 claims each of main's extraction at dcd3b24 (RSE Sheffield blog,
#   Falco blog, Servo blog; GTFS docs, iroh blog in MDX, WICG Protected Audience explainers),
#   labelled before the lead saw them; 45 and 21 real (0.75 and 0.35 then).
# - heldout26 and heldout27: 60 claims each of main's extraction at 60bb652 (gRPC blog, NHS England
#   Data Science pages, SciML news; ElectricSQL blog, Rust RFCs, The Pudding's data READMEs),
#   labelled before the lead saw them; 22 and 23 real (0.37 and 0.38 then).
# - heldout28 and heldout29: 60 claims each of main's extraction at f54243e (Vitess blog, CS231n
#   lecture notes, the Government as a Platform playbook; curl's CVE advisories, the Kubeflow blog,
#   Last Week in Pony), labelled before the lead saw them; 34 and 27 real (0.57 and 0.45 then).
# - heldout30 and heldout31: 60 claims each of main's extraction at 8feb166 (sourmash docs, the
#   Meshtastic blog, Open Web Advocacy; Parcel's blog, PolicyEngine analyses, the OpenTTD devlog),
#   labelled before the lead saw them; 30 and 36 real (0.50 and 0.60 then).
# - heldout32 and heldout33: 60 claims each of main's extraction at d4f4252 (Working Group Two's
#   engineering blog, the Idaho Harvester special-collections blog, Clojurists Together's survey
#   results; NATS concepts docs, Open Climate Fix blog, FluxML blog), labelled before the lead saw
#   them; 40 and 35 real (0.67 and 0.58 then).
# - heldout34 and heldout35: 60 and 38 (all) claims of main's extraction at cccf7f1 (AntennaPod blog,
#   WebAssembly design docs, Data.gov blog; Mbed TLS advisories, Write the Docs attendee notes,
#   Joyent RFDs), labelled before the lead saw them; 24 and 19 real (0.40 and 0.50 then).
# - heldout36, heldout37 and heldout38: drawn at cbf74b3 for issue 31, every file read in full
#   and every cited sentence labelled (cited.jsonl) before extraction ran (OpenFeature blog, Babel
#   blog, Swedish Pathogens Portal; Redux docs, Nextstrain blog, OWASP cheat sheets; a Jupyter Book
#   on physics-based deep learning, the V8 blog, NIST SP 800-63-3). Cited assertions with a web
#   citation kept then: 46/52, 56/58, 20/20; now all.
# Issue 31 re-measured every precision floor: the meaning rules no longer set aside a cited
# sentence, so sets whose non-claims were cited definitions or descriptions fell (heldout3 0.60 →
# 0.42, heldout4 0.48 → 0.34), with no real claim lost.
HELD_OUT = [
    ("realdocs-heldout", 42, 0.65, 0.80, 0.98),
    ("realdocs-heldout2", 50, 0.37, 0.14, 0.98),
    ("realdocs-heldout3", 40, 0.42, 0.75, 0.98),
    ("realdocs-heldout4", 60, 0.34, 0.55, 0.98),
    ("realdocs-heldout5", 60, 0.54, 0.37, 0.98),
    ("realdocs-heldout6", 60, 0.63, 0.52, 0.98),  # issue 34, as held-out 11 (d2l's :numref: roles)
    ("realdocs-heldout7", 60, 0.25, 0.29, 0.98),
    ("realdocs-heldout8", 60, 0.29, 0.58, 0.98),
    ("realdocs-heldout9", 60, 0.20, 0.40, 0.98),
    ("realdocs-heldout10", 60, 0.53, 0.50, 0.98),
    # issue 34: a sentence whose only link is to the site's own pages is cited (an internal link),
    # no longer unsourced; those its labeller read as real and citing nothing left the Unsourced list
    ("realdocs-heldout11", 60, 0.47, 0.52, 0.98),
    ("realdocs-heldout12", 60, 0.31, 0.50, 0.98),
    ("realdocs-heldout13", 60, 0.46, 0.35, 0.96),  # "By September, NIFC projects …" reports the
    # outlook the sentence before it links: its labeller gives it that link
    ("realdocs-heldout14", 60, 0.43, 0.61, 0.98),
    ("realdocs-heldout15", 43, 0.64, 0.75, 0.98),
    ("realdocs-heldout16", 60, 0.42, 0.50, 0.98),
    ("realdocs-heldout17", 60, 0.47, 0.29, 0.98),
    # a Wikipedia-copied pair its labeller read as one claim is two sentences now: the first keeps
    # only its own note, not the second's links the label lists
    ("realdocs-heldout18", 60, 0.47, 0.29, 0.92),
    # Bitcoin Optech's links are defined in the site's Jekyll include files, not in the posts
    ("realdocs-heldout19", 60, 0.56, 0.70, 0.78),
    ("realdocs-heldout20", 60, 0.36, 0.41, 0.98),
    ("realdocs-heldout21", 60, 0.34, 0.62, 0.98),
    ("realdocs-heldout22", 60, 0.60, 0.57, 0.98),
    # RDMkit cites with Jekyll-Scholar tags whose bibliography (the site's _config.yml and
    # _bibliography/) the set did not copy, and names tools with its own {% tool %} tag
    ("realdocs-heldout23", 60, 0.53, 0.60, 0.68),
    ("realdocs-heldout24", 60, 0.74, 0.70, 0.98),
    ("realdocs-heldout25", 60, 0.38, 0.45, 0.98),  # issue 34, as held-out 11
    ("realdocs-heldout26", 60, 0.39, 0.43, 0.98),
    # "According to the NCES, these data were accurate …" names its source without a link
    ("realdocs-heldout27", 60, 0.41, 0.30, 0.95),
    # a quote box cited on its attribution line only (its labeller gives the quotation that note)
    ("realdocs-heldout28", 60, 0.62, 0.55, 0.96),
    # a digest's release paragraph: its labeller gives the release link to the first sentence alone
    ("realdocs-heldout29", 60, 0.45, 0.68, 0.92),
    ("realdocs-heldout30", 60, 0.50, 0.35, 0.96),
    ("realdocs-heldout31", 60, 0.60, 0.75, 0.98),
    ("realdocs-heldout32", 60, 0.66, 0.79, 0.98),
    ("realdocs-heldout33", 60, 0.58, 0.63, 0.98),
    ("realdocs-heldout34", 60, 0.40, 0.84, 0.98),
    ("realdocs-heldout35", 38, 0.57, 0.61, 0.98),
    ("realdocs-heldout36", 60, 0.71, 0.61, 0.98),
    ("realdocs-heldout37", 60, 0.56, 0.54, 0.98),
    ("realdocs-heldout38", 43, 0.72, 0.58, 0.98),  # issue 34, as held-out 11
]


@pytest.mark.parametrize(("folder", "judged", "precision", "unsourced", "citations"), HELD_OUT)
def test_held_out_figures_hold(
    folder: str, judged: int, precision: float, unsourced: float, citations: float
) -> None:
    fig = score(ROOT / "tests" / "data" / folder, rounds=0)
    assert fig.judged == judged
    assert fig.dropped_real == 0, fig.details["lost (labelled real, no longer extracted)"]
    # issue 31: every cited real claim, and every cited sentence read in full and labelled as
    # asserting something (cited.jsonl), is extracted
    assert _rate(fig.cited_real) == 1.0, fig.details["cited real claim lost"]
    assert _rate(fig.cited_asserts) == 1.0, fig.details["cited assertion lost"]
    assert _precision(fig) >= precision
    assert _rate(fig.citations) >= citations, fig.details["citations not exact"]
    assert _rate(fig.unsourced) >= unsourced
    assert fig.leaks == 0 and fig.raw_keys == 0
