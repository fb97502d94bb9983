"""`citecheck mcp`: the tools of `citecheck.mcp.tools` served on stdio with the official MCP
Python SDK (`mcp` 2.x), through its low-level `Server` (README, "For writers and agents").

The low-level server rather than `MCPServer` (the SDK's FastMCP): the tools' schemas are
citecheck's own pydantic models (`citecheck.mcp.schema`), and every failure, a malformed
argument included, must reach the agent as the same error document
`{"error": {"code", "message", "recovery"}}` — MCPServer answers a bad argument with text of
its own before the tool runs.

A tool's result is its JSON both as `structuredContent` (checked by clients against the tool's
`outputSchema`) and as text, for clients that read only text; an error is the error document
the same two ways, with `isError` set. An evaluation is read back as the resource
`citecheck://evaluations/{id}` (application/json); an unknown id is a JSON-RPC
invalid-params error whose `data` is the error document.

The SDK moves the process's fd 1 to stderr while it serves, so nothing a stage or an
extraction worker prints can corrupt the protocol on stdout.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Mapping
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR as RPC_INTERNAL_ERROR
from mcp.types import INVALID_PARAMS

from citecheck import __version__
from citecheck.mcp.errors import EVALUATION_NOT_FOUND, INTERNAL_ERROR, UNKNOWN_TOOL, ToolError
from citecheck.mcp.schema import ExtractInput, ExtractOutput, VerifyInput, VerifyOutput
from citecheck.mcp.tools import ServerEnvironment, Tools
from citecheck.redact import Redactor

EVALUATION_PREFIX = "citecheck://evaluations/"
EVALUATION_TEMPLATE = EVALUATION_PREFIX + "{id}"
RECENT_EVALUATIONS = 20  # how many the resource list shows
_TOOLS_STEP = "call verify_citations or extract_claims"

INSTRUCTIONS = """citecheck checks the claims of a Markdown draft against the sources it cites.
Call extract_claims (no network, no cost) to see the claims and citations it finds; call
verify_citations to fetch the cited sources (only with allow_fetch=true, or when the server
allows fetching) and have the judge model decide whether each source supports its claim,
under a hard cost cap. Every result is kept: read it again as citecheck://evaluations/{id}."""

VERIFY_DESCRIPTION = """Verify the citations of a Markdown draft (`output`): the claims it makes
(statistics, quotes, dates, comparisons, linked assertions), the sources they cite (links,
footnotes, [N] and author-year references, DOIs), each source fetched through an SSRF guard
(only with allow_fetch, or when the server sets CITECHECK_ALLOW_FETCH=1) and checked by
deterministic number/quote/date checks and an LLM judge whose evidence quote must be on the page.
Returns passed (true/false, null when nothing was verified), overall_score (supported/judged),
totals, each citation with resolve_status ok|skipped|error, its source and the judge's answer,
citecheck's per-claim verdicts, the cost, and the Verification Report in Markdown. Costs at most
max_cost_usd_total on the server's API key."""

EXTRACT_DESCRIPTION = """List the claims of a Markdown draft (`output`) with their kinds
(statistic, quote, temporal, comparative, hyperlinked), their citations and how each resolves
to a URL (references, footnotes, DOIs), and the draft's reference list. No network, no cost."""


def tool_list() -> list[types.Tool]:
    return [
        types.Tool(
            name="verify_citations",
            title="Verify the citations of a draft",
            description=VERIFY_DESCRIPTION,
            input_schema=VerifyInput.model_json_schema(),
            output_schema=VerifyOutput.model_json_schema(),
            annotations=types.ToolAnnotations(
                read_only_hint=True, open_world_hint=True, idempotent_hint=False
            ),
        ),
        types.Tool(
            name="extract_claims",
            title="List the claims and citations of a draft",
            description=EXTRACT_DESCRIPTION,
            input_schema=ExtractInput.model_json_schema(),
            output_schema=ExtractOutput.model_json_schema(),
            annotations=types.ToolAnnotations(
                read_only_hint=True, open_world_hint=False, idempotent_hint=True
            ),
        ),
    ]


def _result(document: dict[str, Any], redact: Redactor, *, is_error: bool = False) -> types.CallToolResult:
    # Every answer leaves through here: no secret of the server's environment (an echoed key in a
    # provider's error) and no secret-looking URL part reaches the agent.
    document = redact.data(document)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(document, ensure_ascii=False))],
        structured_content=document,
        is_error=is_error,
    )


def _internal(exc: BaseException, redact: Redactor) -> ToolError:
    sys.stderr.write(redact("".join(traceback.format_exception(exc))))
    return ToolError(
        INTERNAL_ERROR,
        f"internal error: {type(exc).__name__}: {exc}",
        ["please report it with the server's standard error output (it has the traceback)"],
    )


def build_server(environ: Mapping[str, str], redact: Redactor) -> Server[Any]:
    """The server, its tools bound to the environment it starts with; `redact` is the run's
    (`citecheck.judge.providers.run_redactor` of that environment)."""
    tools = Tools(ServerEnvironment.from_environ(environ, redact))
    tools.store.upgrade()  # an older store: made private and redacted before anything is served

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list())

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        try:
            if params.name == "verify_citations":
                return _result(await tools.verify_citations(arguments), redact)
            if params.name == "extract_claims":
                return _result(tools.extract_claims(arguments), redact)
            raise ToolError(UNKNOWN_TOOL, f"no tool {params.name!r}", [_TOOLS_STEP])
        except ToolError as exc:
            return _result(exc.document(), redact, is_error=True)
        except Exception as exc:  # a bug must still answer the agent, in the same shape
            return _result(_internal(exc, redact).document(), redact, is_error=True)

    async def list_resources(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        try:
            recent = tools.store.recent(RECENT_EVALUATIONS)
        except Exception:  # an unreadable store lists nothing; reading one says why
            recent = []
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    name=f"evaluation {e.id}",
                    uri=EVALUATION_PREFIX + e.id,
                    description=redact(f"{e.created_at}: {e.summary}"),
                    mime_type="application/json",
                )
                for e in recent
            ]
        )

    async def list_templates(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    name="evaluation",
                    uri_template=EVALUATION_TEMPLATE,
                    description="a verify_citations result, by its id",
                    mime_type="application/json",
                )
            ]
        )

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            if not uri.startswith(EVALUATION_PREFIX):
                raise ToolError(EVALUATION_NOT_FOUND, f"no resource {uri!r}", [f"read {EVALUATION_TEMPLATE}"])
            found = tools.evaluation(uri.removeprefix(EVALUATION_PREFIX))
        except ToolError as exc:
            raise MCPError(INVALID_PARAMS, redact(exc.message), data=redact.data(exc.document())) from None
        except Exception as exc:
            error = _internal(exc, redact)
            raise MCPError(
                RPC_INTERNAL_ERROR, redact(error.message), data=redact.data(error.document())
            ) from None
        # The store serves only redacted text (`EvaluationStore.load`).
        text = json.dumps(found, ensure_ascii=False)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type="application/json", text=text)]
        )

    return Server(
        "citecheck",
        version=__version__,
        title="citecheck",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


def serve(environ: Mapping[str, str], redact: Redactor) -> None:
    """Serve on stdin/stdout until the client closes stdin."""
    server = build_server(environ, redact)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
