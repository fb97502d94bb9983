"""A sentence's grammar, guessed without a tagger: whether it has a verb, reads as a statement or
as a title, is a phrase rather than a sentence, reports a change or a finding. The skip rules
(`citecheck.extract.skip`) and the other sentence forms read it."""

from __future__ import annotations

import re

from citecheck.extract.words import DETERMINERS, IMPERATIVE_VERBS, NOT_IMPERATIVE_NEXT, PREPOSITIONS
from citecheck.numbers import wordset

FIRST_WORDS = re.compile(r"[\"'“‘(\[*_]*([A-Za-z’']+)\s*([A-Za-z’']*)")
LEAD_LABEL = re.compile(r"^[\w/ ]{1,30}:\s+")  # "Tip: Do this" is still an imperative


# A finite verb that makes a line a statement rather than a title: "React Native 0.82 will be
# New Architecture only" states something; "Reducing flaky builds by 18x", "GitHub Availability
# Report: January 2024" and "How we cut build times by 50%" are titles.
STATEMENT = re.compile(
    r"(?=[iawhcdmsbrgnf'’])(?:"  # the first letters of the alternatives (see `kinds._STAT_DIGITS`)
    r"\b(?:is|are|was|were|isn't|aren't|wasn't|weren't|has|have|had|hasn't|haven't|will|won't|would|can|"
    r"can't|cannot|could|does|did|doesn't|didn't|may|might|must|shall|should|becomes|became|remains|"
    r"reached|reaches|surpassed|grew|doubled|now)\b|(?<!\ba\s)(?<!\bthe\s)\b(?:fell|rose)\b|['’](?:re|ve|ll)\s)",
    re.IGNORECASE,
)
_TITLE_START = re.compile(
    r"^\W*(?:how|why|what|when|where|who|which|introducing|announcing)\b", re.IGNORECASE
)


_TITLE_WORD = re.compile(r"[A-Za-z][\w'’-]{3,}")


_HEDGED_VERB = frozenset(["would", "could", "might", "may"])
_HEDGE_ADVERB = re.compile(r"\b(?:probably|perhaps|possibly|arguably|presumably)\b", re.IGNORECASE)


def reads_as_statement(text: str) -> bool:
    """Whether a line reads as a statement: it has a finite verb ("May" is the month: "May 30 SSL
    incident"), not only a hedged modal ("A rose by any other name...would probably be given an
    acronym" is a paper's title), and is neither a how/why title nor written in Title Case
    ("Incident Analysis: How Learning is Different Than Fixing")."""
    if _TITLE_START.match(text) is not None:
        return False
    verbs = [m.group(0).lower() for m in STATEMENT.finditer(text) if m.group(0) != "May"]
    if not verbs or (all(v in _HEDGED_VERB for v in verbs) and _HEDGE_ADVERB.search(text)):
        return False
    words = _TITLE_WORD.findall(text)
    return len(words) < 3 or sum(w[0].isupper() for w in words) * 10 <= len(words) * 6


def has_verb(text: str) -> bool:
    """Whether a line has a verb: an auxiliary or a finite verb (`_has_main_verb`'s guess)."""
    return STATEMENT.search(text) is not None or _has_main_verb(text)


# A word after which an "-s" or "-ed" word is a noun or an adjective ("for projects", "the
# normalized names"), not a verb; `_RELATIVE` opens a clause whose verb is not the sentence's.
_NOUN_BEFORE = (
    (DETERMINERS - {"this"})
    | PREPOSITIONS
    | wordset(
        "many more most no several few other such and or new good best great first last two three four five"
    )
)
# What follows a verb in the present plural: its object's determiner ("the Rollup team choose that
# day", "many other organizations fund their work").
_OBJECT_AFTER = DETERMINERS | {"that"}
_RELATIVE = wordset("which that who whom whose where")
_PRONOUN = wordset("we they i you he she it")
_CONTRACTED = wordset(
    "i'm i’m it's it’s that's that’s there's there’s here's here’s he's he’s she's she’s "
    "i'd i’d we'd we’d they'd they’d you'd you’d"
)
_IRREGULAR_PAST = wordset(
    "took made gave went began became built ran found brought got led won wrote said saw knew sold spent "
    "held kept left met paid put set taught told thought understood came drew grew meant felt chose do did "
    # the past that is spelled as the present ("the coronavirus spread with an R0 close to 0.5")
    "spread cut hit cost hurt shut split quit"
)
_TOKEN = re.compile(r"[A-Za-z][\w'’-]*")
_NOT_VERB_S = ("ss", "us", "is", "ics")  # "process", "status", "analysis", "metrics"


def _has_main_verb(text: str) -> bool:
    """A guess, without a tagger, at whether a sentence with no auxiliary verb has a verb of its
    own outside a relative clause: a past tense ("Zeiler and Fergus applied masks"), a present
    tense after its subject ("Transparency matters", "we use", "others fund their work"), an
    irregular past ("DeepSEA took …"). "maturin for projects with Rust" and "wake which takes
    self" have none."""
    tokens = _TOKEN.findall(text)
    if tokens and tokens[0].lower() in _CONTRACTED:
        return True
    for i in range(1, len(tokens)):
        word, prev = tokens[i], tokens[i - 1].lower()
        if prev in _RELATIVE or (i >= 2 and tokens[i - 2].lower() in _RELATIVE):
            continue
        low = word.lower()
        if low in _IRREGULAR_PAST:
            return True
        if not word.islower() or prev in _NOUN_BEFORE:
            continue
        if prev in _PRONOUN or low in _CONTRACTED:
            return True
        if _tense_form(low):
            return True
        if low in _NOUN_BEFORE or low in _RELATIVE or low.endswith(("ly", "ing")):
            continue
        if (i + 1 < len(tokens) and tokens[i + 1] in _OBJECT_AFTER) or (
            len(prev) >= 4
            and prev.endswith("s")
            and not prev.endswith(_NOT_VERB_S)
            and tokens[i - 1].islower()
        ):
            return True  # "… choose that day", "other agencies share similar information"
    return False


def links_its_predicate(before: str, linked: str) -> bool:
    """Whether a sentence's subject stands before its first link and the link's text opens with
    the verb: "DataFusion [uses Bloom filters when available](…)", "DuckDB [rewrites IN
    clauses](…)", a statement whose predicate is linked, not a link with a label before it."""
    subject = _TOKEN.findall(before)
    words = linked.split()
    return (
        0 < len(subject) <= 3
        and subject[0][:1].isupper()
        and before.rstrip()[-1:].isalnum()  # not a label: "Website: https://…", "Clojure: iapetos"
        and len(words) >= 2
        and "/" not in linked
        and words[0].isalpha()
        and words[0].islower()
        and subject[-1].lower() not in _NOUN_BEFORE
        and _finite_verb(words[0])
    )


def _tense_form(low: str) -> bool:
    """ "uses", "rewrites", "allowed": a present or past tense by its ending ("process", "status",
    "metrics" are nouns)."""
    return len(low) >= 4 and (low.endswith("ed") or (low.endswith("s") and not low.endswith(_NOT_VERB_S)))


def _finite_verb(word: str) -> bool:
    low = word.lower()
    return low in _IRREGULAR_PAST or _tense_form(low)


# A phrase is short; past this many words the verb guess above is more often wrong than right.
_FRAGMENT_WORDS = 20


# Verbs a change's title opens with, besides the imperatives ("Improve how rustdoc warnings are
# displayed", "Stabilize `Option::zip`").
_CHANGE_VERBS = wordset(
    "improve refactor deprecate stabilize document bump rename revert tweak simplify speed"
)


def names_a_change(text: str) -> bool:
    """Whether a linked title is a change's, in the imperative ("Improve how rustdoc warnings are
    displayed", "have String use SliceIndex impls from str"), not a statement of what changed
    ("The homebrew/ubuntu16.04:master image has been deprecated")."""
    m = FIRST_WORDS.match(text)
    if m is None:
        return False
    first = m.group(1).lower()
    return (first in IMPERATIVE_VERBS or first in _CHANGE_VERBS) and m.group(
        2
    ).lower() not in NOT_IMPERATIVE_NEXT


# What happened, in the perfect or the passive: "Version 0.4.2 of ponylang/corral has been
# released.", "FLEDGE has been renamed to Protected Audience API.", "We've added data type support".
_CHANGE_REPORTED = re.compile(
    r"\b(?:has|have|had)\s+been\s+(?:\w+ly\s+)?\w+(?:ed|en|wn)\b|"
    r"\b(?:was|were)\s+(?:\w+ly\s+)?\w+(?:ed|en|wn)\b|"
    r"(?:\b(?:has|have)|['’]ve)\s+(?:\w+ly\s+)?\w+ed\b",
    re.IGNORECASE,
)


def reports_a_change(text: str) -> bool:
    """Whether a sentence says that something happened ("… has been released", "… was renamed",
    "We've added …"), which the pointer after it may source ("See the release notes …")."""
    return _CHANGE_REPORTED.search(text) is not None


def is_full_sentence(text: str) -> bool:
    """A sentence with its verb and its full stop, which no title is: "[In September 2015, the
    XcodeGhost malware infected more than 2500 apps … and over 128 million iOS devices.](…)", a
    statement its author linked whole."""
    return text.rstrip().endswith(".") and len(text.split()) >= 10 and _has_main_verb(text)


def is_fragment(text: str) -> bool:
    """A phrase, not a sentence: no finite verb ("scikit-build-core for projects with C, C++",
    "With Tartiflette ASGI to provide ASGI integration", "And also the docs about Strawberry with
    FastAPI."): a list entry or caption that names what it links, so no claim unless it states a
    figure, a date or a quotation (the caller checks)."""
    return (
        len(text.split()) <= _FRAGMENT_WORDS and STATEMENT.search(text) is None and not _has_main_verb(text)
    )


# A reference's title in quotation marks ("Peter H. Salus, "A Quarter-Century of Unix", 1994") and
# its address: neither holds the reference's verbs.
_TITLE_OR_ADDRESS = re.compile(r'"[^"]{3,200}"|“[^”]{3,200}”|https?://\S+')


def reads_as_reference(text: str) -> bool:
    """A bibliographic reference, as a note gives one: who, a title, where and when it appeared,
    in fields split by commas, and no verb outside the title ("Lou Downe, "Better services with
    patterns and standards", Government Digital Service Blog, 6th August 2015, https://…",
    "Interview, Matthew Sheret, former Writer and Strategist …, 21st September 2018")."""
    bare = _TITLE_OR_ADDRESS.sub("Title", text)
    return bare.count(",") >= 2 and is_fragment(bare)


# A pointer or request after a leading clause ("Readers who are in need of a service mesh, check
# out Linkerd.", "To sign up …, please add yourself to the signup list", "If you're not happy
# with …, contact the EASS"): the main clause opens with a pointer verb and states nothing. The
# leading clause is a condition, a purpose or whom it addresses, never a statement of its own
# ("Revenue doubled in 2022, see [the guide](…)" is a claim).
# `addresses_reader` reads an imperative there too ("To resolve an error where Python.h is
# missing, install the python3-dev package"); the clause may hold a dot ("Python.h").
LEADING_CLAUSE = re.compile(
    r"(?i:if|when|whenever|once|to|for|in\s+order\s+to|[a-z]+\s+who)\b[^,;:!?—–]{0,160},\s+([a-z]+)\b\s*([\w'’]*)"
)


NAMED_AFTER_VERB = re.compile(r"[A-Za-z]+\s+the\s+[A-Z]\w*(?:\s+[A-Z]\w*){0,3}\s+\w+ed\b")


FINDING = re.compile(
    r"\b(?:found|finds|showed|shows|reported|reports|discovered|learned|observed|concluded|reveal|reveals|"
    r"revealed|demonstrated|demonstrates)\s+that\b",
    re.IGNORECASE,
)


# "We wrote about this …", "I built …": the first person, then its verb
_FIRST_PERSON_VERB = re.compile(r"\W*(?:We|I)\s+(?:\w+ly\s+)?([a-z]+)\b")


def tells_what_we_did(text: str) -> bool:
    """A first-person account in the past tense ("We wrote about this all the way back in
    2013"): a statement even when the whole sentence is a link's text (titles are written in the
    present: "How we scaled …")."""
    m = _FIRST_PERSON_VERB.match(text)
    return m is not None and (m.group(1).endswith("ed") or m.group(1) in _IRREGULAR_PAST - {"do"})


# "Or send us a message on CNCF Slack …": a conjunction before an imperative.
CONJUNCTION = re.compile(r"^\W*(?:or|and|but|so)\s+(?=[a-z])", re.IGNORECASE)
