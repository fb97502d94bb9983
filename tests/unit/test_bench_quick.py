"""Every bench takes `--quick`: CI runs `python bench/X.py --quick` for each one (.ci/run), so a
bench without it fails the whole run after the tests have passed."""

from __future__ import annotations

from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.parametrize("bench", sorted(BENCH.glob("[!_]*.py")), ids=lambda p: p.name)
def test_every_bench_has_a_quick_mode(bench: Path) -> None:
    text = bench.read_text(encoding="utf-8")
    assert '"--quick"' in text or "add_quick(" in text, f"{bench.name} takes no --quick"
