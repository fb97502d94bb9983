"""`citecheck mcp`: the MCP server of the agent's path — a draft in, a verdict out (README,
"For writers and agents"; docs/ARCHITECTURE.md, the entry points).

- `schema`: the tools' input and output models and the JSON error document (the CLI's too);
- `errors`: citecheck's errors as the tools' stable error codes;
- `store`: the evaluations, kept in SQLite in the user's cache folder;
- `tools`: `verify_citations` and `extract_claims`, on the pipeline the CLI runs;
- `server`: the MCP SDK's low-level server on stdio.

Importing this package loads nothing: the SDK is imported by `server` only.
"""
