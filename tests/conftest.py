"""Shared fixtures: the real loopback servers every integration test talks to."""

pytest_plugins = [
    "tests.servers.source_server",
    "tests.servers.llm_server",
    "tests.servers.github_server",
    "tests.servers.archive_server",
]
