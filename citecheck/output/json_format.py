"""The JSON report: the `Report` model as is, the public contract (docs/ARCHITECTURE.md).
`citecheck merge` reads it back (`citecheck.output.report.read_report`)."""

from __future__ import annotations

from citecheck.models import Report


def render_json(report: Report) -> str:
    return report.model_dump_json(indent=2) + "\n"
