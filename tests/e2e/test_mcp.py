"""`citecheck mcp` through a real MCP client: the SDK's stdio client starts the server as a
subprocess and calls its tools, which fetch from the loopback source server and ask the LLM
stand-ins (reached through ANTHROPIC_BASE_URL / CITECHECK_BASE_URL in the server's env)."""

from __future__ import annotations

import json
import sqlite3
import stat
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from citecheck.mcp.errors import CODES
from tests.leaks import leaks
from tests.servers.llm_server import (
    LLMServer,
    RecordedRequest,
    Reply,
    echo_credentials_error,
    echo_key_judge,
    error_reply,
    request_key,
)
from tests.servers.source_server import SourceServer

T = TypeVar("T")

TOWER = """<html><head><title>The Eiffel Tower</title></head><body><article>
<h1>The Eiffel Tower</h1>
<p>The tower was designed and built by the company of Gustave Eiffel for the 1889 World's Fair.</p>
<p>The tower is repainted every seven years, by hand, by a team of about twenty-five painters.</p>
</article></body></html>"""

BRIDGE = """<html><head><title>The bridge</title></head><body><article>
<p>The bridge opened to traffic in 1937 and spans the strait between the two cities.</p>
</article></body></html>"""


def tower_draft(url: str) -> str:
    # The stand-in judge supports a claim when every word and number of it is on the page:
    # the first claim is, the second (robots) is not.
    return (
        "# The tower\n\n"
        f"The tower was built by the company of [Gustave Eiffel]({url}) for the 1889 fair.\n\n"
        f"The tower is repainted by robots, says [its history]({url}).\n"
    )


@pytest.fixture
def site() -> Iterator[SourceServer]:
    with SourceServer() as server:
        yield server


@pytest.fixture
def anthropic() -> Iterator[LLMServer]:
    with LLMServer("anthropic") as server:
        yield server


class Server:
    """How a test starts `citecheck mcp`: its environment, and where its stderr goes."""

    def __init__(self, tmp_path: Path, env: dict[str, str]) -> None:
        self.env = {"CITECHECK_CACHE_HOME": str(tmp_path / "home"), **env}
        self.errlog = tmp_path / "server.stderr"

    def run(self, body: Callable[[ClientSession], Awaitable[T]]) -> T:
        """Start the server, initialise a session, run `body` in it, stop the server."""

        async def session() -> T:
            params = StdioServerParameters(
                command=sys.executable, args=["-m", "citecheck", "mcp"], env=self.env
            )
            with self.errlog.open("a", encoding="utf-8") as errlog:
                async with (
                    stdio_client(params, errlog=errlog) as (read, write),
                    ClientSession(read, write) as client,
                ):
                    await client.initialize()
                    return await body(client)

        try:
            return anyio.run(session)
        except BaseException:
            print(self.errlog.read_text(encoding="utf-8"), file=sys.stderr)  # shown on failure
            raise


async def call(client: ClientSession, tool: str, **arguments: Any) -> tuple[bool, dict[str, Any]]:
    """(is_error, the result document); the text content is the same document."""
    result = await client.call_tool(tool, arguments)
    document = result.structured_content
    assert document is not None
    assert [c.type for c in result.content] == ["text"]
    assert json.loads(result.content[0].text) == document  # type: ignore[union-attr]
    return bool(result.is_error), document


async def error_of(client: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """The error document of a call that must fail."""
    is_error, document = await call(client, tool, **arguments)
    assert is_error, document
    assert set(document) == {"error"} and set(document["error"]) == {"code", "message", "recovery"}
    assert document["error"]["code"] in CODES and document["error"]["recovery"]
    return document["error"]


def anthropic_env(llm: LLMServer, site: SourceServer | None = None) -> dict[str, str]:
    env = {"ANTHROPIC_API_KEY": "sk-ant-e2e", "ANTHROPIC_BASE_URL": llm.base_url}
    if site is not None:
        env["CITECHECK_ALLOW_PRIVATE_HOSTS"] = site.host
    return env


# ------------------------------------------------------------------ the interface


def test_the_tools_and_the_evaluations_template_are_listed(tmp_path: Path) -> None:
    async def body(client: ClientSession) -> tuple[Any, Any]:
        return await client.list_tools(), await client.list_resource_templates()

    tools, templates = Server(tmp_path, {}).run(body)
    by_name = {t.name: t for t in tools.tools}
    assert set(by_name) == {"verify_citations", "extract_claims"}

    verify = by_name["verify_citations"].input_schema
    props = verify["properties"]
    assert verify["required"] == ["output"]
    assert {
        "model",
        "output",
        "provider",
        "allow_fetch",
        "max_citations",
        "domain_allowlist",
        "max_cost_usd_total",
        "per_source_max_bytes",
        "per_source_timeout_ms",
    } <= set(props)
    assert (props["max_citations"]["default"], props["max_citations"]["maximum"]) == (20, 50)
    assert props["max_cost_usd_total"]["default"] == 1.0
    assert props["per_source_max_bytes"]["default"] == 5 * 1024 * 1024
    assert props["per_source_timeout_ms"]["default"] == 10_000
    output = by_name["verify_citations"].output_schema
    assert output is not None
    assert {
        "id",
        "passed",
        "overall_score",
        "total_citations",
        "citations",
        "claims",
        "report_markdown",
    } <= set(output["properties"])
    assert by_name["extract_claims"].annotations.open_world_hint is False  # no network
    assert [t.uri_template for t in templates.resource_templates] == ["citecheck://evaluations/{id}"]


# ------------------------------------------------------------------ verify_citations


@pytest.mark.parametrize("protocol", ["anthropic", "openai"])
def test_a_supported_and_an_unsupported_citation(tmp_path: Path, site: SourceServer, protocol: str) -> None:
    url = site.add("/tower.html", TOWER, "text/html; charset=utf-8")
    with LLMServer(protocol) as llm:  # type: ignore[arg-type]
        if protocol == "anthropic":
            env = anthropic_env(llm, site)
        else:  # any OpenAI-compatible base URL, through citecheck's own setting
            env = {"OPENAI_API_KEY": "sk-e2e", "CITECHECK_BASE_URL": llm.base_url}
            env["CITECHECK_ALLOW_PRIVATE_HOSTS"] = site.host
        server = Server(tmp_path, env)

        async def body(client: ClientSession) -> tuple[dict[str, Any], str, list[str]]:
            is_error, result = await call(
                client, "verify_citations", output=tower_draft(url), provider=protocol, allow_fetch=True
            )
            assert not is_error, result
            stored = await client.read_resource(f"citecheck://evaluations/{result['id']}")
            listed = await client.list_resources()
            return result, stored.contents[0].text, [str(r.uri) for r in listed.resources]  # type: ignore[union-attr]

        result, stored, listed = server.run(body)
        assert len(llm.calls) == 1  # both claims cite one page: one call
    # No progress from the server, on stdout (the protocol, which still worked) or stderr.
    assert "citecheck: [" not in server.errlog.read_text(encoding="utf-8")
    assert site.hits("/tower.html") == 1

    assert result["passed"] is False
    assert result["overall_score"] == 0.5
    assert (result["total_citations"], result["total_resolved"], result["total_skipped"]) == (2, 2, 0)
    assert (result["total_judged"], result["total_supported"], result["total_unsupported"]) == (2, 1, 1)
    supported, unsupported = result["citations"]
    assert (supported["resolve_status"], supported["verdict"], supported["judge"]["supported"]) == (
        "ok",
        "pass",
        True,
    )
    assert (unsupported["resolve_status"], unsupported["verdict"]) == ("ok", "fail")
    assert unsupported["judge"]["supported"] is False
    assert supported["source"]["url"] == url and supported["source"]["status"] == 200
    assert supported["judge"]["evidence"] in TOWER
    assert [c["verdict"] for c in result["claims"]] == ["pass", "fail"]
    assert result["failing"] == ["unsupported"]
    assert 0 < result["total_cost_usd"] <= result["max_cost_usd_total"]
    assert result["model"] == ("claude-sonnet-4-6" if protocol == "anthropic" else "gpt-4o-mini")
    assert result["report_markdown"].startswith("## Verification Report")
    assert "repainted by robots" in result["report_markdown"].split("### Failed Claims")[1]

    # Kept: readable now, listed, and readable by a later server over the same store.
    assert json.loads(stored) == result
    assert f"citecheck://evaluations/{result['id']}" in listed

    async def read_again(client: ClientSession) -> str:
        return (await client.read_resource(f"citecheck://evaluations/{result['id']}")).contents[0].text  # type: ignore[union-attr]

    assert json.loads(Server(tmp_path, {}).run(read_again)) == result


def test_fetching_is_off_unless_asked_for(tmp_path: Path, site: SourceServer, anthropic: LLMServer) -> None:
    url = site.add("/tower.html", TOWER, "text/html; charset=utf-8")

    async def body(client: ClientSession) -> list[dict[str, Any]]:
        default = (await call(client, "verify_citations", output=tower_draft(url)))[1]
        refused = (await call(client, "verify_citations", output=tower_draft(url), allow_fetch=False))[1]
        return [default, refused]

    for result in Server(tmp_path, anthropic_env(anthropic, site)).run(body):
        assert result["passed"] is None and result["overall_score"] is None and result["fetch"] is False
        assert [(c["resolve_status"], c["reason"]) for c in result["citations"]] == [
            ("skipped", "fetching is off")
        ] * 2
        assert result["total_skipped"] == 2 and result["total_cost_usd"] == 0
        assert any("allow_fetch" in note for note in result["notes"])
    assert site.hits() == 0 and anthropic.calls == []


def test_the_server_may_allow_fetching_and_a_call_may_still_refuse(
    tmp_path: Path, site: SourceServer, anthropic: LLMServer
) -> None:
    url = site.add("/tower.html", TOWER, "text/html; charset=utf-8")

    async def body(client: ClientSession) -> tuple[dict[str, Any], dict[str, Any]]:
        allowed = (await call(client, "verify_citations", output=tower_draft(url)))[1]
        refused = (await call(client, "verify_citations", output=tower_draft(url), allow_fetch=False))[1]
        return allowed, refused

    env = {**anthropic_env(anthropic, site), "CITECHECK_ALLOW_FETCH": "1"}
    allowed, refused = Server(tmp_path, env).run(body)
    assert allowed["fetch"] is True and allowed["passed"] is False and allowed["total_resolved"] == 2
    assert refused["fetch"] is False and refused["passed"] is None and refused["total_skipped"] == 2
    assert site.hits("/tower.html") == 1


def test_a_zero_cost_cap_makes_no_call(tmp_path: Path, site: SourceServer, anthropic: LLMServer) -> None:
    url = site.add("/tower.html", TOWER, "text/html; charset=utf-8")

    async def body(client: ClientSession) -> dict[str, Any]:
        return (
            await call(
                client, "verify_citations", output=tower_draft(url), allow_fetch=True, max_cost_usd_total=0
            )
        )[1]

    result = Server(tmp_path, anthropic_env(anthropic, site)).run(body)
    assert anthropic.calls == []
    assert result["passed"] is None and result["overall_score"] is None  # nothing judged: no verdict
    assert result["total_cost_usd"] == 0 and result["total_not_verified"] == 2
    for citation in result["citations"]:
        assert citation["resolve_status"] == "ok"  # fetched, then not judged
        assert citation["judge"]["limit"] is True and "cost cap" in citation["judge"]["error"]
    assert all("cost cap" in c["reason"] for c in result["claims"])


def test_citations_past_max_citations_are_skipped_not_failed(
    tmp_path: Path, site: SourceServer, anthropic: LLMServer
) -> None:
    tower = site.add("/tower.html", TOWER, "text/html; charset=utf-8")
    bridge = site.add("/bridge.html", BRIDGE, "text/html; charset=utf-8")
    third = site.add("/third.html", BRIDGE, "text/html; charset=utf-8")
    draft = (
        f"The tower was built by the company of [Gustave Eiffel]({tower}) for the 1889 fair.\n\n"
        f"[The bridge]({bridge}) opened to traffic in 1937.\n\n"
        f"[The bridge]({third}) is painted orange by robots.\n"
    )

    async def body(client: ClientSession) -> dict[str, Any]:
        return (await call(client, "verify_citations", output=draft, allow_fetch=True, max_citations=2))[1]

    result = Server(tmp_path, anthropic_env(anthropic, site)).run(body)
    assert [(c["resolve_status"], c["reason"]) for c in result["citations"]] == [
        ("ok", None),
        ("ok", None),
        ("skipped", "past max_citations"),
    ]
    assert site.hits("/third.html") == 0
    # The unchecked third claim (which the judge would not support) does not fail the draft.
    assert result["passed"] is True and result["overall_score"] == 1.0 and result["failing"] == []
    assert any("max_citations=2" in note for note in result["notes"])


def test_the_ssrf_guard_and_the_allowlist_are_the_cli_s(
    tmp_path: Path, site: SourceServer, anthropic: LLMServer
) -> None:
    url = site.add("/tower.html", TOWER, "text/html; charset=utf-8")

    async def body(client: ClientSession) -> dict[str, Any]:
        return (await call(client, "verify_citations", output=tower_draft(url), allow_fetch=True))[1]

    # Without CITECHECK_ALLOW_PRIVATE_HOSTS a loopback link is not a source, whatever the call
    # says (citecheck.exclusions): never fetched, and its claims are left without a citation —
    # the 1889 one states a date, so it is unsourced; the other was a claim only for its link.
    guarded = Server(tmp_path, {"ANTHROPIC_API_KEY": "sk-ant-e2e", "ANTHROPIC_BASE_URL": anthropic.base_url})
    result = guarded.run(body)
    assert result["citations"] == [] and [c["verdict"] for c in result["claims"]] == ["unsourced"]
    assert "- Links not treated as sources: 2 (localhost 2)" in result["report_markdown"]
    assert result["passed"] is None and result["failing"] == []

    async def allowlisted(client: ClientSession) -> dict[str, Any]:
        return (
            await call(
                client,
                "verify_citations",
                output=tower_draft(url),
                allow_fetch=True,
                domain_allowlist=["example.org"],
            )
        )[1]

    result = Server(tmp_path, anthropic_env(anthropic, site)).run(allowlisted)
    assert [c["resolve_status"] for c in result["citations"]] == ["error", "error"]
    assert "allowed" in result["citations"][0]["reason"]
    assert site.hits() == 0 and anthropic.calls == []


# ------------------------------------------------------------------ extract_claims


def test_extract_claims_lists_claims_citations_and_their_resolution(
    tmp_path: Path, site: SourceServer
) -> None:
    url = site.add("/report.html", BRIDGE)
    draft = (
        "# Draft\n\n"
        "Sales grew 35% in 2023 [1].\n\n"
        "The bridge opened in 1937 (Smith, 2020).\n\n"
        "Revenue doubled last year.\n\n"
        "## References\n\n"
        f"1. Annual report. {url}\n"
        "2. Smith, J. (2020). A history of bridges. https://doi.org/10.1000/bridges\n"
    )

    async def body(client: ClientSession) -> tuple[bool, dict[str, Any]]:
        return await call(client, "extract_claims", output=draft, file_name="posts/draft.md")

    is_error, result = Server(tmp_path, {}).run(body)  # no key, no fetch: extraction needs neither
    assert not is_error, result
    assert result["file"] == "posts/draft.md"
    assert (result["total_claims"], result["total_citations"], result["total_resolved"]) == (3, 2, 2)
    assert result["total_unsourced"] == 1
    sales, bridge, revenue = result["claims"]
    assert {"statistic", "temporal"} <= set(sales["kinds"]) and sales["line"] == 3
    assert (sales["citations"][0]["kind"], sales["citations"][0]["url"]) == ("numbered", url)
    assert bridge["citations"][0]["kind"] == "author_year"
    assert bridge["citations"][0]["url"] == "https://doi.org/10.1000/bridges"
    assert revenue["citations"] == []
    assert [r["label"] for r in result["references"]] == ["1", "2"]
    assert site.hits() == 0


# ------------------------------------------------------------------ error codes


def test_errors_without_a_key_and_with_bad_arguments(tmp_path: Path, site: SourceServer) -> None:
    url = site.add("/tower.html", TOWER, "text/html; charset=utf-8")

    async def body(client: ClientSession) -> dict[str, dict[str, Any]]:
        draft = tower_draft(url)
        errors = {
            "no key": await error_of(client, "verify_citations", output=draft, allow_fetch=True),
            "no base url": await error_of(
                client, "verify_citations", output=draft, provider="openai-compatible", allow_fetch=True
            ),
            "too many": await error_of(client, "verify_citations", output=draft, max_citations=51),
            "typo": await error_of(client, "verify_citations", output=draft, max_citation=5),
            "no draft": await error_of(client, "verify_citations", model="claude-sonnet-4-6"),
            "provider": await error_of(client, "verify_citations", output=draft, provider="acme"),
            "fail_on": await error_of(
                client, "verify_citations", output=draft, provider="none", fail_on=["x"]
            ),
            "binary": await error_of(client, "extract_claims", output="a\x00b"),
            "tool": await error_of(client, "summarise"),
        }
        try:
            await client.read_resource("citecheck://evaluations/0123456789abcdef")
        except MCPError as exc:
            errors["evaluation"] = exc.data["error"]
        return errors

    errors = Server(tmp_path, {}).run(body)
    assert errors["no key"]["code"] == "JUDGE_NOT_ENABLED"
    assert "ANTHROPIC_API_KEY" in errors["no key"]["message"]
    assert any("env" in step for step in errors["no key"]["recovery"])
    assert any('provider "none"' in step for step in errors["no key"]["recovery"])
    assert errors["no base url"]["code"] == "JUDGE_NOT_ENABLED"
    assert "CITECHECK_BASE_URL" in errors["no base url"]["recovery"][0]
    for case in ("too many", "typo", "no draft", "provider", "fail_on", "binary"):
        assert errors[case]["code"] == "INVALID_INPUT", case
    assert "max_citations" in errors["too many"]["message"] and "max_citation" in errors["typo"]["message"]
    assert "output" in errors["no draft"]["message"] and "acme" in errors["provider"]["message"]
    assert "NUL" in errors["binary"]["message"]
    assert errors["tool"]["code"] == "UNKNOWN_TOOL"
    assert errors["evaluation"]["code"] == "EVALUATION_NOT_FOUND"
    assert site.hits() == 0


def test_an_unknown_model_and_a_judge_that_always_fails(
    tmp_path: Path, site: SourceServer, anthropic: LLMServer
) -> None:
    url = site.add("/tower.html", TOWER, "text/html; charset=utf-8")

    def down(req: RecordedRequest) -> Reply:
        return error_reply(req.protocol, 500, "overloaded", headers={"retry-after-ms": "1"})

    anthropic.responder = down

    async def body(client: ClientSession) -> tuple[dict[str, Any], int, dict[str, Any]]:
        unknown = await error_of(
            client, "verify_citations", output=tower_draft(url), model="claude-imaginary-9", allow_fetch=True
        )
        fetched_before_judging = site.hits()
        failed = await error_of(client, "verify_citations", output=tower_draft(url), allow_fetch=True)
        return unknown, fetched_before_judging, failed

    unknown, hits_after_unknown, failed = Server(tmp_path, anthropic_env(anthropic, site)).run(body)
    assert unknown["code"] == "JUDGE_UNKNOWN_MODEL" and "claude-imaginary-9" in unknown["message"]
    assert any("claude-sonnet-4-6" in step for step in unknown["recovery"])
    assert hits_after_unknown == 0  # the model is checked before anything is fetched
    assert failed["code"] == "JUDGE_FAILED" and "every judge call failed" in failed["message"]
    assert anthropic.calls  # it was tried, and every call failed: an error, never a pass


def test_a_bad_base_url_and_a_store_that_cannot_be_written(tmp_path: Path, site: SourceServer) -> None:
    url = site.add("/tower.html", TOWER, "text/html; charset=utf-8")

    async def body(client: ClientSession) -> dict[str, Any]:
        return await error_of(client, "verify_citations", output=tower_draft(url), allow_fetch=True)

    env = {
        "OPENAI_API_KEY": "sk-e2e",
        "CITECHECK_BASE_URL": "ftp://127.0.0.1/v1",
        "CITECHECK_ALLOW_PRIVATE_HOSTS": site.host,
    }
    config = Server(tmp_path, env).run(body)
    assert config["code"] == "CONFIG_ERROR" and "ftp://" in config["message"]

    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder should be")
    store = Server(tmp_path, {**env, "CITECHECK_BASE_URL": "", "CITECHECK_CACHE_HOME": str(blocked)}).run(
        body
    )
    assert store["code"] == "STORE_FAILED" and "CITECHECK_CACHE_HOME" in store["recovery"][0]
    assert site.hits() == 0  # nothing is fetched for a result that could not be kept


def test_a_provider_error_that_echoes_the_key_never_reaches_the_agent(
    tmp_path: Path, site: SourceServer, anthropic: LLMServer
) -> None:
    url = site.add("/tower.html", TOWER, "text/html; charset=utf-8")
    anthropic.responder = echo_credentials_error
    key = anthropic_env(anthropic, site)["ANTHROPIC_API_KEY"]

    async def body(client: ClientSession) -> dict[str, Any]:
        return await error_of(client, "verify_citations", output=tower_draft(url), allow_fetch=True)

    failed = Server(tmp_path, anthropic_env(anthropic, site)).run(body)
    assert failed["code"] == "JUDGE_FAILED"
    assert anthropic.calls and key in str(anthropic.calls[0].headers)  # it was sent, and echoed back
    assert key not in json.dumps(failed)
    assert key not in (tmp_path / "server.stderr").read_text(encoding="utf-8")


# ------------------------------------------------------------------ issue 30: the store

MCP_KEY = "sk-ant-api03-" + "Mc9Pq2Lx7Vb4Nz1Kw8Hr5Jt3Gy6Fd0SaUe"


def _store_files(home: Path) -> dict[str, str]:
    """Every file of the server's folder (the evaluations, SQLite's journal if any, the source
    and verdict cache), as text."""
    return {
        str(p.relative_to(home)): p.read_bytes().decode("utf-8", "replace")
        for p in sorted(home.rglob("*"))
        if p.is_file()
    }


def test_an_echoed_key_and_url_credentials_are_neither_served_nor_stored(
    tmp_path: Path, site: SourceServer, anthropic: LLMServer
) -> None:
    """Issue 30: the judge echoes the server's key in every form in its rationale and evidence;
    the draft cites a URL with userinfo, a token and the key as `q=`. The result, the stored
    evaluation read back, the resource list, the store's bytes and the server's stderr hold
    none of it; the store is private to the user (folder 0700, database 0600)."""
    url = site.add("/tower.html", TOWER, "text/html; charset=utf-8")
    creds = url.replace("http://", "http://reader:s3cret-pass@") + f"?token=tok-abc-123&q={MCP_KEY}"
    draft = tower_draft(url) + f"\nThe tower was painted in 1889, says [a painter]({creds}).\n"
    anthropic.responder = echo_key_judge
    server = Server(tmp_path, {**anthropic_env(anthropic, site), "ANTHROPIC_API_KEY": MCP_KEY})

    async def body(client: ClientSession) -> tuple[dict[str, Any], str, str]:
        is_error, result = await call(client, "verify_citations", output=draft, allow_fetch=True)
        assert not is_error, result
        stored = await client.read_resource(f"citecheck://evaluations/{result['id']}")
        listed = await client.list_resources()
        return result, stored.contents[0].text, listed.model_dump_json()  # type: ignore[union-attr]

    result, stored, listed = server.run(body)
    assert {request_key(call) for call in anthropic.calls} == {MCP_KEY}  # sent, and echoed back
    home = tmp_path / "home"
    texts = {
        "result": json.dumps(result, ensure_ascii=False),
        "stored": stored,
        "listed": listed,
        "stderr": server.errlog.read_text(encoding="utf-8"),
        **_store_files(home),
    }
    assert "evaluations.sqlite3" in texts
    for name, text in texts.items():
        assert leaks(text, MCP_KEY) == [], name
    for name in ("result", "stored", "evaluations.sqlite3"):
        for secret in ("s3cret-pass", "tok-abc-123"):
            assert secret not in texts[name], (name, secret)
    assert json.loads(stored) == result
    rationales = [c["judge"]["rationale"] for c in result["citations"] if c["judge"]]
    assert rationales and all("raw: ***" in r and "zero-width interleaved: ***" in r for r in rationales)
    assert any(
        (c["url"] or "").startswith("http://***@") and "token=***&q=***" in c["url"]
        for c in result["citations"]
    )
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "evaluations.sqlite3").stat().st_mode) == 0o600


def test_an_older_store_readable_by_others_is_made_private_and_redacted(tmp_path: Path) -> None:
    """A store written before issue 30's fix: mode 0644, an evaluation holding the key
    verbatim. The next server, as it starts, makes it 0600 (and says so on stderr) and redacts
    the row in the file itself."""
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    db = home / "evaluations.sqlite3"
    leaked = {"id": "old", "notes": [f"the provider said: Bearer {MCP_KEY}"], "passed": None}
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TABLE evaluations (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, passed INTEGER, "
            "summary TEXT NOT NULL, result TEXT NOT NULL)"
        )
        conn.execute(
            "INSERT INTO evaluations VALUES (?, ?, ?, ?, ?)",
            ("old", "2025-01-01T00:00:00", None, f"draft.md: key {MCP_KEY}", json.dumps(leaked)),
        )
    conn.close()
    db.chmod(0o644)
    assert MCP_KEY in db.read_bytes().decode("utf-8", "replace")  # the old store's exposure

    async def body(client: ClientSession) -> tuple[str, str]:
        read = await client.read_resource("citecheck://evaluations/old")
        listed = await client.list_resources()
        return read.contents[0].text, listed.model_dump_json()  # type: ignore[union-attr]

    server = Server(tmp_path, {"ANTHROPIC_API_KEY": MCP_KEY})
    served, listed = server.run(body)
    assert json.loads(served)["notes"] == ["the provider said: Bearer ***"]
    assert leaks(listed, MCP_KEY) == [] and "key ***" in listed
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    said = server.errlog.read_text(encoding="utf-8")
    assert "was readable by others (mode 644): made private (600)" in said
    assert leaks(db.read_bytes().decode("utf-8", "replace"), MCP_KEY) == []


def test_a_draft_s_internal_links_are_followed_only_in_the_server_s_root(tmp_path: Path) -> None:
    """Issue 34: with CITECHECK_ROOT the draft is the file its `file_name` names in that checkout,
    and its relative link is checked against the page there; a call cannot name another root."""
    root = tmp_path / "checkout"
    (root / "docs" / "reference").mkdir(parents=True)
    (root / "docs" / "reference" / "config.md").write_text(
        "# Configuration\n\n## Timeout\n\nThe default timeout is 30 seconds.\n\n## Retries\n\nThree.\n"
    )
    draft = "# Setup\n\nThe default timeout is 60 seconds ([reference](../reference/config.md#timeout)).\n"

    async def body(client: ClientSession) -> dict[str, Any]:
        args = {"output": draft, "file_name": "docs/guides/setup.md", "provider": "none", "allow_fetch": True}
        return (await call(client, "verify_citations", **args))[1]

    with_root = Server(tmp_path, {"CITECHECK_ROOT": str(root)}).run(body)
    [cit] = with_root["citations"]
    assert (cit["kind"], cit["path"], cit["resolve_status"]) == (
        "internal",
        "docs/reference/config.md#timeout",
        "ok",
    )
    assert with_root["passed"] is False and with_root["claims"][0]["verdict"] == "fail"
    without = Server(tmp_path, {}).run(body)
    [cit] = without["citations"]
    assert cit["resolve_status"] == "error" and "give the draft's root" in cit["reason"]
    assert without["passed"] is None
