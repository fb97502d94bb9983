"""Shared fixtures: the real loopback servers every integration test talks to, and a state
folder of each test's own."""

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest_plugins = [
    "tests.servers.source_server",
    "tests.servers.llm_server",
    "tests.servers.github_server",
    "tests.servers.archive_server",
]


@pytest.fixture(autouse=True)
def own_state_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """The CLI keeps its cache secret in the user's state folder (`citecheck.cache`): each test
    has a folder of its own, never the user's, and no secret from the environment."""
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.delenv("CITECHECK_CACHE_SECRET", raising=False)
    yield state
