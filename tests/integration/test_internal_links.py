"""Internal links end to end through `citecheck check` (issue 34): a guide's sentence checked
against the page of the repository it links to, the site behind `--site-url` (a real source
server on 127.0.0.1), and what is listed when a link leads nowhere known. The trees are real
folders; the JSON report is what is observed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from citecheck.cli import main
from tests.servers.llm_server import LLMServer
from tests.servers.source_server import SourceServer

REFERENCE = """---
title: Configuration
---

# Configuration reference

## Retries

The client retries a failed request 3 times before it gives up.

## Timeout {#timeout}

The default timeout is 30 seconds. A request that takes longer is cancelled.

## Proxies

Set `HTTPS_PROXY` to send every request through a proxy.
"""


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / ".git").mkdir(exist_ok=True)  # a checkout's root
    return root


def check(
    root: Path, args: list[str], capsys: pytest.CaptureFixture[str], *, cwd: Path | None = None
) -> tuple[int, dict]:
    here = os.getcwd()
    os.chdir(cwd or root)
    try:
        code = main(["check", *args, "--format", "json"])
    finally:
        os.chdir(here)
    out, _ = capsys.readouterr()
    return code, json.loads(out)


def claim(report: dict, start: str) -> dict:
    [found] = [c for c in report["claims"] if c["text"].startswith(start)]
    return found


def test_a_guide_contradicting_the_reference_it_links_fails_on_the_referenced_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_keys: None
) -> None:
    root = tree(
        tmp_path,
        {
            "docs/reference/config.md": REFERENCE,
            "docs/guides/setup.md": "# Setup\n\nThe default timeout is 60 seconds, as the "
            "[configuration reference](../reference/config.md#timeout) says.\n",
        },
    )
    code, report = check(root, ["docs/guides/setup.md", "--judge", "none"], capsys)
    c = claim(report, "The default timeout is 60 seconds")
    assert c["verdict"] == "fail" and c["decided_by"] == "number"
    assert c["source_url"] == "docs/reference/config.md#timeout"
    [cit] = c["citations"]
    assert (cit["kind"], cit["identifier"], cit["path"]) == (
        "internal",
        "../reference/config.md#timeout",
        "docs/reference/config.md#timeout",
    )
    # the linked section is the source: the page's other sections are not read as its evidence
    assert "30 seconds" in json.dumps(c["checks"]) and "3 times" not in json.dumps(c["checks"])
    assert code == 1 and report["failing"] == ["unsupported"]


def test_a_guide_agreeing_with_the_reference_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_keys: None
) -> None:
    root = tree(
        tmp_path,
        {
            "docs/reference/config.md": REFERENCE,
            "docs/guides/setup.md": "# Setup\n\nThe default timeout is 30 seconds, as the "
            "[configuration reference](../reference/config.md#timeout) says.\n",
        },
    )
    code, report = check(root, ["docs/guides/setup.md", "--judge", "none"], capsys)
    c = claim(report, "The default timeout is 30 seconds")
    assert (c["verdict"], c["source_url"]) == ("pass", "docs/reference/config.md#timeout")
    assert code == 0 and report["passed"] is True


def test_a_site_path_resolves_under_the_site_root_and_by_front_matter_slug(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_keys: None
) -> None:
    # typescript-eslint's blog (Docusaurus) links its rule pages by their site path
    root = tree(
        tmp_path,
        {
            "docs/rules/no-empty-object-type.mdx": "---\ndescription: x\n---\n\n# no-empty-object-type\n\n"
            "Disallow accidentally using the empty object type. The rule was added in v8.0.0.\n",
            "docs/30-settings.md": "---\nslug: /settings\n---\n\n# Settings\n\n## allowBuilds\n\n"
            "allowBuilds was added in v10.26 and lists the packages allowed to run build scripts.\n",
            "blog/2024-07-31-v8.md": "# Announcing v8\n\n"
            "[no-empty-object-type](/rules/no-empty-object-type) was added in v8.0.0.\n\n"
            "To refine this control, allowBuilds was added in v10.26 ([settings](/settings#allowbuilds)).\n",
        },
    )
    code, report = check(root, ["blog/2024-07-31-v8.md", "--judge", "none", "--site-root", "docs,."], capsys)
    assert (
        claim(report, "no-empty-object-type was added")["source_url"] == "docs/rules/no-empty-object-type.mdx"
    )
    c = claim(report, "To refine this control")
    assert c["source_url"] == "docs/30-settings.md#allowbuilds"
    assert c["reason"] == "needs the LLM judge, which is off (judge: none)" and code == 0


def test_an_unresolved_internal_link_is_listed_not_verified_and_does_not_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_keys: None
) -> None:
    # openfeature.dev's blog links its specification, which the repository pulls in at build time
    root = tree(
        tmp_path,
        {
            "blog/react-sdk.md": "# React SDK\n\nThe OpenFeature client is a lightweight abstraction used "
            "to evaluate feature flags ([client](/specification/glossary#client)).\n",
        },
    )
    code, report = check(root, ["blog/react-sdk.md", "--judge", "none"], capsys)
    c = claim(report, "The OpenFeature client")
    assert c["verdict"] == "not_verified"
    assert c["reason"] == (
        "internal link not resolved: set site-root or site-url "
        "(no file of the checkout is /specification/glossary#client)"
    )
    assert code == 0 and report["passed"] is None and report["failing"] == []


def test_site_url_fetches_what_the_checkout_lacks_under_the_guard_and_allowlist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source_server: SourceServer, no_keys: None
) -> None:
    source_server.add(
        "/specification/glossary",
        "<html><body><main><h1>Glossary</h1><p>A client evaluates a flag in under 5 ms per call, "
        "and is used to evaluate feature flags.</p></main></body></html>",
    )
    root = tree(
        tmp_path,
        {
            "blog/react-sdk.md": "# React SDK\n\nA client evaluates a flag in under 5 ms per call "
            "([client](/specification/glossary#client)).\n",
        },
    )
    site = f"http://{source_server.host}:{source_server.port}"
    args = [
        "blog/react-sdk.md",
        "--judge",
        "none",
        "--site-url",
        site,
        "--allow-private-host",
        source_server.host,
    ]
    code, report = check(root, args, capsys)
    c = claim(report, "A client evaluates a flag")
    assert (c["verdict"], c["source_url"]) == ("pass", f"{site}/specification/glossary#client") and code == 0
    assert source_server.hits("/specification/glossary") == 1
    # the site's host passes the allowlist or the run does not start
    assert main(["check", "blog/react-sdk.md", "--site-url", site, "--allowed-domains", "example.org"]) == 2


def test_a_nist_volume_assembled_from_its_sections_resolves_in_page_links_across_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_keys: None
) -> None:
    # usnistgov/800-63-3: sp800-63c.md is one Jekyll page of `include_relative` sections; an
    # in-page link of one section names another section's <a name>, or the reference list's
    root = tree(
        tmp_path,
        {
            "sp800-63c.md": "---\nlayout: page\n---\n\n{% include_relative sp800-63c/sec4_fal.md %}\n"
            "{% include_relative sp800-63c/sec5_federation.md %}\n"
            "{% include_relative sp800-63c/references.md %}\n",
            "sp800-63c/sec4_fal.md": '<a name="fal"></a>\n\n## 4 Federation Assurance Level (FAL)\n\n'
            "All assertions SHALL be used with a federation protocol as described in "
            "[Section 5](#federation).\n\n"
            "IdPs SHALL employ security controls of at least 3 families "
            "[[SP 800-53]](#SP800-53).\n",
            "sp800-63c/sec5_federation.md": '<a name="federation"></a>\n\n<div class="breaker"></div>\n\n'
            "## 5 Federation\n\nIn a federation protocol, a three-party relationship is formed between the "
            "subscriber, the IdP, and the RP. All assertions are used with a federation protocol.\n",
            "sp800-63c/references.md": "## References\n\n"
            '<a name="SP800-53"></a>[SP 800-53] NIST Special Publication 800-53 Revision 4, '
            "<https://doi.org/10.6028/NIST.SP.800-53r4>.\n",
        },
    )
    _, report = check(root, ["sp800-63c/sec4_fal.md", "--judge", "none", "--no-fetch"], capsys)
    c = claim(report, "All assertions SHALL be used")
    assert [x["path"] for x in c["citations"]] == ["sp800-63c/sec5_federation.md#federation"]
    c = claim(report, "IdPs SHALL employ")
    assert [(x["kind"], x["url"]) for x in c["citations"]] == [
        ("reference", "https://doi.org/10.6028/NIST.SP.800-53r4")
    ]


def test_a_draft_on_standard_input_follows_its_links_only_with_a_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, no_keys: None
) -> None:
    import io

    root = tree(tmp_path, {"docs/reference/config.md": REFERENCE})
    draft = "The default timeout is 60 seconds ([reference](../reference/config.md#timeout)).\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(draft.encode())))
    code, report = check(root, ["-", "--stdin-name", "docs/guides/new.md", "--judge", "none"], capsys)
    assert report["claims"][0]["verdict"] == "not_verified" and code == 0
    assert (
        "no checkout to read the link in" in report["claims"][0]["reason"]
        or "outside the checkout" in (report["claims"][0]["reason"])
    )
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(draft.encode())))
    args = ["-", "--stdin-name", "docs/guides/new.md", "--root", str(root), "--judge", "none"]
    code, report = check(root, args, capsys, cwd=tmp_path.parent)
    c = report["claims"][0]
    assert (c["verdict"], c["source_url"]) == ("fail", "docs/reference/config.md#timeout") and code == 1


def test_a_link_out_of_the_tree_is_never_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_keys: None
) -> None:
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("The default timeout is 60 seconds. TOKEN-abc123\n")
    root = tree(
        tmp_path / "repo",
        {
            "docs/guide.md": "The default timeout is 60 seconds ([notes](notes.md)).\n\n"
            "The default timeout is 60 seconds ([up](../../outside/secret.md)).\n\n"
            "The default timeout is 60 seconds ([git](../.git/notes.md)).\n\n"
            "The default timeout is 60 seconds ([config](../.git/config)).\n",
        },
    )
    (root / "docs" / "notes.md").symlink_to(secret)
    (root / ".git" / "config").write_text("[remote]\n\turl = https://user:TOKEN-abc123@example.com\n")
    (root / ".git" / "notes.md").write_text("The default timeout is 60 seconds. TOKEN-abc123\n")
    code, report = check(root, ["docs/guide.md", "--judge", "none"], capsys)
    text = json.dumps(report)
    assert "TOKEN-abc123" not in text
    link, up, git, config = report["claims"]
    assert link["verdict"] == "disallowed" and "a symbolic link out of the tree" in link["reason"]
    assert up["verdict"] == "not_verified" and "internal link not resolved" in up["reason"]
    assert git["verdict"] == "disallowed" and "no part of the tree's pages" in git["reason"]
    assert config["verdict"] == "not_verified" and ".git/config is no page" in config["reason"]
    assert code == 1  # the link out of the tree fails the run, as the guard's refusal does


def test_the_judge_reads_the_checkout_page_like_a_fetched_one(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    openai_server: LLMServer,
    monkeypatch: pytest.MonkeyPatch,
    no_keys: None,
) -> None:
    root = tree(
        tmp_path,
        {
            "docs/reference/config.md": REFERENCE,
            "docs/guides/setup.md": "# Setup\n\nA request that takes longer is "
            "[cancelled](../reference/config.md#timeout).\n",
        },
    )
    args = [
        "docs/guides/setup.md",
        "--judge",
        "openai",
        "--model",
        "gpt-4o-mini",
        "--base-url",
        openai_server.base_url,
        "--allow-private-host",
        "127.0.0.1",
    ]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-internal")
    code, report = check(root, args, capsys)
    [call] = openai_server.calls
    assert "URL: docs/reference/config.md#timeout" in call.prompt
    assert "A request that takes longer is cancelled." in call.prompt and "HTTPS_PROXY" not in call.prompt
    assert claim(report, "A request that takes longer")["verdict"] == "pass" and code == 0
