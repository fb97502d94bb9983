"""A GitHub REST API stand-in on 127.0.0.1 that PyGithub talks to through `base_url`.

It speaks the parts of the real API the Action uses: issue comments (list with Link-header
pagination, create, update), PR files (with `patch`, at most `files_cap` of them, as GitHub
lists at most 3,000), file contents at a commit, and the repository / issue / pull objects
(the pull with `changed_files` and its head and base commits). A repository can be backed by
a real git repo (`serve_repo`): its PR files are then `git diff base...head` and its contents
`git show`, the way GitHub computes them; a commit it does not have is GitHub's `404 No commit
found for the ref …`. Authorization is checked like GitHub does (`401 Bad credentials`);
`forbid_writes` answers writes with GitHub's `403 Resource not accessible by integration`, as
a fork PR's read-only token gets.

The token acts as one account, `identity` (default: `github-actions[bot]`, the account of a
workflow's `GITHUB_TOKEN`): comments it creates are that account's, GraphQL `viewer` names it
(login and `databaseId`, as GitHub answers an installation token), and REST `GET /user`
answers a user's token but refuses an App's bot (`403 Resource not accessible by
integration`), as GitHub does. Comments by other accounts are added with `add_comment(user=)`;
like GitHub with a token that may write to the repository, the server lets any comment be
edited, so a test sees which one the client chose. Every request is logged for the tests to
assert on.

    with GitHubServer(token="t0k") as gh:
        gh.add_pr_files("o/r", 7, [{"filename": "a.md", "status": "modified", "patch": "@@ ..."}])
        gh.serve_repo("o/r", Path("/tmp/repo")); gh.set_pull("o/r", 8, head_sha=h, base_sha=b)
        Github(auth=Auth.Token("t0k"), base_url=gh.url)...
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from tests.servers.gitrepo import git

BOT = {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}
FORBIDDEN = "Resource not accessible by integration"
_TIME = "2026-11-29T00:00:00Z"


@dataclass
class LoggedRequest:
    method: str
    path: str  # without the query string
    query: dict[str, list[str]]
    body: Any
    authorization: str | None


@dataclass
class GitHubState:
    token: str
    comments: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    pr_files: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    pulls: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)  # extra PR fields
    repos: dict[str, Path] = field(default_factory=dict)  # git repos backing files and contents
    files_cap: int = 3000
    requests: list[LoggedRequest] = field(default_factory=list)
    forbid_writes: bool = False
    identity: dict[str, Any] = field(default_factory=lambda: dict(BOT))  # who the token acts as
    graphql: bool = True  # False: no GraphQL endpoint (404), as on a server without one
    contents_status: int | None = None  # answer the contents API with this error status
    echo_auth: bool = False  # error messages quote the Authorization header (as some proxies do)
    next_id: int = 1000
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
        pass

    # -- plumbing

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str) -> None:
        if self.server.state.echo_auth:
            message += f" (Authorization: {self.headers.get('Authorization')})"
        self._send(status, {"message": message, "documentation_url": "https://docs.github.com/rest"})

    def _handle(self, method: str) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            self._error(400, "Problems parsing JSON")
            return
        state = self.server.state
        auth = self.headers.get("Authorization")
        with state.lock:
            state.requests.append(LoggedRequest(method, parts.path, parse_qs(parts.query), body, auth))
        if auth not in (f"token {state.token}", f"Bearer {state.token}"):
            self._error(401, "Bad credentials")
            return
        seg = [s for s in parts.path.split("/") if s]
        query = parse_qs(parts.query)
        if seg == ["graphql"] and method == "POST" and state.graphql:
            self._graphql(body)
            return
        if seg == ["user"] and method == "GET":
            with state.lock:
                me = dict(state.identity)
            if me.get("type") == "Bot":  # an installation token has no user to show
                self._error(403, FORBIDDEN)
            else:
                self._send(200, me)
            return
        if len(seg) < 3 or seg[0] != "repos":
            self._error(404, "Not Found")
            return
        repo = f"{seg[1]}/{seg[2]}"
        rest = seg[3:]
        base = self.server.base_url
        if method in ("POST", "PATCH") and state.forbid_writes:
            self._error(403, FORBIDDEN)
            return
        if method == "GET" and rest == []:
            self._send(200, {"full_name": repo, "url": f"{base}/repos/{repo}", "name": seg[2]})
        elif method == "GET" and len(rest) == 2 and rest[0] in ("issues", "pulls") and rest[1].isdigit():
            kind, number = rest[0], int(rest[1])
            obj = {"number": number, "url": f"{base}/repos/{repo}/{kind}/{number}", "state": "open"}
            with state.lock:
                extra = state.pulls.get((repo, number), {}) if kind == "pulls" else {}
            if kind == "pulls":
                extra = {**extra, "changed_files": len(self.server.pr_files(repo, number))}
            self._send(200, {**obj, **extra})
        elif len(rest) == 3 and rest[0] == "issues" and rest[1].isdigit() and rest[2] == "comments":
            key = (repo, int(rest[1]))
            if method == "GET":
                with state.lock:
                    items = list(state.comments.get(key, []))
                self._page(items, query, f"{base}{parts.path}")
            elif method == "POST":
                if not isinstance(body, dict) or not isinstance(body.get("body"), str):
                    self._error(422, "Invalid request: body is required")
                    return
                with state.lock:
                    me = dict(state.identity)
                comment = self.server.new_comment(repo, key[1], body["body"], me)
                self._send(201, comment)
            else:
                self._error(404, "Not Found")
        elif (
            len(rest) == 3 and rest[:2] == ["issues", "comments"] and rest[2].isdigit() and method == "PATCH"
        ):
            comment_id = int(rest[2])
            with state.lock:
                found = next(
                    (
                        c
                        for cs in state.comments.values()
                        for c in cs
                        if c["id"] == comment_id and repo in c["url"]
                    ),
                    None,
                )
                if found is not None and isinstance(body, dict) and isinstance(body.get("body"), str):
                    found["body"] = body["body"]
                    found["updated_at"] = _TIME
            if found is None:
                self._error(404, "Not Found")
            else:
                self._send(200, found)
        elif method == "GET" and len(rest) == 3 and rest[0] == "pulls" and rest[2] == "files":
            items = self.server.pr_files(repo, int(rest[1]))[: state.files_cap]
            self._page(items, query, f"{base}{parts.path}")
        elif method == "GET" and len(rest) >= 2 and rest[0] == "contents":
            path = unquote("/".join(rest[1:]))
            ref = query.get("ref", ["HEAD"])[0]
            if state.contents_status is not None:
                self._error(state.contents_status, FORBIDDEN if state.contents_status == 403 else "Error")
            elif not self.server.has_commit(repo, ref):
                self._error(404, f"No commit found for the ref {ref}")
            elif (found := self.server.contents(repo, path, ref)) is None:
                self._error(404, "Not Found")
            else:
                self._send(200, found)
        else:
            self._error(404, "Not Found")

    def _graphql(self, body: Any) -> None:
        query = body.get("query", "") if isinstance(body, dict) else ""
        if "viewer" not in query:
            self._send(200, {"errors": [{"message": "this stand-in answers only `viewer`"}]})
            return
        with self.server.state.lock:
            me = dict(self.server.state.identity)
        # GitHub's viewer of an App installation token is its bot, `name[bot]`, with the bot's
        # REST user id as databaseId.
        self._send(200, {"data": {"viewer": {"login": me["login"], "databaseId": me["id"]}}})

    def _page(self, items: list[dict[str, Any]], query: dict[str, list[str]], url: str) -> None:
        per_page = min(int(query.get("per_page", ["30"])[0]), 100)
        page = int(query.get("page", ["1"])[0])
        chunk = items[(page - 1) * per_page : page * per_page]
        headers = {}
        last = max(1, -(-len(items) // per_page))
        if page < last:
            headers["Link"] = (
                f'<{url}?per_page={per_page}&page={page + 1}>; rel="next", '
                f'<{url}?per_page={per_page}&page={last}>; rel="last"'
            )
        self._send(200, chunk, headers)

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PATCH(self) -> None:
        self._handle("PATCH")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: GitHubState) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}"

    def pr_files(self, repo: str, number: int) -> list[dict[str, Any]]:
        with self.state.lock:
            listed = list(self.state.pr_files.get((repo, number), []))
            root = self.state.repos.get(repo)
            pull = self.state.pulls.get((repo, number), {})
        if listed or root is None or "base" not in pull:
            return listed
        try:
            return pr_files_from_git(root, pull["base"]["sha"], pull["head"]["sha"])
        except AssertionError:  # a PR whose commits the repository does not have
            return []

    def has_commit(self, repo: str, ref: str) -> bool:
        with self.state.lock:
            root = self.state.repos.get(repo)
        if root is None:
            return True  # no repository behind it: every file is absent, whatever the ref
        try:
            git(root, "cat-file", "-e", f"{ref}^{{commit}}")
        except AssertionError:
            return False
        return True

    def contents(self, repo: str, path: str, ref: str) -> dict[str, Any] | list[dict[str, Any]] | None:
        with self.state.lock:
            root = self.state.repos.get(repo)
        if root is None:
            return None
        try:
            kind = git(root, "cat-file", "-t", f"{ref}:{path}")
        except AssertionError:
            return None
        if kind == "tree":  # a folder: GitHub lists its entries
            entries = []
            for line in git(root, "ls-tree", f"{ref}:{path}").splitlines():
                meta, name = line.split("\t", 1)
                entries.append(self._content(repo, f"{path}/{name}", ref, b"", meta.split()[1]))
            return entries
        return self._content(repo, path, ref, git(root, "show", f"{ref}:{path}").encode() + b"\n", "blob")

    def _content(self, repo: str, path: str, ref: str, data: bytes, kind: str) -> dict[str, Any]:
        return {
            "type": "file" if kind == "blob" else "dir",
            "encoding": "base64",
            "content": base64.encodebytes(data).decode(),
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "size": len(data),
            "sha": hashlib.sha1(data).hexdigest(),
            "url": f"{self.base_url}/repos/{repo}/contents/{path}?ref={ref}",
        }

    def new_comment(self, repo: str, number: int, body: str, user: dict[str, Any]) -> dict[str, Any]:
        with self.state.lock:
            self.state.next_id += 1
            cid = self.state.next_id
            comment = {
                "id": cid,
                "node_id": f"IC_{cid}",
                "url": f"{self.base_url}/repos/{repo}/issues/comments/{cid}",
                "html_url": f"https://github.com/{repo}/pull/{number}#issuecomment-{cid}",
                "issue_url": f"{self.base_url}/repos/{repo}/issues/{number}",
                "body": body,
                "user": dict(user),
                "created_at": _TIME,
                "updated_at": _TIME,
            }
            self.state.comments.setdefault((repo, number), []).append(comment)
        return comment


class GitHubServer:
    """Start with `with GitHubServer() as gh:`; `gh.url` is the base URL for PyGithub."""

    def __init__(self, token: str = "ghs_test_token") -> None:
        self.state = GitHubState(token=token)
        self._server = _Server(self.state)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return self._server.base_url

    @property
    def token(self) -> str:
        return self.state.token

    def __enter__(self) -> GitHubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- test helpers

    def add_comment(
        self, repo: str, number: int, body: str, user: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return self._server.new_comment(repo, number, body, user or BOT)

    def comments(self, repo: str, number: int) -> list[dict[str, Any]]:
        with self.state.lock:
            return [dict(c) for c in self.state.comments.get((repo, number), [])]

    def add_pr_files(self, repo: str, number: int, files: list[dict[str, Any]]) -> None:
        with self.state.lock:
            self.state.pr_files.setdefault((repo, number), []).extend(files)

    def serve_repo(self, repo: str, root: Path) -> None:
        """Answer `repo`'s PR files and contents from the git repository at `root`."""
        with self.state.lock:
            self.state.repos[repo] = root

    def set_pull(self, repo: str, number: int, *, head_sha: str, base_sha: str) -> None:
        """What `GET /repos/{repo}/pulls/{number}` says about the PR's commits."""
        with self.state.lock:
            self.state.pulls[(repo, number)] = {
                "head": {"sha": head_sha, "ref": f"pr-{number}"},
                "base": {"sha": base_sha, "ref": "main"},
            }

    def requests(self, method: str | None = None) -> list[LoggedRequest]:
        with self.state.lock:
            return [r for r in self.state.requests if method is None or r.method == method]


@pytest.fixture
def github_server() -> Iterator[GitHubServer]:
    with GitHubServer() as gh:
        yield gh


def pr_files_from_git(root: Path, base: str, head: str) -> list[dict[str, Any]]:
    """The PR files API's entries for `base...head` in a real repository, as GitHub makes them:
    the three-dot diff (from the merge base), renames detected, `patch` from the first hunk."""
    entries: list[dict[str, Any]] = []
    quiet = ("-c", "core.quotePath=false")
    for line in git(root, *quiet, "diff", "--name-status", "-M", f"{base}...{head}").splitlines():
        code, *names = line.split("\t")
        status = {"A": "added", "D": "removed", "M": "modified", "R": "renamed"}[code[0]]
        entry: dict[str, Any] = {"filename": names[-1], "status": status}
        if status == "renamed":
            entry["previous_filename"] = names[0]
        text = git(root, *quiet, "diff", "-M", f"{base}...{head}", "--", *names)
        if "\n@@" in text:
            entry["patch"] = text[text.index("\n@@") + 1 :]
        entries.append(entry)
    return entries
