"""Output stage: the report formats (docs/ARCHITECTURE.md, "Adding an output format").

`FORMATS` is the one list of formats. The CLI's `--format` choices (check, merge, demo), its
`--<name> FILE` extra-file options (check), and the Action's report files
(`citecheck-report/report.<extension>`, each with its `report-<name>` output) are derived from it.
A new format is its module (a function `Report -> str`) plus one line here; an `action_file`
format also has its `report-<name>` output declared in action.yml and the README (a test checks).

Assembly (totals, merge, reading a JSON report back) is `citecheck.output.report`; what the
formats share (limits, shortening, escaping, a claim's tag and reason) is `citecheck.output.common`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citecheck.models import Report
    from citecheck.redact import Redactor


@dataclass(frozen=True, slots=True)
class Format:
    """One report format."""

    name: str  # the `--format` value, the `--<name> FILE` option and the `report-<name>` output
    extension: str  # of the file the Action writes: citecheck-report/report.<extension>
    description: str  # one line, for `--help`
    # "module:function". Imported on first use: listing the formats (the CLI builds its parser
    # before it starts the early fetch worker) imports no renderer.
    renderer: str
    colored: bool = False  # the renderer takes `color=`: ANSI colour, for a terminal only
    stdout: bool = True  # a `--format` choice: the CLI may print it (else only written to a file)
    action_file: bool = True  # the Action writes it and sets its `report-<name>` output

    def render(self, report: Report, redact: Redactor, *, color: bool = False) -> str:
        """The report in this format, redacted by `redact`, the run's (`citecheck.redact`: its
        secrets in every form, URL credentials); `color` (for a terminal: see
        `common.color_allowed`) applies to `colored` formats only, and never to what goes into
        a file."""
        # The pipeline's report is redacted already (then this only looks, and returns it as
        # it is); a report read back from a file (`merge`) or built by a face is not.
        report = redact.model(report)
        render = _resolve(self.renderer)
        return render(report, color=True) if color and self.colored else render(report)


@cache
def _resolve(renderer: str) -> Callable[..., str]:
    module, _, function = renderer.partition(":")
    return getattr(import_module(module), function)


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("markdown", "md", "the Verification Report", "citecheck.output.markdown:render_markdown"),
        Format("json", "json", "the whole report, for tools", "citecheck.output.json_format:render_json"),
        Format("sarif", "sarif", "SARIF 2.1.0, for code scanning", "citecheck.output.sarif:render_sarif"),
        Format(
            "text",
            "txt",
            "for a terminal: by file, failures first",
            "citecheck.output.text:render_text",
            colored=True,
            action_file=False,
        ),
    )
}
DEFAULT_FORMAT = "markdown"
