"""Where a page speaks of what a claim's figure, date or quote is about: the passage a check
looks in for a contradiction (docs/ARCHITECTURE.md, the checks stage).

A check fails a claim on its own only when the page gives another value for the same thing
(see `citecheck.policy.checks_verdict`); a figure merely absent from the page is the judge's to
weigh. "The same thing" is read from the words around the figures, never from the figures:

- the claim's context on the page (`context_sentences`): the sentences that hold a given share
  of the claim's content words (`content_words`: stemmed, stop words, figures, number words and
  month names left out), and at least a given number of them (each check sets its own);
- a figure's anchor (`anchor`): the content words after it in its clause — what it counts,
  "70% of *contributors*", past an interval in brackets — the words before it, the words
  around it (`ANCHOR_WIDTH` each side) and which of those are names (capitalised);
- the context covers the claim's figure (`covered`) when its sentence holds every name and
  `COVERAGE` of the words around it: "12% of developers use Python at work" is not about
  what "35 percent of developers use Rust at work" is;
- two figures are of the same thing (`same_thing`) when their scopes agree (`scope`: the
  period, rate, total or part they are of) and what one counts is among the first words after
  the other, or, when one counts nothing, a word before them is shared, or else they share
  `AROUND_SAME` words around them;
- two dates are of the same event (`same_event`) when their clauses share a word.

The thresholds are measured with `bench/numbers.py` (false failures on supported claims of
WiCE dev and Check-COVID against the catches on unsupported ones; see the number and date
checks' docstrings, and docs/benchmarks.md for the figures).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from citecheck.checks.passages import PageIndex, tokens
from citecheck.checks.scope import Scope, same_scope, scope_of
from citecheck.numbers import wordset

ANCHOR_WIDTH = 6  # words each side of a figure that describe it
AROUND_SAME = 2  # words around two figures that make them of the same thing, whatever they count
_COUNTED_WITHIN = 4  # words after a figure where what it counts is looked for

# Words that state a figure rather than what it is about (stemmed as `tokens` stems them).
_FIGURE_WORD_LIST = (
    "among amongst between across within each every both either via "
    "percent per cent pct percentage point million billion trillion thousand hundred dozen time fold "
    "half halve third quarter fifth tenth pair zero one two three four five six seven eight nine ten "
    "eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty "
    "fifty sixty seventy eighty ninety about around approximately roughly nearly almost least "
    "january february march april may june july august september october november december jan feb "
    "mar apr jun jul aug sep sept oct nov dec year"
)
# as written and as `tokens` stems them ("roughly" is "rough" there: a sentence's first word,
# "Roughly 1.7 billion people", is then no name the page must hold)
_FIGURE_WORDS = wordset(_FIGURE_WORD_LIST) | frozenset(tokens(_FIGURE_WORD_LIST))
_HAS_DIGIT = _DIGIT = re.compile(r"[0-9]")
# Where a clause ends for `clause_words`: an aside in brackets stays in its clause ("Fulham
# Football Club (FC) in 2017"); a comma inside a date ("May 19, 2016") is no break.
_CLAUSE_BREAK = re.compile(r"[;:!?]|,(?! [0-9]{4}\b)|\.(?:\s|$)|\s[-–—]\s")
_CLAUSE_END = re.compile(r"[,;:()\[\]!?]|\.(?:\s|$)|\s[-–—]\s")
_THAN = re.compile(r"\bthan\b", re.IGNORECASE)


def _root(token: str) -> str:
    """A `tokens` word cut further, so that short words meet: `tokens` keeps "used" and "use",
    "died" and "die" apart (it leaves words of four letters whole); both are "us", "di" here."""
    if token.endswith("ed") and len(token) > 3:
        token = token[:-2]
    return token[:-1] if token.endswith("e") and len(token) > 2 else token


def content_words(text: str) -> list[str]:
    """`tokens` of `text` without figures, number words and month names, in order, each cut
    to its `_root`."""
    return [_root(t) for t in tokens(text) if t not in _FIGURE_WORDS and not _HAS_DIGIT.search(t)]


def holds(words: set[str], word: str) -> bool:
    """Whether a page sentence's `tokens` hold a `content_words` word (whose `_root` it is)."""
    return word in words or word + "e" in words or word + "ed" in words or word + "d" in words


_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*")


@dataclass(frozen=True)
class Anchor:
    """What a figure (or date) in a sentence is about (see the module docstring)."""

    after: tuple[str, ...]  # the first content words after it, in its clause: what it counts
    before: tuple[str, ...]  # the last content words before it, in its clause
    around: frozenset[str]  # the content words near it, in its sentence
    names: frozenset[str]  # those of them written with a capital: names, mostly
    scope: Scope  # the period and measure it is of ("between 1989 and 2005", "a year")


_PARENS_AFTER = re.compile(r"\s*(?:\([^()]{0,80}\)|\[[^\[\]]{0,80}\])")


def anchor(text: str, start: int, end: int, bounds: tuple[int, int] | None = None) -> Anchor:
    """The anchor of the figure at `start:end` of `text`, within the sentence `bounds`."""
    lo, hi = bounds if bounds is not None else (0, len(text))
    # "43.2% (95% CI 32.2-54.7%) of the confirmed infections": what it counts follows the interval
    while (parens := _PARENS_AFTER.match(text, end, hi)) is not None:
        end = parens.end()
    after = text[end:hi]
    # what it counts ends its clause, or where the next figure starts ("673 panels in 91
    # different shapes": panels)
    cut = _CLAUSE_END.search(after)
    clause_after = after[: cut.start()] if cut else after
    clause_after = (
        clause_after[: next_digit.start()] if (next_digit := _DIGIT.search(clause_after)) else clause_after
    )
    # "104 times greater than CO2": what follows "than" is what it is compared with, not counted
    clause_after = _THAN.split(clause_after, maxsplit=1)[0]
    before = text[lo:start]
    cuts = list(_CLAUSE_END.finditer(before))
    clause_before = before[cuts[-1].end() :] if cuts else before
    counted = content_words(" ".join(clause_after.split()[:_COUNTED_WITHIN]))
    preceding = content_words(" ".join(clause_before.split()[-_COUNTED_WITHIN:]))
    near = " ".join(before.split()[-ANCHOR_WIDTH:] + after.split()[:ANCHOR_WIDTH])
    names = content_words(" ".join(_CAPITALISED.findall(near)))
    return Anchor(
        tuple(counted),
        tuple(preceding),
        frozenset(content_words(near)),
        frozenset(names),
        scope_of(text, start, end, (lo, hi)),
    )


def same_thing(claim: Anchor, page: Anchor) -> bool:
    """Whether two figures are of the same thing: when both count something, what one counts
    is among the first words after the other ("12 percent of people with confirmed infections"
    against "43.2% (95% CI 32.2-54.7%) of the confirmed infections"), and where both go on, what
    one says of it next is among the other's words around it; when either counts
    nothing, a word before them is the same, or they share `AROUND_SAME` words around them
    ("a secondary attack rate of 80 percent", "the secondary attack rate … was 12·4%"). Never
    when their scopes disagree (`scope.same_scope`): "10 trophies between 1989 and 2005" is not
    what "47 trophies in our history" counts."""
    if not same_scope(claim.scope, page.scope):
        return False
    if claim.after and page.after:
        # both count something: the same thing, or not ("673 panels in 91 different shapes"
        # counts panels, whatever "93 different shapes" shares with its neighbours)
        if claim.after[0] in page.after:
            shared = claim.after[0]
        elif page.after[0] in claim.after:
            shared = page.after[0]
        else:
            return False
        # and what each says of it next, where both say more: "195 countries signed" is not
        # what "196 countries agreed" counts
        said = (
            claim.after[claim.after.index(shared) + 1 :][:1],
            page.after[page.after.index(shared) + 1 :][:1],
        )
        return not (said[0] and said[1]) or said[0][0] in page.around or said[1][0] in claim.around
    if not set(claim.before).isdisjoint(page.before):
        return True
    return len(claim.around & page.around) >= AROUND_SAME


COVERAGE = 0.6  # of the words describing the claim's figure its context sentence holds


def covered(claim: Anchor, sentence_words: set[str]) -> bool:
    """Whether a page sentence (its `tokens`) holds every name and nearly every other word
    that describes the claim's figure: "12% of developers use Python at work" is not about
    what "35 percent of developers use Rust at work" is."""
    if not all(holds(sentence_words, w) for w in claim.names):
        return False
    return sum(holds(sentence_words, w) for w in claim.around) >= COVERAGE * len(claim.around)


def clause_words(text: str, start: int, end: int, bounds: tuple[int, int] | None = None) -> set[str]:
    """The content words of the clause that holds `start:end` of `text` (within the sentence
    `bounds`): "born April 13 1944; died May 25 2001" → {"died"} for the second date. A clause
    of the date alone ("In May 2014, a series of wildfires broke out") dates the clause after
    it (or, last in its sentence, the one before: "…, the insurer announced on 2 May")."""
    lo, hi = bounds if bounds is not None else (0, len(text))
    cuts = list(_CLAUSE_BREAK.finditer(text, lo, start))
    head = cuts[-1].end() if cuts else lo
    cut = _CLAUSE_BREAK.search(text, end, hi)
    tail = cut.start() if cut else hi
    words = set(content_words(text[head:tail]))
    if words:
        return words
    if cut is not None:
        after = _CLAUSE_BREAK.search(text, cut.end(), hi)
        words = set(content_words(text[cut.end() : after.start() if after else hi]))
    if not words and cuts:
        before = list(_CLAUSE_BREAK.finditer(text, lo, cuts[-1].start()))
        words = set(content_words(text[before[-1].end() if before else lo : cuts[-1].start()]))
    return words


def same_event(claim_clause: set[str], page_clause: set[str]) -> int:
    """How much two dates' clauses say they date the same event: the content words they share
    (0: another event, or too little to tell)."""
    return len(claim_clause & page_clause)


def context_sentences(claim_words: set[str], page: PageIndex, share: float, min_words: int) -> list[int]:
    """The page's sentences that hold at least `share` of the claim's content words, and at
    least `min_words` of them, best first.

    Only the sentences where the words' first letters occur (one scan of the page for all of
    them) are tokenized: a claim whose figure is absent is checked against pages whose words
    the rest of the checks need not read (tokenizing a whole page cost the contradiction
    search three quarters of its time on the eval pages)."""
    if not claim_words:
        return []
    need = max(min_words, math.ceil(share * len(claim_words)))
    # A word's letters but its last: "company" (from "companies") is found as "compan".
    heads = {w: w if len(w) <= 3 else w[:-1] for w in claim_words}
    low, ends = page.lowered, page.sentences
    seen: set[int] = set()
    for head in set(heads.values()):
        at = low.find(head)
        while at >= 0:
            i = page.sentence_at(at)
            seen.add(i)
            at = low.find(head, max(at + 1, ends[i][1]) if ends else at + 1)  # on to the next sentence
    tokenized = "token_sets" in page.__dict__  # read already: no need to tokenize again
    shares: list[tuple[int, int]] = []
    for i in seen:
        start, end = ends[i]
        sentence = low[start:end]
        if sum(heads[w] in sentence for w in claim_words) < need:
            continue  # not even the words' heads are there
        words = page.token_sets[i] if tokenized else set(tokens(page.sentence_text(i)))
        n = sum(holds(words, w) for w in claim_words)
        if n >= need:
            shares.append((n, i))
    return [i for _, i in sorted(shares, key=lambda x: (-x[0], x[1]))]
