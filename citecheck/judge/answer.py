"""A model's structured answer out of what its provider returned (docs/ARCHITECTURE.md, the
judge stage): one reader for every provider and every call — the judge's verdicts
(`prompt.parse_verdicts`) and the screen's answers (`citecheck.screen.parse_answers`).

A provider that enforces the schema (Anthropic's tool input, OpenAI's JSON-schema format)
hands over the object itself, read as it is. A model that answers in text (an
OpenAI-compatible server in JSON or prompt mode, a reasoning model, Anthropic without its
tool) may write anything around its JSON, and what it quotes is partly the page's: a page
may carry an answer object of its own (`{"verdicts": [{"id": 1, "supported": true, …}]}`)
for the model to repeat. From text, `read_answer` takes an answer only when the text gives
exactly one answer of the model's own:

1. A candidate is any JSON value in the text, wherever it starts (in or out of a code fence,
   inside other JSON), that is the answer's shape: an object with the answer's list key, or
   a non-empty bare list of objects with the item's boolean field, that validates against
   the answer's model. A candidate is read whole: a quote inside its strings is text.
2. A candidate equal (as parsed, so however spaced) to one that occurs in the data the model
   was shown (`shown`: the fenced source and claims) is a quote of the data, not an answer:
   it is set aside.
3. Every piece of an answer must lie inside a candidate: a JSON object with the answer's list
   key or the item's boolean field, and in text that is no JSON value, the key or the field
   followed by a value (`"verdicts": [`, `"supported": true`). One that does not is an answer
   that is not well-formed (cut off, misquoted, not valid JSON, not the schema's), and the
   well-formed one beside it may be a quote: the text is malformed.
4. The candidates left must all be the same answer, which is then taken (the last one; they
   are equal). Two different ones are malformed rather than a guess, because nothing in the
   text tells the model's own answer from a quote: not position (a model may quote after
   answering, or answer first and discuss after; a cut-off answer leaves the quote last),
   not the final code fence (a page can hold fences), not wording around it. A guess lets
   the page decide whenever it is wrong; refusing costs one more call (the judge asks again
   once) or a judge error, never a claim passed on the page's word.
5. No candidate left is no answer (ValueError; MalformedAnswer when the only ones were
   copies of the data's).

A cut-off answer is not read at all (`Judge._call`): it is not the model's last word.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

# Where a JSON object with a string key, or a list of objects, may start.
_START = re.compile(r"\{\s*\"|\[\s*\{")
# What a JSON value's nesting is made of: its strings (skipped whole) and its brackets.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
# An answer is three levels deep (object, list, object); JSON nested deeper than this from
# where it starts is not decoded there (its inner values still are): it bounds the work on
# a text of openings that never close to a few passes over it.
MAX_DEPTH = 8
_DECODER = json.JSONDecoder()


class MalformedAnswer(ValueError):
    """Output that holds answer JSON but cannot be used as it stands (two different answers,
    a broken one beside a good one, two verdicts for one claim)."""


def _as_answer(value: Any, model: type[M], key: str, flag: str) -> M | None:
    """`value` as the answer, or None when it is not one: `{key: [...]}`, a bare non-empty
    list of objects with the `flag` field, and the list as a JSON string (models sometimes
    put it so in a tool input)."""
    if isinstance(value, list):
        if not value or not all(isinstance(v, dict) and flag in v for v in value):
            return None
        value = {key: value}
    if not isinstance(value, dict) or key not in value:
        return None
    if isinstance(value[key], str):
        try:
            value = {**value, key: json.loads(value[key])}
        except ValueError:
            return None
    try:
        return model.model_validate(value)
    except ValidationError:
        return None


def _closes(text: str, start: int) -> bool:
    """The brackets opened at `start` close within MAX_DEPTH levels (strings skipped)."""
    depth = 0
    for token in _TOKEN.finditer(text, start):
        if token.group() in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif token.group() in "]}":
            depth -= 1
            if depth == 0:
                return True
    return False


def _walk(value: Any, model: type[M], key: str, flag: str, found: list[M]) -> bool:
    """Adds the answers in the decoded `value` to `found` (rule 1); True when it holds a piece
    of an answer that is not part of one (rule 3): an object with the answer's key or flag."""
    answer = _as_answer(value, model, key, flag)
    if answer is not None:
        found.append(answer)
        return False
    stray = isinstance(value, dict) and (key in value or flag in value)
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for child in children:
        stray = _walk(child, model, key, flag, found) or stray
    return stray


def _scan(text: str, model: type[M], key: str, flag: str) -> tuple[list[M], bool]:
    """The answers of `text`, in order (rule 1), and whether a piece of an answer stands
    outside them (rule 3): in JSON beside them, or in text that is no JSON value at all (the
    list key or the flag followed by a value: `"verdicts": [`, `"supported": true`)."""
    found: list[M] = []
    stray = False
    spans: list[tuple[int, int]] = []
    pos = 0
    while (opening := _START.search(text, pos)) is not None:
        start = opening.start()
        pos = start + 1
        if not _closes(text, start):
            continue
        try:
            value, end = _DECODER.raw_decode(text, start)
        except ValueError:
            continue
        # What a decoded value holds is read from the value, not decoded again.
        stray = _walk(value, model, key, flag, found) or stray
        spans.append((start, end))
        pos = end
    q = r"\\?[\"']"
    fragments = re.compile(rf"{q}{key}{q}\s*:\s*\[|{q}{flag}{q}\s*:\s*(?:true|false)", re.I)
    for fragment in fragments.finditer(text):
        at = bisect.bisect_right(spans, (fragment.start(), len(text))) - 1
        if at < 0 or not spans[at][0] <= fragment.start() < spans[at][1]:
            stray = True
            break
    return found, stray


def read_answer(
    payload: Any, model: type[M], key: str, flag: str, *, shown: str = "", what: str = "answer"
) -> M:
    """The answer in `payload` (a provider's structured object, or the model's text), read by
    the rules of the module docstring. `key`: the answer's list key; `flag`: its items'
    boolean field (what a piece of an answer is: rule 3); `shown`: the data the model was
    shown (rule 2); `what`: the answer's name in messages.

    Raises MalformedAnswer when the payload holds an answer that cannot be used, ValueError
    when it holds none."""
    quoted = _scan(shown, model, key, flag)[0] if shown else []
    if not isinstance(payload, str):
        answer = _as_answer(payload, model, key, flag)
        if answer is None:
            raise ValueError(f"the structured output is not a {what}")
        if answer in quoted:
            raise MalformedAnswer(f"its {what} is a copy of one in the data it was shown")
        return answer
    found, stray = _scan(payload, model, key, flag)
    if stray:
        raise MalformedAnswer(f"a {what} in its text that is not well-formed")
    own = [answer for answer in found if answer not in quoted]
    if any(answer != own[-1] for answer in own):
        raise MalformedAnswer(f"two different {what}s in its text")
    if own:
        return own[-1]
    if found:
        raise MalformedAnswer(f"its only {what} is a copy of one in the data it was shown")
    raise ValueError(f"no {what} in its text")
