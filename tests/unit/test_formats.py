"""The registry of report formats, and the CLI options derived from it."""

from __future__ import annotations

import pytest

from citecheck.cli import build_parser
from citecheck.output import DEFAULT_FORMAT, FORMATS, Format
from citecheck.output.json_format import render_json
from citecheck.output.markdown import render_markdown
from citecheck.output.sarif import render_sarif
from citecheck.output.text import render_text
from citecheck.redact import Redactor
from tests.unit.report_samples import mixed_claims, report_of


def test_the_registry_names_each_renderer() -> None:
    r = report_of(mixed_claims())
    direct = {
        "markdown": render_markdown(r),
        "json": render_json(r),
        "sarif": render_sarif(r),
        "text": render_text(r),
    }
    assert {name: fmt.render(r, Redactor()) for name, fmt in FORMATS.items()} == direct
    assert all(name == fmt.name for name, fmt in FORMATS.items())
    assert DEFAULT_FORMAT == "markdown" and FORMATS[DEFAULT_FORMAT].stdout


def test_colour_reaches_only_coloured_formats() -> None:
    r = report_of(mixed_claims())
    for fmt in FORMATS.values():
        coloured = fmt.render(r, Redactor(), color=True)
        assert ("\x1b[" in coloured) == fmt.colored, fmt.name
    assert FORMATS["text"].render(r, Redactor(), color=True) == render_text(r, color=True)


def test_action_files_have_distinct_names() -> None:
    extensions = [f.extension for f in FORMATS.values() if f.action_file]
    assert len(set(extensions)) == len(extensions)
    assert {"markdown", "json", "sarif"} <= {f.name for f in FORMATS.values() if f.action_file}


@pytest.mark.parametrize("command", [["check"], ["merge", "r.json"], ["demo"]])
def test_cli_format_choices_come_from_the_registry(command: list[str]) -> None:
    parser = build_parser()
    assert parser.parse_args(command).format == DEFAULT_FORMAT
    for name, fmt in FORMATS.items():
        if fmt.stdout:
            assert parser.parse_args([*command, "--format", name]).format == name
    with pytest.raises(SystemExit):
        parser.parse_args([*command, "--format", "html"])


def test_check_can_also_write_every_format_to_a_file() -> None:
    args = build_parser().parse_args(["check", *(f"--{name}={name}.out" for name in FORMATS)])
    for name in FORMATS:
        assert str(getattr(args, f"{name}_file")) == f"{name}.out"


def test_a_renderer_is_found_by_module_and_function() -> None:
    # What a new format needs: a function Report -> str, named by "module:function".
    fmt = Format("plain", "txt", "test", "citecheck.output.text:render_text", action_file=False)
    assert fmt.render(report_of([]), Redactor()) == render_text(report_of([]))
