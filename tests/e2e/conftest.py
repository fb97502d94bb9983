"""The end-to-end tests' short names for the shared stand-in servers (`tests/servers`): an
Action run needs a source server, an OpenAI-protocol judge and a GitHub REST server."""

from __future__ import annotations

import pytest

from tests.servers.github_server import GitHubServer
from tests.servers.llm_server import LLMServer
from tests.servers.source_server import SourceServer


@pytest.fixture
def sources(source_server: SourceServer) -> SourceServer:
    return source_server


@pytest.fixture
def judge(openai_server: LLMServer) -> LLMServer:
    return openai_server


@pytest.fixture
def gh(github_server: GitHubServer) -> GitHubServer:
    return github_server
