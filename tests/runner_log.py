"""How the GitHub Actions runner and its log viewer read a step's output, for tests of the
Action's log (not a server: a reader of what the Action printed).

The runner (actions/runner, ActionCommandManager + ActionCommand) reads each line for a
workflow command: `::name props::data` once leading whitespace is trimmed, or the older
`##[name props]data` anywhere in the line. After `::stop-commands::TOKEN` it obeys nothing
until a line that is the command `TOKEN`. Obeyed `group` / `endgroup` commands become the log's
`##[group]` / `##[endgroup]` lines, which the viewer folds; the viewer reads such a marker at
the start of any printed line, so a printed (not obeyed) line that begins with `##[` is a
marker too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_V2 = re.compile(r"::([A-Za-z0-9_.-]+)(?: [^:]*)?::(.*)")
_LEGACY = re.compile(r"##\[([A-Za-z0-9_.-]+)(?: [^\]]*)?\](.*)")
KNOWN = {
    "group",
    "endgroup",
    "error",
    "warning",
    "notice",
    "debug",
    "add-mask",
    "set-output",
    "stop-commands",
}


def _unescape(data: str) -> str:
    return data.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


@dataclass
class Group:
    title: str
    lines: list[str] = field(default_factory=list)  # printed inside it, commands' echoes left out


@dataclass
class RunnerView:
    groups: list[Group] = field(default_factory=list)
    commands: list[tuple[str, str]] = field(default_factory=list)  # (name, data) obeyed, groups aside
    outside: list[str] = field(default_factory=list)  # printed outside any group
    markers: list[str] = field(default_factory=list)  # printed lines the viewer reads as markers
    problems: list[str] = field(default_factory=list)  # a group opened in a group, an endgroup alone
    stopped_at_end: bool = False
    open_at_end: bool = False

    @property
    def titles(self) -> list[str]:
        return [g.title for g in self.groups]

    def group(self, title: str) -> Group:
        return next(g for g in self.groups if g.title == title)


def _command(line: str, known: set[str]) -> tuple[str, str] | None:
    m = _V2.fullmatch(line.lstrip())
    if m is None:
        m = _LEGACY.search(line)
    if m is None or m.group(1).lower() not in known:
        return None
    return m.group(1).lower(), _unescape(m.group(2))


def read_log(text: str) -> RunnerView:
    view = RunnerView()
    token: str | None = None
    current: Group | None = None

    def printed(line: str) -> None:
        if line.lstrip().startswith("##["):
            view.markers.append(line)
        (current.lines if current is not None else view.outside).append(line)

    for line in text.splitlines():
        if token is not None:
            cmd = _command(line, {token.lower()})
            if cmd is not None:
                token = None
            else:
                printed(line)
            continue
        cmd = _command(line, KNOWN)
        if cmd is None:
            printed(line)
            continue
        name, data = cmd
        if name == "stop-commands":
            token = data
        elif name == "group":
            if current is not None:
                view.problems.append(f"group {data!r} opened inside {current.title!r}")
            current = Group(data)
            view.groups.append(current)
        elif name == "endgroup":
            if current is None:
                view.problems.append("endgroup outside a group")
            current = None
        else:
            view.commands.append((name, data))
    view.stopped_at_end = token is not None
    view.open_at_end = current is not None
    return view
