"""`citecheck eval` without servers: reading labelled rows, the figures, and the bundled set."""

from __future__ import annotations

import fnmatch
import json
import subprocess
import sys
import tomllib
from collections import Counter
from importlib.resources import files
from pathlib import Path

import pytest

from bench._data import eval_dir
from citecheck.evaluate import EvalItem, Outcome, gold, load_bundled, parse_rows, score

ROOT = Path(__file__).resolve().parents[2]
EVAL_DATA = files("citecheck").joinpath("data/eval")


@pytest.mark.parametrize(
    ("label", "supported"),
    [
        ("supported", True),
        ("SUPPORT", True),
        ("Supported", True),
        ("not_supported", False),
        ("not supported", False),
        ("not-supported", False),
        ("partially_supported", False),  # partial support is not support
        ("REFUTE", False),
        ("NOTENOUGHINFO", False),
        ("maybe", None),
        (True, None),
        (None, None),
    ],
)
def test_labels(label: object, supported: bool | None) -> None:
    assert gold(label) is supported


def test_rows_sources_kinds_and_errors() -> None:
    lines = [
        {"claim": "Sales grew 35% in 2023.", "url": "https://example.org/r#:~:text=Sales",
         "label": "supported"},
        {"claim": "It works.", "evidence": ["(meta data) TITLE: T", "It works."], "label": "REFUTE",
         "kind": "api", "set": "ours", "id": 7},
        {"claim": "It works.", "text": "It works.", "url": "https://example.org/p", "label": "supported",
         "kind": ["api", " ops "], "title": "Page"},
        "not json",
        ["a", "list"],
        {"claim": "", "label": "supported"},
        {"claim": "x", "url": "ftp://example.org/x", "label": "supported"},
        {"claim": "x", "text": "x", "label": "supported", "kind": []},
        {"claim": "x", "text": ["x", 1], "label": "supported"},
    ]  # fmt: skip
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n\n"
    items, errors = parse_rows(text, "team.jsonl")

    a, b, c = items
    assert (a.line, a.url, a.text, a.supported, a.set) == (
        1,
        "https://example.org/r#:~:text=Sales",
        None,
        True,
        "team.jsonl",
    )
    assert a.kinds == ["statistic", "temporal"]  # detected, as `check` would
    assert (b.text, b.kinds, b.set, b.id, b.supported) == (
        "(meta data) TITLE: T\nIt works.",
        ["api"],
        "ours",
        "7",
        False,
    )
    assert (c.text, c.url, c.kinds, c.title) == ("It works.", "https://example.org/p", ["api", "ops"], "Page")

    assert [(e.file, e.line) for e in errors] == [("team.jsonl", n) for n in (4, 5, 6, 7, 8, 9)]
    messages = [e.message for e in errors]
    assert messages[0].startswith("row skipped: not JSON")
    assert messages[1] == "row skipped: not a JSON object"
    assert "`claim` must be a non-empty string" in messages[2] and "give the source as `url`" in messages[2]
    assert "`url` must be an http(s) URL" in messages[3]
    assert "`kind` must be" in messages[4]
    assert "`text` / `evidence` must be" in messages[5]

    limited, _ = parse_rows(text, "team.jsonl", limit=2)
    assert [i.line for i in limited] == [1, 2]


def _item(supported: bool, kinds: list[str] | None = None) -> EvalItem:
    return EvalItem(
        file="f", line=1, claim="c", label="x", supported=supported, kinds=kinds or ["k"], set="s"
    )


def test_scores() -> None:
    judge = {"decided_by": "judge", "cost_usd": 0.01}
    pairs = [
        (_item(True), Outcome(verdict="pass", latency_ms=100, **judge)),
        (_item(True), Outcome(verdict="fail", latency_ms=300, **judge)),
        (_item(True), Outcome(verdict="fail", decided_by="date")),
        (_item(True), Outcome(verdict="abstained", cause="unsure", latency_ms=200, **judge)),
        (_item(False), Outcome(verdict="fail", decided_by="number")),
        (_item(False), Outcome(verdict="pass", latency_ms=400, **judge)),
        (_item(False), Outcome(verdict="abstained", cause="cost-cap")),
        (_item(False), Outcome(verdict="abstained", cause="source", decided_by="fetch")),
    ]
    s = score(pairs)
    assert (s.claims, s.supported, s.not_supported) == (8, 4, 4)
    assert (s.passed_supported, s.false_failures, s.false_failures_by_check) == (1, 2, 1)
    assert (s.caught, s.caught_by_check, s.missed) == (1, 1, 1)
    assert s.abstained == {"unsure": 1, "no-fact": 0, "judge-error": 0, "cost-cap": 1, "source": 1}
    assert s.false_failure_rate == 0.5 and s.catch_rate == 0.25
    assert s.balanced_accuracy == pytest.approx((1 / 4 + 1 / 4) / 2)  # abstentions count against it
    assert s.abstention_rate == pytest.approx(3 / 8)
    assert s.cost_usd == pytest.approx(0.04) and s.cost_per_claim_usd == pytest.approx(0.005)
    assert (s.judge_calls, s.latency_median_ms, s.latency_p90_ms) == (4, 200, 400)
    one_label = score(pairs[:4])
    assert one_label.balanced_accuracy is None and one_label.catch_rate is None
    assert score([]).cost_per_claim_usd is None and score([]).latency_median_ms is None


def test_bundled_set_composition() -> None:
    items, errors = load_bundled()
    assert not errors and len(items) == 300
    assert Counter(i.supported for i in items) == {True: 150, False: 150}
    by_set_label = Counter((i.set, i.label) for i in items)
    assert by_set_label == {
        ("WiCE dev", "supported"): 60,
        ("WiCE dev", "partially_supported"): 36,
        ("WiCE dev", "not_supported"): 24,
        ("Check-COVID", "SUPPORT"): 90,
        ("Check-COVID", "REFUTE"): 54,
        ("Check-COVID", "NOTENOUGHINFO"): 36,
    }
    # Every claim kind of citecheck has claims of both labels.
    for kind in ("statistic", "quote", "temporal", "comparative", "hyperlinked"):
        labels = Counter(i.supported for i in items if kind in i.kinds)
        assert labels[True] >= 5 and labels[False] >= 5, kind
    # Any prefix is a fair sample: the labels alternate.
    assert [i.supported for i in items[:6]] == [True, False] * 3
    assert all(i.text and not i.url for i in items) and len({i.id for i in items}) == 300


def test_bundled_set_ships_with_its_licences() -> None:
    names = {p.name for p in EVAL_DATA.iterdir()}
    assert {"bundled.jsonl", "NOTICE.md", "LICENSE-WiCE.md", "LICENSE-Check-COVID"} <= names
    notice = EVAL_DATA.joinpath("NOTICE.md").read_text(encoding="utf-8")
    for needed in ("ryokamoi/wice", "posuer/Check-COVID", "ODC-BY", "CC BY-SA", "Common Crawl", "MIT"):
        assert needed in notice, needed
    assert "Columbia University" in EVAL_DATA.joinpath("LICENSE-Check-COVID").read_text(encoding="utf-8")
    # Packaged: every file of the folder matches the package-data globs.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["citecheck"]
    for name in names:
        assert any(fnmatch.fnmatch(f"data/eval/{name}", g) for g in globs), name


@pytest.mark.skipif(
    not (eval_dir() / "wice" / "claims_dev.jsonl").exists(), reason="no ../shared/eval beside the repository"
)
def test_bundled_set_is_a_fresh_draw() -> None:
    proc = subprocess.run(
        [sys.executable, "tools/bundled_eval.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
