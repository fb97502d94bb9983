"""What importing a stage loads: the stages only look forward, and the pipeline module leaves
the stages to its run (its first step starts an extraction worker whose imports overlap theirs)."""

from __future__ import annotations

import subprocess
import sys


def loaded_by(modules: str) -> set[str]:
    """The citecheck modules a fresh interpreter has loaded after importing `modules`."""
    code = f"import sys, {modules}; print(*sorted(m for m in sys.modules if m.startswith('citecheck')))"
    return set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
    )


def test_the_fetch_stage_loads_nothing_of_the_checks_stage() -> None:
    loaded = loaded_by("citecheck.fetch.fetcher, citecheck.fetch.workers, citecheck.fetch.content")
    assert "citecheck.fetch.fetcher" in loaded
    assert not [m for m in loaded if m.startswith("citecheck.checks")]


def test_the_pipeline_module_imports_no_stage() -> None:
    loaded = loaded_by("citecheck.pipeline")
    assert "citecheck.fetch.workers" in loaded  # what starts the worker early
    stages = {
        "citecheck.checks",
        "citecheck.extract.document",
        "citecheck.fetch.fetcher",
        "citecheck.judge.judge",
    }
    assert not loaded & (stages | {"citecheck.output.report"})


def test_the_command_line_loads_the_mcp_sdk_only_for_the_mcp_command() -> None:
    # The SDK (starlette, pydantic-settings, opentelemetry, …) takes seconds to import: a
    # `citecheck check` must not pay for it, nor for the MCP tools it does not run.
    code = "import sys, citecheck.cli; print(*sorted(m for m in sys.modules if m.split('.')[0] == 'mcp'))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.split() == []
    assert not [m for m in loaded_by("citecheck.cli") if m.startswith("citecheck.mcp")]


def test_the_command_line_loads_the_judges_registry_but_not_its_prompt() -> None:
    # The registry gives `--judge` its choices; the prompt (pydantic models) waits for a call.
    loaded = loaded_by("citecheck.cli")
    assert "citecheck.judge.providers" in loaded
    assert "citecheck.judge.prompt" not in loaded


# What `import httpx` loads only for its command-line client (None in sys.modules: not importable).
HTTPX_CLI = (
    "[m for m, mod in sys.modules.items()"
    " if mod and (m == 'httpx._main' or m.split('.')[0] in ('click', 'pygments'))]"
)


def test_a_citecheck_process_does_not_load_the_http_clients_command_line() -> None:
    # `import httpx` brings its command-line client (click, rich, pygments: ~60 ms) whenever
    # click is importable, as it is here (the mcp dependency's uvicorn needs it). A citecheck
    # process (`start_process`) leaves it out, and httpx works as before; a library caller's
    # process keeps it.
    def run(code: str) -> list[str]:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        return done.stdout.split()

    assert "click" in run(f"import sys, httpx; print(*{HTTPX_CLI})")
    ours = "import sys; from citecheck.process import start_process; start_process(); import httpx"
    assert run(f"{ours}; print(*{HTTPX_CLI})") == []
    assert run(f"{ours}; print(httpx.Request('GET', 'https://example.org/a').url.host)") == ["example.org"]
