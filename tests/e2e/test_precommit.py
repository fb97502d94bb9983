"""The pre-commit hook, run by the real `pre-commit` in a temporary git repository.

The hook is the repository's own `.pre-commit-hooks.yaml` definition (its entry, file types and
options), validated by pre-commit's manifest schema. A `language: python` hook would have
pre-commit build a virtualenv and pip-install citecheck and its dependencies from the package
index (~40 s, and the network); the tests instead run the same definition as a `repo: local`,
`language: system` hook, whose `citecheck` is the one installed in the test's environment.
The hook's arguments are those a user adds with `args:` (here, admitting the loopback source
stand-in past the SSRF guard).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.servers.gitrepo import _ENV, Repo, git
from tests.servers.llm_server import LLMServer, auto_judge
from tests.servers.source_server import SourceServer

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
SURVEY = (
    "<html><head><title>Survey 2024</title></head><body><article>"
    "<p>The 2024 survey collected 14,000 responses from developers in 112 countries.</p>"
    "<p>Only 48% of contributors reported being paid for their open source work.</p>"
    "<p>Documentation was the most common complaint among all respondents this year.</p>"
    "</article></body></html>"
)


def the_hook() -> dict[str, Any]:
    (hook,) = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    return hook


def test_the_manifest_is_valid_for_pre_commit() -> None:
    from pre_commit.clientlib import load_manifest

    (hook,) = load_manifest(str(MANIFEST))
    assert hook["id"] == "citecheck" and hook["language"] == "python"
    assert hook["types_or"] == ["markdown", "mdx"] and hook["pass_filenames"] and hook["require_serial"]
    # What the entry promises: staged lines only, no key needed, the user's cache, a console report.
    assert hook["entry"].split() == [
        "citecheck",
        "check",
        "--changed=HEAD",
        "--judge-optional",
        "--user-cache",
        "--no-progress",
        "--format",
        "text",
    ]


def test_the_readme_configuration_is_valid_for_pre_commit(tmp_path: Path) -> None:
    from pre_commit.clientlib import load_config

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"^```yaml\n(.*?)^```$", text, re.M | re.S) if b.startswith("repos:")]
    path = tmp_path / ".pre-commit-config.yaml"
    path.write_text(block, encoding="utf-8")
    (repo,) = load_config(str(path))["repos"]
    assert [hook["id"] for hook in repo["hooks"]] == [the_hook()["id"]]


def setup_repo(root: Path, *, args: list[str]) -> Repo:
    repo = Repo(root)
    local = {**the_hook(), "language": "system", "args": args}
    config = {"repos": [{"repo": "local", "hooks": [local]}]}
    repo.commit({".pre-commit-config.yaml": yaml.safe_dump(config, sort_keys=False)}, "pre-commit")
    return repo


def hook_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A user's shell: this environment's `citecheck` and `pre-commit` first on PATH, no API key,
    pre-commit's and citecheck's caches in the test's folder."""
    env = {
        k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("CITECHECK")
    }
    env.update(_ENV)
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(tmp_path / "home"),
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        CITECHECK_CACHE_HOME=str(tmp_path / "user-cache"),
        XDG_CACHE_HOME=str(tmp_path / "xdg"),
    )
    env.update(extra)
    return env


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_a_commit_is_stopped_by_a_wrong_figure_on_a_staged_line_only(
    tmp_path: Path, source_server: SourceServer
) -> None:
    survey = source_server.add("/survey.html", SURVEY)
    repo = setup_repo(tmp_path / "docs", args=["--allow-private-host", "127.0.0.1"])
    committed = f"# Survey\n\nOld news: most contributors, 90%, are paid [survey]({survey}).\n"
    repo.commit({"README.md": committed}, "docs")
    env = hook_env(tmp_path)
    assert run([sys.executable, "-m", "pre_commit", "install"], repo.root, env).returncode == 0

    staged = committed + f"\nMost contributors, 71%, are paid for their work [survey]({survey}).\n"
    repo.write({"README.md": staged, "notes.txt": f"Sales grew 99% [x]({survey}).\n"})
    unstaged = staged + f"\nThe survey had 99,000 responses [survey]({survey}).\n"
    (repo.root / "README.md").write_text(unstaged, encoding="utf-8")

    refused = run(["git", "commit", "-m", "a wrong figure"], repo.root, env)

    assert refused.returncode != 0
    out = refused.stdout + refused.stderr
    assert "citecheck" in out and "Failed" in out
    # The staged line is checked, and its figure contradicted by the page.
    assert "FAIL" in out and "Most contributors, 71%, are paid" in out
    assert "the page gives '48%' where the claim says '71%'" in out
    # Not the lines committed before, nor the change left unstaged, nor a file not Markdown.
    assert "90%" not in out and "99,000" not in out and "Sales grew" not in out
    assert "no API key set: the judge is off (--judge-optional)" in out
    assert git(repo.root, "log", "--format=%s", "-1") == "docs"
    assert (repo.root / "README.md").read_text(encoding="utf-8") == unstaged  # given back as it was
    sources = tmp_path / "user-cache" / "cache" / "sources"
    assert len(list(sources.glob("*.json"))) == 1  # the user's cache folder, not the repository

    fixed = staged.replace("71%", "48%")
    repo.write({"README.md": fixed})
    (repo.root / "README.md").write_text(fixed + unstaged[len(staged) :], encoding="utf-8")
    done = run(["git", "commit", "-m", "the right figure"], repo.root, env)

    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "citecheck" in out and "Passed" in out
    assert git(repo.root, "log", "--format=%s", "-1") == "the right figure"
    assert source_server.full_hits("/survey.html") == 1  # the second run read the cache


def test_with_a_key_set_the_hook_judges(
    tmp_path: Path, source_server: SourceServer, openai_server: LLMServer
) -> None:
    openai_server.responder = auto_judge
    survey = source_server.add("/survey.html", SURVEY)
    repo = setup_repo(
        tmp_path / "docs", args=["--allow-private-host", "127.0.0.1", "--base-url", openai_server.base_url]
    )
    repo.write({"guide.md": f"Documentation was the most common complaint [survey]({survey}).\n"})
    env = hook_env(tmp_path, OPENAI_API_KEY="sk-test-not-a-real-key")

    result = run([sys.executable, "-m", "pre_commit", "run"], repo.root, env)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout
    assert len(openai_server.requests) == 1
    assert "Documentation was the most common complaint" in openai_server.requests[0].user_text


def test_nothing_staged_in_markdown_skips_the_hook(tmp_path: Path) -> None:
    repo = setup_repo(tmp_path / "docs", args=[])
    repo.write({"script.py": "print('hello')\n"})
    result = run([sys.executable, "-m", "pre_commit", "run"], repo.root, hook_env(tmp_path))
    assert result.returncode == 0
    assert "(no files to check)Skipped" in result.stdout


def test_all_files_checks_nothing_unchanged_unless_asked(tmp_path: Path, source_server: SourceServer) -> None:
    # `pre-commit run --all-files` hands every Markdown file to the hook, which checks the lines
    # changed since HEAD: none. `args: [--filter-mode=nofilter]` checks the files whole.
    survey = source_server.add("/survey.html", SURVEY)
    for args, expect_failure in (([], False), (["--filter-mode=nofilter"], True)):
        repo = setup_repo(tmp_path / f"docs-{len(args)}", args=["--allow-private-host", "127.0.0.1", *args])
        repo.commit({"README.md": f"Most contributors, 71%, are paid [survey]({survey}).\n"})
        result = run(
            [sys.executable, "-m", "pre_commit", "run", "--all-files"], repo.root, hook_env(tmp_path)
        )
        assert (result.returncode != 0) == expect_failure, result.stdout
        assert ("71%" in result.stdout) == expect_failure
