"""A GitHub REST API stand-in on 127.0.0.1 that PyGithub talks to through `base_url`.

It speaks the parts of the real API the Action uses: issue comments (list with Link-header
pagination, create, update), PR files (with `patch`, at most `files_cap` of them, as GitHub
lists at most 3,000), file contents at a commit, the comparison of two commits
(`compare/BASE...HEAD`: its files with patches, at most 300 as GitHub lists), a commit's
tarball (`tarball/REF`: a 302 to a download URL that carries a one-time token instead of the
Authorization header, as codeload.github.com's does; the archive is `git archive`'s, so a
committed symbolic link is a link in it, as in GitHub's), and the
repository / issue / pull objects (the pull with `changed_files` and its head and base
commits). A repository can be backed by a real git repo (`serve_repo`): its PR files (and a
comparison's) are then `git diff base...head` and its contents
`git show`, the way GitHub computes them; a commit it does not have is GitHub's `404 No commit
found for the ref …`. Authorization is checked like GitHub does (`401 Bad credentials`);
`forbid_writes` answers writes with GitHub's `403 Resource not accessible by integration`, as
a fork PR's read-only token gets; `fail(method, path_regex, status)` answers matching requests
with that error status and GitHub's message for it.

Limits are GitHub's: a comment body longer than 262,144 bytes of UTF-8 is `422 … Body is too
long (maximum is 65536 characters)` (or, with `comment_limit_chars`, longer than that many
characters, as a server counting the documented limit would). Check runs (`POST /check-runs`,
`PATCH /check-runs/{id}`, `GET` of one and of its annotations) need `checks_write` (a token with
`checks: write`; off by default, as for a workflow whose `permissions:` omit it: 403); an
`output` needs `title` and `summary`, takes at most 50 annotations per request (422 "Only 50
annotations are allowed per request." beyond), each with `path`, `start_line`, `end_line`, an
`annotation_level` of notice / warning / failure and a `message` (columns only on one line), and
each update appends its annotations; a head commit the backing repository lacks is `422 No
commit found for SHA`. `check_runs(repo)` shows what was recorded.

Pull-request reviews (`POST /pulls/{n}/reviews` with `comments[]` of `path`, `line`, `side`,
`body` and, over several lines, `start_line`; `GET /pulls/{n}/reviews` and `GET
/pulls/{n}/comments`) are validated as GitHub does where it matters: a comment's lines must be
in the PR's diff on the new side (`422 Line could not be resolved`), the commit must exist. Each
comment opens a review thread; GraphQL answers a PR's `reviewThreads` and the mutations
`minimizeComment` and `resolveReviewThread` (FORBIDDEN for a read-only token, or with
`graphql_writes` off). `reviews`, `review_comments` and `review_threads` show what was recorded.

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
import re
import subprocess
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
ANNOTATIONS_PER_REQUEST = 50
ANNOTATION_LEVELS = ("notice", "warning", "failure")
CONCLUSIONS = (
    "action_required",
    "cancelled",
    "failure",
    "neutral",
    "success",
    "skipped",
    "stale",
    "timed_out",
)
FORBIDDEN = "Resource not accessible by integration"
COMPARE_FILES_CAP = 300  # GitHub lists at most 300 files of a comparison
# What GitHub says with each error status (the ones a test asks `fail` for).
_MESSAGES = {
    401: "Bad credentials",
    403: FORBIDDEN,
    404: "Not Found",
    500: "Server Error",
    502: "Bad Gateway",
}
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
    failures: list[tuple[str, str, int]] = field(default_factory=list)  # (method, path regex, status)
    checks_write: bool = False  # the token may create and update check runs (`checks: write`)
    comment_limit_bytes: int = 262_144  # what GitHub.com accepts in a comment body (UTF-8 bytes)
    comment_limit_chars: int | None = None  # a server that counts the documented 65,536 characters
    check_runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    reviews: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    review_comments: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    # review threads by node id: {"id", "repo", "number", "isResolved", "comments": [comment ids]}
    threads: dict[str, dict[str, Any]] = field(default_factory=dict)
    graphql_writes: bool = True  # False: mutations answer FORBIDDEN, as for a token that may not
    archive_token: str = "codeload-one-time-token"  # what a tarball's download URL carries
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

    def _send_bytes(self, data: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _codeload(self, seg: list[str], query: dict[str, list[str]]) -> None:
        """`/_codeload/{owner}/{repo}/legacy.tar.gz/{sha}?token=…`: the download a tarball request
        redirects to; like codeload, it takes the URL's token, not the API's Authorization."""
        state = self.server.state
        if len(seg) != 5 or seg[3] != "legacy.tar.gz" or query.get("token") != [state.archive_token]:
            self._error(404, "Not Found")
            return
        with state.lock:
            root = state.repos.get(f"{seg[1]}/{seg[2]}")
        if root is None:
            self._error(404, "Not Found")
            return
        self._send_bytes(git_archive(root, seg[4], f"{seg[1]}-{seg[2]}-{seg[4][:7]}/"), "application/x-gzip")

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
        seg = [s for s in parts.path.split("/") if s]
        query = parse_qs(parts.query)
        if seg[:1] == ["_codeload"] and method == "GET":
            self._codeload(seg, query)
            return
        if auth not in (f"token {state.token}", f"Bearer {state.token}"):
            self._error(401, "Bad credentials")
            return
        with state.lock:
            failure = next(
                (st for m, rx, st in state.failures if m == method and re.search(rx, parts.path)), None
            )
        if failure is not None:
            self._error(failure, _MESSAGES.get(failure, "Error"))
            return
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
                if self._too_long(body["body"]):
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
            if isinstance(body, dict) and isinstance(body.get("body"), str) and self._too_long(body["body"]):
                return
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
        elif (
            len(rest) == 3 and rest[0] == "pulls" and rest[1].isdigit() and rest[2] in ("reviews", "comments")
        ):
            key = (repo, int(rest[1]))
            if method == "GET":
                with state.lock:
                    stored = state.reviews if rest[2] == "reviews" else state.review_comments
                    items = [dict(x) for x in stored.get(key, [])]
                self._page(items, query, f"{base}{parts.path}")
            elif method == "POST" and rest[2] == "reviews":
                problem = self.server.review_problem(repo, key[1], body)
                if problem:
                    self._send(422, {"message": "Unprocessable Entity", "errors": [problem]})
                    return
                with state.lock:
                    me = dict(state.identity)
                self._send(200, self.server.new_review(repo, key[1], body, me))
            else:
                self._error(404, "Not Found")
        elif rest and rest[0] == "check-runs":
            self._check_runs(method, repo, rest[1:], body, query, f"{base}{parts.path}")
        elif method == "GET" and len(rest) == 3 and rest[0] == "pulls" and rest[2] == "files":
            items = self.server.pr_files(repo, int(rest[1]))[: state.files_cap]
            self._page(items, query, f"{base}{parts.path}")
        elif method == "GET" and len(rest) == 2 and rest[0] == "compare" and "..." in rest[1]:
            base_ref, head_ref = unquote(rest[1]).split("...", 1)
            if not (self.server.has_commit(repo, base_ref) and self.server.has_commit(repo, head_ref)):
                self._error(404, "Not Found")
                return
            files = self.server.compare_files(repo, base_ref, head_ref)
            self._send(
                200,
                {
                    "url": f"{base}{parts.path}",
                    "status": "ahead",
                    "ahead_by": 1,
                    "behind_by": 0,
                    "total_commits": 1,
                    "commits": [],
                    "files": files[:COMPARE_FILES_CAP],
                },
            )
        elif method == "GET" and len(rest) == 2 and rest[0] == "tarball":
            ref = unquote(rest[1])
            with state.lock:
                root = state.repos.get(repo)
            if root is None or not self.server.has_commit(repo, ref):
                self._error(404, "Not Found")
                return
            sha = git(root, "rev-parse", f"{ref}^{{commit}}")
            token = state.archive_token
            location = f"{base}/_codeload/{repo}/legacy.tar.gz/{sha}?token={token}"
            self.send_response(302)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()
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

    def _too_long(self, text: str) -> bool:
        """GitHub's answer to a comment body over its limit (sent here; True: refused)."""
        state = self.server.state
        over = len(text.encode("utf-8")) > state.comment_limit_bytes
        if state.comment_limit_chars is not None:
            over = over or len(text) > state.comment_limit_chars
        if over:
            error = {
                "resource": "IssueComment",
                "code": "unprocessable",
                "field": "data",
                "message": "Body is too long (maximum is 65536 characters)",
            }
            self._send(
                422,
                {
                    "message": "Validation Failed",
                    "errors": [error],
                    "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
                },
            )
        return over

    def _check_runs(
        self, method: str, repo: str, rest: list[str], body: Any, query: dict[str, list[str]], url: str
    ) -> None:
        state = self.server.state
        if method in ("POST", "PATCH") and not state.checks_write:
            self._error(403, FORBIDDEN)
            return
        if method == "POST" and not rest:
            if not isinstance(body, dict) or not body.get("name") or not body.get("head_sha"):
                self._error(422, 'Invalid request.\n\n"name", "head_sha" weren\'t supplied.')
                return
            if not self.server.has_commit(repo, str(body["head_sha"])):
                self._error(422, f"No commit found for SHA: {body['head_sha']}")
                return
            problem = _check_run_problem(body)
            if problem:
                self._error(422, problem)
                return
            self._send(201, self.server.new_check_run(repo, body))
            return
        if not rest or not rest[0].isdigit():
            self._error(404, "Not Found")
            return
        with state.lock:
            run = state.check_runs.get(int(rest[0]))
            found = run is not None and run["repo"] == repo
        if not found or run is None:
            self._error(404, "Not Found")
        elif method == "PATCH" and len(rest) == 1:
            problem = _check_run_problem(body if isinstance(body, dict) else {})
            if problem:
                self._error(422, problem)
                return
            self._send(200, self.server.update_check_run(run, body))
        elif method == "GET" and len(rest) == 1:
            with state.lock:
                shown = self.server.check_run_json(run)
            self._send(200, shown)
        elif method == "GET" and rest[1:] == ["annotations"]:
            with state.lock:
                items = [dict(a) for a in run["annotations"]]
            self._page(items, query, url)
        else:
            self._error(404, "Not Found")

    def _graphql(self, body: Any) -> None:
        query = body.get("query", "") if isinstance(body, dict) else ""
        variables = (body.get("variables") if isinstance(body, dict) else None) or {}
        if "reviewThreads" in query or "minimizeComment" in query or "resolveReviewThread" in query:
            self._send(200, self.server.review_graphql(query, variables))
            return
        if "viewer" not in query:
            self._send(
                200, {"errors": [{"message": "this stand-in answers only `viewer` and review threads"}]}
            )
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


def _check_run_problem(body: dict[str, Any]) -> str | None:
    """What GitHub's validation of a check run's create / update body refuses (None: nothing)."""
    status, conclusion = body.get("status"), body.get("conclusion")
    if status is not None and status not in ("queued", "in_progress", "completed"):
        return f"Invalid request.\n\n{status!r} is not a valid status."
    if conclusion is not None and conclusion not in CONCLUSIONS:
        return f"Invalid request.\n\n{conclusion!r} is not a valid conclusion."
    if status == "completed" and conclusion is None:
        return 'Invalid request.\n\nNo subschema in "anyOf" matched: conclusion is required.'
    output = body.get("output")
    if output is None:
        return None
    if not isinstance(output, dict) or not output.get("title") or not isinstance(output.get("summary"), str):
        return 'Invalid request.\n\n"title", "summary" weren\'t supplied.'
    annotations = output.get("annotations", [])
    if not isinstance(annotations, list):
        return "Invalid request.\n\nFor 'properties/annotations', not an array."
    if len(annotations) > ANNOTATIONS_PER_REQUEST:
        return "Invalid request.\n\nOnly 50 annotations are allowed per request."
    for a in annotations:
        required = ("path", "start_line", "end_line", "annotation_level", "message")
        if not isinstance(a, dict) or any(a.get(k) in (None, "") for k in required):
            return f"Invalid request.\n\n{', '.join(repr(k) for k in required)} weren't supplied."
        if a["annotation_level"] not in ANNOTATION_LEVELS:
            return f"Invalid request.\n\n{a['annotation_level']!r} is not a valid annotation_level."
        if not isinstance(a["start_line"], int) or not isinstance(a["end_line"], int) or a["start_line"] < 1:
            return "Invalid request.\n\nstart_line and end_line must be positive integers."
        if ("start_column" in a or "end_column" in a) and a["start_line"] != a["end_line"]:
            return "Invalid request.\n\nstart_column and end_column may only be given on one line."
    return None


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

    def compare_files(self, repo: str, base: str, head: str) -> list[dict[str, Any]]:
        with self.state.lock:
            root = self.state.repos.get(repo)
        return pr_files_from_git(root, base, head) if root is not None else []

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

    def new_check_run(self, repo: str, body: dict[str, Any]) -> dict[str, Any]:
        with self.state.lock:
            self.state.next_id += 1
            cid = self.state.next_id
            run: dict[str, Any] = {
                "id": cid,
                "repo": repo,
                "name": body["name"],
                "head_sha": body["head_sha"],
                "status": "queued",
                "conclusion": None,
                "output": {"title": None, "summary": None},
                "annotations": [],
                "requests": 0,  # create and update requests, each within the 50-annotation limit
            }
            self.state.check_runs[cid] = run
        return self.update_check_run(run, body)

    def update_check_run(self, run: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        with self.state.lock:
            run["requests"] += 1
            if body.get("status"):
                run["status"] = body["status"]
            if body.get("conclusion"):
                run["conclusion"], run["status"] = body["conclusion"], "completed"
            output = body.get("output")
            if isinstance(output, dict):
                run["output"] = {"title": output["title"], "summary": output["summary"]}
                run["annotations"].extend(dict(a) for a in output.get("annotations", []))  # appended
            return self.check_run_json(run)

    def check_run_json(self, run: dict[str, Any]) -> dict[str, Any]:
        """The check run as the API shows it (the caller holds the lock)."""
        url = f"{self.base_url}/repos/{run['repo']}/check-runs/{run['id']}"
        return {
            "id": run["id"],
            "node_id": f"CR_{run['id']}",
            "name": run["name"],
            "head_sha": run["head_sha"],
            "external_id": "",
            "url": url,
            "html_url": f"https://github.com/{run['repo']}/runs/{run['id']}",
            "details_url": f"https://github.com/{run['repo']}/runs/{run['id']}",
            "status": run["status"],
            "conclusion": run["conclusion"],
            "started_at": _TIME,
            "completed_at": _TIME if run["status"] == "completed" else None,
            "output": {
                **run["output"],
                "text": None,
                "annotations_count": len(run["annotations"]),
                "annotations_url": f"{url}/annotations",
            },
            "check_suite": {"id": 1},
            "app": {"id": 15368, "slug": "github-actions", "name": "GitHub Actions"},
            "pull_requests": [],
        }

    def diff_lines(self, repo: str, number: int, path: str) -> set[int]:
        """The lines of `path` at the PR's head its diff shows (added or context): where
        GitHub lets a review comment go on the RIGHT side."""
        entry = next((f for f in self.pr_files(repo, number) if f["filename"] == path), None)
        lines: set[int] = set()
        new_line: int | None = None
        for text in (entry or {}).get("patch", "").splitlines():
            hunk = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@", text)
            if hunk:
                new_line = int(hunk.group(1))
            elif new_line is not None and text[:1] in ("+", " "):
                lines.add(new_line)
                new_line += 1
        return lines

    def review_problem(self, repo: str, number: int, body: Any) -> str | None:
        """What GitHub's validation of a review refuses (None: nothing)."""
        if not isinstance(body, dict):
            return "Invalid request: a JSON object is required"
        if body.get("event") not in (None, "COMMENT", "APPROVE", "REQUEST_CHANGES"):
            return f"Invalid request: {body.get('event')!r} is not a valid event"
        commit = body.get("commit_id")
        if commit is not None and not self.has_commit(repo, str(commit)):
            return f"No commit found for SHA: {commit}"
        comments = body.get("comments") or []
        if not isinstance(comments, list):
            return "Invalid request: comments is not an array"
        for c in comments:
            if not isinstance(c, dict) or not c.get("path") or not isinstance(c.get("body"), str):
                return "Invalid request: path and body are required"
            line, start = c.get("line"), c.get("start_line")
            if not isinstance(line, int) or (
                start is not None and (not isinstance(start, int) or start >= line)
            ):
                return "Invalid request: line (and a start_line before it) must be integers"
            if c.get("side", "RIGHT") != "RIGHT" or c.get("start_side", "RIGHT") != "RIGHT":
                return "Invalid request: this stand-in takes comments on the RIGHT side only"
            shown = self.diff_lines(repo, number, c["path"])
            if any(n not in shown for n in range(start or line, line + 1)):
                return "Line could not be resolved"  # the line must be part of the diff
        return None

    def new_review(
        self, repo: str, number: int, body: dict[str, Any], user: dict[str, Any]
    ) -> dict[str, Any]:
        with self.state.lock:
            self.state.next_id += 1
            rid = self.state.next_id
            event = body.get("event") or ""
            review = {
                "id": rid,
                "node_id": f"PRR_{rid}",
                "user": dict(user),
                "body": body.get("body") or "",
                "state": {
                    "APPROVE": "APPROVED",
                    "REQUEST_CHANGES": "CHANGES_REQUESTED",
                    "COMMENT": "COMMENTED",
                }.get(event, "PENDING"),
                "commit_id": body.get("commit_id"),
                "html_url": f"https://github.com/{repo}/pull/{number}#pullrequestreview-{rid}",
                "pull_request_url": f"{self.base_url}/repos/{repo}/pulls/{number}",
                "submitted_at": _TIME,
            }
            self.state.reviews.setdefault((repo, number), []).append(review)
            for c in body.get("comments") or []:
                self.state.next_id += 1
                cid = self.state.next_id
                comment = {
                    "id": cid,
                    "node_id": f"PRRC_{cid}",
                    "pull_request_review_id": rid,
                    "path": c["path"],
                    "line": c["line"],
                    "original_line": c["line"],
                    "start_line": c.get("start_line"),
                    "original_start_line": c.get("start_line"),
                    "side": "RIGHT",
                    "start_side": "RIGHT" if c.get("start_line") is not None else None,
                    "body": c["body"],
                    "user": dict(user),
                    "commit_id": body.get("commit_id"),
                    "original_commit_id": body.get("commit_id"),
                    "in_reply_to_id": None,
                    "diff_hunk": "",
                    "url": f"{self.base_url}/repos/{repo}/pulls/comments/{cid}",
                    "html_url": f"https://github.com/{repo}/pull/{number}#discussion_r{cid}",
                    "pull_request_url": f"{self.base_url}/repos/{repo}/pulls/{number}",
                    "created_at": _TIME,
                    "updated_at": _TIME,
                    "minimized": None,  # the stand-in's own record: the classifier once minimized
                }
                self.state.review_comments.setdefault((repo, number), []).append(comment)
                self.state.threads[f"PRRT_{cid}"] = {
                    "id": f"PRRT_{cid}",
                    "repo": repo,
                    "number": number,
                    "isResolved": False,
                    "comments": [cid],
                }
            return dict(review)

    def review_graphql(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """GraphQL's review threads of a PR (`repository.pullRequest.reviewThreads`, 100 a page,
        `after` a cursor), `minimizeComment` and `resolveReviewThread`, as GitHub answers them;
        a mutation a token may not make (`forbid_writes`, or `graphql_writes` off) is GitHub's
        FORBIDDEN error, in a 200 answer."""
        state = self.state
        mutation = query.lstrip().startswith("mutation")
        if mutation and (state.forbid_writes or not state.graphql_writes):
            return {"data": None, "errors": [{"type": "FORBIDDEN", "message": FORBIDDEN}]}
        missing = {"data": None, "errors": [{"type": "NOT_FOUND", "message": "Could not resolve to a node"}]}
        with state.lock:
            comments = {c["node_id"]: c for cs in state.review_comments.values() for c in cs}
            by_id = {c["id"]: c for c in comments.values()}
            if "minimizeComment" in query:
                found = comments.get(str(variables.get("id")))
                if found is None:
                    return missing
                classifier = re.search(r"classifier:\s*(\w+)", query)
                found["minimized"] = classifier.group(1) if classifier else "OUTDATED"
                return {"data": {"minimizeComment": {"minimizedComment": {"isMinimized": True}}}}
            if "resolveReviewThread" in query:
                thread = state.threads.get(str(variables.get("id")))
                if thread is None:
                    return missing
                thread["isResolved"] = True
                return {"data": {"resolveReviewThread": {"thread": {"id": thread["id"], "isResolved": True}}}}
            repo = f"{variables.get('owner')}/{variables.get('name')}"
            threads = [
                t
                for t in state.threads.values()
                if t["repo"] == repo and t["number"] == variables.get("number")
            ]
            start = int(variables.get("after") or 0)
            nodes = [
                {
                    "id": t["id"],
                    "isResolved": t["isResolved"],
                    "comments": {
                        "nodes": [
                            {
                                "id": by_id[cid]["node_id"],
                                "databaseId": cid,
                                "isMinimized": by_id[cid]["minimized"] is not None,
                            }
                            for cid in t["comments"][:1]
                        ]
                    },
                }
                for t in threads[start : start + 100]
            ]
        more = start + 100 < len(threads)
        info = {"hasNextPage": more, "endCursor": str(start + 100) if more else None}
        return {
            "data": {"repository": {"pullRequest": {"reviewThreads": {"pageInfo": info, "nodes": nodes}}}}
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

    def fail(self, method: str, path_regex: str, status: int) -> None:
        """Answer `method` requests whose path matches `path_regex` with `status` (GitHub's message)."""
        with self.state.lock:
            self.state.failures.append((method, path_regex, status))

    def check_runs(self, repo: str) -> list[dict[str, Any]]:
        """The check runs made on `repo`, with every annotation they carry and `requests`: how
        many create / update requests made each."""
        with self.state.lock:
            return [
                {**dict(r), "annotations": [dict(a) for a in r["annotations"]]}
                for r in self.state.check_runs.values()
                if r["repo"] == repo
            ]

    def reviews(self, repo: str, number: int) -> list[dict[str, Any]]:
        """The reviews posted on the PR, each with the comments it made (`comments`)."""
        with self.state.lock:
            comments = self.state.review_comments.get((repo, number), [])
            return [
                {**dict(r), "comments": [dict(c) for c in comments if c["pull_request_review_id"] == r["id"]]}
                for r in self.state.reviews.get((repo, number), [])
            ]

    def review_comments(self, repo: str, number: int) -> list[dict[str, Any]]:
        """Every review comment on the PR; `minimized` is the classifier once minimized."""
        with self.state.lock:
            return [dict(c) for c in self.state.review_comments.get((repo, number), [])]

    def review_threads(self, repo: str, number: int) -> list[dict[str, Any]]:
        with self.state.lock:
            return [
                dict(t) for t in self.state.threads.values() if t["repo"] == repo and t["number"] == number
            ]

    def requests(self, method: str | None = None) -> list[LoggedRequest]:
        with self.state.lock:
            return [r for r in self.state.requests if method is None or r.method == method]


@pytest.fixture
def github_server() -> Iterator[GitHubServer]:
    with GitHubServer() as gh:
        yield gh


def git_archive(root: Path, ref: str, prefix: str) -> bytes:
    """`ref`'s tree as GitHub's tarball has it: a gzipped tar under one top folder, `prefix`."""
    proc = subprocess.run(
        ["git", "archive", "--format=tar.gz", f"--prefix={prefix}", ref],
        cwd=root,
        capture_output=True,
        check=True,
    )
    return proc.stdout


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
