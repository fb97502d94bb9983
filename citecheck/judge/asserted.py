"""Whether the page asserts a clause the judge cut out of one of its sentences
(`judge/quotes.py`, rule 5).

"It is not true that the tower is 500 metres tall" contains "the tower is 500 metres tall",
word for word, but denies it. A quote that is a whole sentence carries its own negation for
everyone to read; a quote that is a *proper part* of a sentence may have left it out. So when
the quote is part of a sentence, the rest of that sentence is read for a frame that governs
the quoted clause; the quote counts as asserted if at least one of its places on the page
has none.

What governs the clause, in the text right before it (the quote's own leading "that /
whether / if" included):

- **a negation right before it**: "not", "n't", "never", "no", "no longer", "hardly",
  "scarcely", "barely", "neither", "nor", "without", "cannot" ("The tower was not |completed
  in 1889|").
- **a negated or denying frame** ending there, with "that" or without: "not / never / no
  longer" + (be / ever / really …) + "true, the case, so, correct, clear, known, proven,
  shown, said, say, show, mean, imply, suggest, follow, believe …" ("It is not true that",
  "The study does not show that"); "no / little / scant" + (credible …) + "evidence, proof,
  sign, indication, reason, data, study, research, support, basis, one, body …" + (shows,
  suggests, exists …) ("No evidence shows that", "There is no evidence that"); "nobody / no
  one / none / neither" + (has, ever …) + a verb of saying or showing; "false, untrue, a
  myth, a misconception, wrong, incorrect, mistaken, a lie, a hoax, unfounded, baseless,
  nonsense" + (to say …) + "that"; "deny, dispute, doubt, refute, reject, debunk" + "that";
  "the myth / rumour / misconception / hoax that".
- **a supposition or a question**: "whether", "if", "unless", "supposing", "assuming",
  "imagine"; "is / was / can it (really) be true / the case / possible (that)".

A denying frame after a second negation a few words before it is an assertion ("It cannot be
denied that", "No one doubts that", "There is no doubt that"), and so is a negation that
governs something else ("It is not surprising that", "Guides that are not official say that",
"It is not ugly, and …").

And in the text right after it: a verdict of falsehood on it ("… is a myth", "…, which is
false", "… has been debunked", "… is not true"); or the rest of a question, with no clause
break before its "?" ("Had the two continents |once been one|?"; "Is it true that" is a
frame before it too). A "?" in the quote itself is for the reader to see.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from citecheck.judge.reading import TYPOGRAPHY
from citecheck.sentences import split_sentences

# How far around a quote its sentence is looked for: a line of the page, at most this much
# each side (extracted text has a paragraph a line).
CONTEXT_CHARS = 1500
# Places of one quote on a page looked at; a quote found more often than this is asserted.
MAX_PLACES = 50


def _alt(*words: str) -> str:
    return "(?:" + "|".join(words) + ")"


_NEGATION = r"(?:\b" + _alt("not", "never", "no", "no longer", "cannot") + r"\b|n't\b)"
_FILLER = r"(?:\s+" + _alt(
    "be", "been", "being", "ever", "yet", "really", "actually", "entirely", "necessarily", "always", "quite",
    "at all", "any", "a", "an", "the", "single", "credible", "reliable", "real", "hard", "scientific",
    "sufficient", "strong", "good", "clear", "solid", "direct", "further", "other", "such", "has", "have",
    "had", "was", "is", "are", "were", "does", "do", "did", "seriously", "previously", "so far", "to date",
) + r"\b){0,3}"  # fmt: skip
_SAY = _alt(
    r"says?", "said", r"shows?", "showed", "shown", r"proves?", "proved", "proven", r"means?", "meant",
    r"impl(?:y|ies|ied)", r"suggests?", "suggested", r"indicates?", "indicated", r"follows?",
    r"believes?", "believed", r"thinks?", "thought", r"argues?", "argued", r"states?", "stated",
    r"reports?", "reported", r"finds?", "found", r"establish(?:es|ed)?", r"confirms?", "confirmed",
    r"demonstrates?", "demonstrated", r"supports?", "supported", r"agrees?", "agreed", r"accepts?",
    "accepted", r"claims?", "claimed", r"exists?", "existed",
)  # fmt: skip
# Not among them: "know / knew / realise / notice", whose clause stays true under a negation
# ("No one knew that the tower would last").
_TRUE = _alt(
    "true", "the case", "so", "correct", "accurate", "right", "clear", "certain", "known", "proven",
    "proved", "shown", "established", "confirmed", "demonstrated", "found", "likely", "possible",
)  # fmt: skip
_EVIDENCE = _alt(
    "evidence", "proof", r"signs?", r"indications?", "reason", "data", r"records?", "study",
    "studies", "research", "support", "basis", "one", "body", r"sources?", r"reports?",
)  # fmt: skip
_FALSE = _alt(
    "false", "untrue", "a myth", "a misconception", "wrong", "incorrect", "mistaken", "a lie",
    "a hoax", "unfounded", "baseless", "nonsense", "fiction", "a fallacy",
)  # fmt: skip
_DENY = _alt(
    r"den(?:y|ies|ied|ying)", r"disput(?:e|es|ed|ing)", r"doubts?", "doubted", r"refut(?:e|es|ed|ing)",
    r"reject(?:s|ed|ing)?", r"debunk(?:s|ed|ing)?",
)  # fmt: skip
_THAT = r"(?:\s+that)?"

# Each ends where the quoted clause starts (`\Z`); group "frame" is where the frame starts,
# so that a second negation just before it can be told.
_GOVERNS_BEFORE = re.compile(
    "(?P<frame>"
    + "|".join(
        (
            _NEGATION,
            rf"\b(?:not|never|no\s+longer)\b{_FILLER}\s+(?:{_TRUE}|{_SAY})\b{_THAT}",
            rf"n't\b{_FILLER}\s+(?:{_TRUE}|{_SAY})\b{_THAT}",
            rf"\b(?:no|little|scant)\b{_FILLER}\s+{_EVIDENCE}\b(?:{_FILLER}\s+{_SAY}\b)?"
            r"(?:\s+(?:that|of|to\s+(?:suggest|show|believe|think)(?:\s+that)?))?",
            rf"\b(?:nobody|no\s+one|none|neither)\b{_FILLER}\s+{_SAY}\b{_THAT}",
            r"\b(?:hardly|scarcely|barely|neither|nor|without)\b",
            rf"\b{_FALSE}\b(?:\s+to\s+(?:say|claim|think|believe|suggest))?\s+that",
            rf"\b{_DENY}\b\s+that",
            r"\b(?:myth|rumou?r|misconception|hoax|falsehood|fallacy)s?\s+that",
            r"\b(?:whether|if|unless|supposing|suppose|assuming|imagine)\b(?:\s+that)?",
            rf"\b(?:is|was|can|could)(?:n't)?\s+it\s+(?:really\s+|actually\s+)?{_TRUE}\b{_THAT}",
        )
    )
    + r")\s*\Z",
    re.IGNORECASE,
)
_NEGATION_BEFORE = re.compile(rf"{_NEGATION}(?:\s+[\w'-]+){{0,3}}\s*\Z", re.IGNORECASE)
_DENYING = re.compile(
    rf"(?:{_DENY}|{_FALSE}|myth|rumou?r|misconception|hoax|falsehood|fallacy)\b", re.IGNORECASE
)
_GOVERNS_AFTER = re.compile(
    r"\A[\s,;:-]*(?:(?:which|this|that|it|and\s+this)\s+)?"
    r"(?:(?:is|was|are|were|has\s+been|have\s+been|had\s+been|remains?|proved|proven|turned\s+out\s+to\s+be)\s+)?"
    r"(?:(?:completely|entirely|totally|simply|clearly|now|since|long|widely|also|just|of\s+course)\s+)*"
    r"(?:not\s+(?:true|the\s+case|correct|accurate|supported)|false|untrue|wrong|incorrect|inaccurate|"
    r"(?:an?\s+)?(?:myth|misconception|lie|hoax|fiction|fallacy)|mistaken|debunked|refuted|disproven|disproved|"
    r"unfounded|baseless|unproven|unsupported|nonsense)\b",
    re.IGNORECASE,
)
# The rest of a question the quote is the clause of: no clause break before its "?".
_QUESTION_AFTER = re.compile(r"[^.!?;:,]{0,80}\?")
_LEADING_COMPLEMENTIZER = re.compile(r"(?:that|whether|if)\b", re.IGNORECASE)
# What may close a sentence after its last word.
_CLOSERS = " \t\"')]}»”’*_"


def _governed_before(before: str) -> bool:
    m = _GOVERNS_BEFORE.search(before)
    if m is None:
        return False
    # A denial after a second negation is an assertion ("It cannot be denied that", "no one
    # doubts that", "there is no doubt that", "it is not false that").
    if _DENYING.match(m.group("frame")) is not None:
        return _NEGATION_BEFORE.search(before[: m.start("frame")]) is None
    return True


def _governed(before: str, quote: str, after: str) -> bool:
    lead = _LEADING_COMPLEMENTIZER.match(quote)
    if lead is not None:
        before = before + lead.group(0)
    before = " ".join(before.translate(TYPOGRAPHY).split())
    if before and _governed_before(before):
        return True
    after = after.translate(TYPOGRAPHY)
    if _GOVERNS_AFTER.match(after) is not None:
        return True
    return _QUESTION_AFTER.fullmatch(after.strip(_CLOSERS)) is not None


def _places(found: str, text: str) -> Iterator[int]:
    at = text.find(found)
    for _ in range(MAX_PLACES):
        if at < 0:
            return
        yield at
        at = text.find(found, at + 1)


def _asserted_at(start: int, end: int, text: str) -> bool:
    lo = max(text.rfind("\n", 0, start) + 1, start - CONTEXT_CHARS)
    hi = text.find("\n", end)
    hi = min(len(text) if hi < 0 else hi, end + CONTEXT_CHARS)
    window = text[lo:hi]
    qs, qe = start - lo, end - lo
    spans = [(s, e) for s, e in split_sentences(window) if s < qe and e > qs]
    if not spans:
        return True
    s, e = min(s for s, _ in spans), max(e for _, e in spans)
    before, after = window[s:qs], window[qe:e]
    if not before.strip() and not after.strip(_CLOSERS + ".!?…"):
        return True  # the whole sentence: its own words say what it does with the claim
    return not _governed(before, window[qs:qe], after)


def asserted(found: str, source_text: str) -> bool:
    """Whether the page asserts `found` (its own text of the quote) in at least one place:
    as a whole sentence, or as part of a sentence that does not deny, question or only
    suppose it (the module docstring). A text not on the page is not for this rule."""
    places = list(_places(found, source_text))
    if not places or len(places) >= MAX_PLACES:
        return True
    return any(_asserted_at(at, at + len(found), source_text) for at in places)
