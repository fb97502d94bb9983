"""Sentences that tell the reader what to do or think: imperatives, advice, requirements and
opinions (`is_imperative_or_opinion`), and instructions, offers and invitations addressed to the
reader (`addresses_reader`)."""

from __future__ import annotations

import re

from citecheck.extract.phrases.grammar import (
    CONJUNCTION,
    FINDING,
    FIRST_WORDS,
    LEAD_LABEL,
    LEADING_CLAUSE,
    NAMED_AFTER_VERB,
    STATEMENT,
)
from citecheck.extract.words import DETERMINERS, IMPERATIVE_VERBS, NOT_IMPERATIVE_NEXT
from citecheck.numbers import wordset

# Advice, requirements, plans and opinions, as a sentence words them ("you should …", "the key
# must be …", "I think …", "in my experience …"), and copyright lines.
_ADVICE = re.compile(
    r"^(?:you|we|one|maintainers|contributors)\s+(?:should|must|shouldn't|mustn't|need\s+to|ought\s+to|"
    r"have\s+to|might\s+want|may\s+want|will\s+want|could\s+consider|might\s+consider)\b|"
    r"^(?:it'?s|it\s+is|it’s)\s+(?:a\s+good\s+idea|important|essential|worth|helpful|useful|wise|crucial|"
    r"okay|ok|fine|best|better|recommended|advisable|vital|critical|key)\b|"
    r"\b(?:I|we)\s+(?:think|believe|feel|guess|suspect|hope|recommend|suggest|hypothesi[sz]e|speculate)\b|"
    # plans and hypotheticals state no fact yet ("We expect to migrate …", "If we protect 20% more
    # sites …", "A model could achieve 99% accuracy …")
    r"^(?:we|I)\s+(?:expect|plan|intend|aim|hope|want|are\s+planning|are\s+going|will\s+(?:be\s+)?(?:continue|work|keep|add|"
    r"release|publish|share|start|begin|remove|migrate))\b|^(?:(?:in\s+other\s+words|for\s+example|for\s+instance|"
    r"similarly),?\s+)?(?:if|suppose|imagine|assume|assuming|let's\s+say|say)\b|"
    r"^(?:(?:a|an|the|this|that|one|such\s+a)\s+)?(?:[\w-]+\s+){0,2}(?:could|would|might)\s+(?!not\b)|"
    r"^(?:that|this)\s+means\s+(?:that\s+)?(?:we|you)\s+(?:need|have|must|should)\b|"
    r"\b(?:we|I)\s+(?:are|am|['’]re|['’]m)\s+(?:aiming|planning|hoping|going)\s+to\b|"
    r"\bin\s+(?:my|our)\s+(?:opinion|view|experience)\b|"
    r"^(?:personally|honestly|frankly|ideally|hopefully|probably|perhaps|maybe)\b|"
    r"\b(?:IMO|IMHO)\b|^(?:if\s+you\b[^,]*,\s*)?(?:you\s+should|make\s+sure|be\s+sure|don't|do\s+not)\b|"
    # requirements and recommendations state no fact ("the key must be 2048 bits or more")
    r"\b(?:must|mustn't|should|shouldn't|shall|ought\s+to)\b|"
    # licence boilerplate
    r"^(?:copyright\b|\(c\)|©)",
    re.IGNORECASE,
)


# What follows an imperative verb: its object's determiner or a particle ("keep your", "use the",
# "set up", "be careful"). "that" is not among them: "Note that X" states X.
_OBJECT_NEXT = DETERMINERS | wordset("it them us me up out in on off sure careful aware mindful")
# "Finally, apart from cleaning your desk, keep your hands clean …": an imperative after a
# sequencing word and an optional adverbial phrase. The verb after them must take an object or a
# particle ("keep your", "use the", "set up"), so "Next, support for X was added" stays a statement.
_OPENER = re.compile(
    r"^(?:(?:and|but|so|now)\s+)?(?:finally|first(?:ly)?|second(?:ly)?|third(?:ly)?|also|then|next|lastly|additionally|in\s+addition|"
    r"instead|otherwise|alternatively|again|similarly|of\s+course|above\s+all|when\s+in\s+doubt|"
    r"where(?:ver)?\s+possible|if\s+possible),\s+"
    r"(?:(?:apart\s+from|besides|in\s+addition\s+to|as\s+well\s+as|along\s+with|after|before|when|while|once)"
    r"\b[^,]{0,80},\s+)?([a-z]+)\s+(?:"
    + "|".join(sorted(_OBJECT_NEXT | {"that", "track"}))
    + r"|an?\s+eye)\b",
    re.IGNORECASE,
)


# "Note that X", "Remember that X": the reader is asked to mark X, which states a fact or not on
# its own ("Note that … companies are only obligated to meet 30% of …" against "Note that you
# must …").
_NOTE_THAT = re.compile(r"^\W*(?:please\s+)?(?:note|notice|remember|recall)\s+that\s+(?=\S)", re.IGNORECASE)


# "Should" opening an inverted conditional ("… little excess capacity should demand increase",
# "should the need arise", "should you need …"): a condition, no requirement. A required "should"
# is followed by its verb, never by a determiner or a pronoun, nor by a subject and a verb of
# change that ends the clause.
_INVERTED_SHOULD = re.compile(
    r"\bshould\s+(?=(?:the|a|an|any|this|these|those|it|they|you|we|he|she|there)\s"
    r"|[a-z]+\s+(?:arise|occur|happen|fail|increase|decrease|rise|fall|grow|drop|change|exceed|continue|"
    r"persist|emerge|improve|worsen|decline)\b\s*(?:[,.;:)]|$))",
    re.IGNORECASE,
)


# A survey's answer and its share, as a list gives them: "build tooling (37%)", "test tooling (24%)"
# (a verb's look-alike first word does not make them instructions).
_ANSWER_SHARE = re.compile(r"[^()\n]{1,60}\(\s*~?\d+(?:\.\d+)?\s*%\s*\)\s*[.;,]?")


def is_imperative_or_opinion(text: str) -> bool:
    if _ANSWER_SHARE.fullmatch(text):
        return False
    text = LEAD_LABEL.sub("", text, count=1)
    note = _NOTE_THAT.match(text)
    if note is not None:
        text = text[note.end() :]
    if "hould" in text:
        text = _INVERTED_SHOULD.sub("", text)
    opener = _OPENER.match(text)
    if opener is not None and opener.group(1).lower() in IMPERATIVE_VERBS:
        return True
    m = FIRST_WORDS.match(text)
    if m:
        first, second = m.group(1).lower(), m.group(2).lower()
        named = first in ("let's", "let’s") and m.group(2)[:1].isupper()  # "Let's Encrypt is …"
        if (
            first in IMPERATIVE_VERBS
            and second not in NOT_IMPERATIVE_NEXT
            and not m.group(1).isupper()
            and not named
        ):
            return True
    return bool(_ADVICE.search(text))


# --- sentences addressed to the reader: no claim even with a link ---------------------------

# The reader as the subject of what the sentence says: "You can track the status under this
# issue", "Since this release upgrades to React 18, you will also need to follow the upgrade
# guide", "If you'd like to prepare slides, there's a template …", "To create a new RNG you can
# use the default_rng function", "We encourage you to try out Hermes". An instruction, an offer or
# an invitation: what the linked page says is not checked by it. Anchored at the start of the
# sentence or of its main clause (after one leading clause), so "Editor Maëlle Salmon is leading
# this work, and you can find the book" keeps its fact.
_YOU_MODAL = (
    r"you\s+(?:(?:also|now|then|still|just|simply|first|always|\w+ly)\s+)?(?:can|can['’]t|cannot|could|may|"
    r"might|will|won['’]t|would|should|must|need|needs|have\s+to|want|wish)\b|you['’](?:ll|d)\s"
)
_READER = re.compile(
    r"^\W*(?:[^,;:.!?—–()]{1,120},\s+)?(?:" + _YOU_MODAL + r")|"
    r"^\W*to\s+[a-z]+\b[^,.;:!?]{0,100}?\s+" + _YOU_MODAL + r"|"
    r"^\W*(?:we|I)\s+(?:(?:also|strongly|highly|kindly|\w+ly)\s+)?(?:encourage|ask|invite|recommend|urge|suggest|"
    r"advise)\s+(?:that\s+)?you\b",
    re.IGNORECASE,
)
# "Use static analyzers (e.g., Clang-Tidy) to look for defects", "Track our progress on the
# GitHub issue", "Be careful with parallel random number generation", "First, let's explore
# whether …": an imperative. With a link it is checked only when it is clearly one: the verb is
# followed by its object's determiner or a particle (`_OBJECT_NEXT`), or the sentence has no verb
# of its own ("Support for X was added" and "Mark C. Miller is …" open with a noun). "Note that
# X", "Remember that X" state X.
# Verbs that open a sentence only as verbs, so "Use Docker to start …" is an imperative although a
# name follows ("Mark C. Miller is …", "Open Science is …" open with a noun or a name).
_CLEAR_VERBS = wordset(
    "use install configure enable disable create add remove delete avoid ensure consider choose"
)
_STATES_WHAT_FOLLOWS = wordset("note notice remember recall say imagine assume expect")
# A condition on the reader ("If you'd like to prepare slides, there's a template …", "When you
# cough or sneeze, cover it"): an instruction when what follows the condition speaks to the
# reader too; "If you place the CONTRIBUTING file in your repository, GitHub will automatically
# link to it" states what GitHub does.
_IF_YOU = re.compile(
    r"^\W*(?:[A-Za-z]+(?:\s+[A-Za-z]+)?,\s+)?(?:if|when|whenever|unless|once|whether)\s+you(?:['’](?:re|ve|d))?\s",
    re.IGNORECASE,
)
_YOU_MODAL_ANYWHERE = re.compile(r"\b(?:" + _YOU_MODAL + r")", re.IGNORECASE)
# asides and parentheses, which may hold commas: "— the event, the workshop, travel —", "(e.g., …)"
_ASIDE = re.compile(r"\s[—–]\s[^—–]{0,120}?\s[—–]\s")
_PARENTHESES = re.compile(r"\([^()]{0,120}\)")
# a request anywhere after the condition: "… these issues list our needs -- and feel free to share"
_REQUEST = re.compile(r"\b(?:feel\s+free|please|don['’]t\s+hesitate)\b", re.IGNORECASE)
_TO_READER = re.compile(
    r"(?:you|we|I|there|here|please|feel\s+free|let['’]s|make\s+sure|be\s+sure|don['’]t|do\s+not)\b",
    re.IGNORECASE,
)


def _then_speaks_to_reader(text: str, start: int) -> bool:
    """After a condition on the reader that ends at `start`: whether the main clause is addressed
    to the reader too (you, we, there is, an imperative)."""
    # an aside ends the condition as a comma would ("If you have questions — the event, travel —
    # reach out at …")
    rest = _ASIDE.sub(", ", _PARENTHESES.sub(" ", text[start:]))
    if _REQUEST.search(rest) is not None:
        return True
    comma = rest.find(",")
    if comma < 0:
        return _YOU_MODAL_ANYWHERE.search(rest) is not None  # "if you have questions you can find us"
    main = rest[comma + 1 :].lstrip()
    if _TO_READER.match(main) is not None:
        return True
    m = FIRST_WORDS.match(main)
    return (
        m is not None
        and m.group(1).lower() in IMPERATIVE_VERBS
        and m.group(2).lower() not in NOT_IMPERATIVE_NEXT
    )


# "Let's Encrypt is …" is a name: the verb after "let's" is lower case.
_LETS = re.compile(r"^\W*(?:[A-Za-z]+,\s+)?(?i:let)(?:['’]s|\s+us)\s+[a-z]")
# "Make sure all users can see the button – the … colour must have a contrast ratio of …": a
# clause after a dash, colon or semicolon that states something.
_SECOND_CLAUSE = re.compile(r"\s[–—-]\s|[:;]\s")


# A recommendation: "We highly recommend using the Apostrophe CLI tool", "Prisma ORM is the
# recommended way to connect to …" ("it is now recommended to use default_rng" reports one).
_RECOMMENDS = re.compile(
    r"^\W*(?:we|I)\s+(?:(?:\w+ly|also|would|do)\s+)?(?:recommend|suggest|advise)\b|"
    r"\b(?:is|are)\s+the\s+(?:officially\s+)?recommended\s+(?:way|library|approach|option|tool|method|choice|"
    r"solution|setup|package)\b",
    re.IGNORECASE,
)


def addresses_reader(text: str) -> bool:
    """Whether a sentence is an instruction, an offer or an invitation to the reader ("You can
    …", "If you …, …", "We encourage you to …", "Use the …", "Let's explore …"): no claim, even
    when it links a page (the caller keeps one that states a figure, a quotation or a finding)."""
    if _READER.match(text) is not None or _LETS.match(text) is not None or _RECOMMENDS.search(text):
        return not FINDING.search(text)
    condition = _IF_YOU.match(text)
    if condition is not None:
        return _then_speaks_to_reader(text, condition.end()) and not FINDING.search(text)
    opener = _OPENER.match(text)
    if opener is not None and opener.group(1).lower() in IMPERATIVE_VERBS:
        return True  # "And then, open the docs for the sub-application, at …"
    clause = LEADING_CLAUSE.match(text.lstrip('*_ (["“'))
    if clause is not None and clause.group(1).lower() in IMPERATIVE_VERBS:
        # "To date, support for X has been added" opens its main clause with a noun
        after = clause.group(2).lower()
        if after in _OBJECT_NEXT or (
            after not in NOT_IMPERATIVE_NEXT and STATEMENT.search(text, clause.end(1)) is None
        ):
            return True
    m = FIRST_WORDS.match(CONJUNCTION.sub("", LEAD_LABEL.sub("", text, count=1), count=1))
    if m is None:
        return False
    first, second = m.group(1).lower(), m.group(2)
    if (
        not second  # "mention-bot mentions potential reviewers": a name
        or NAMED_AFTER_VERB.match(text) is not None  # "Read the Docs received a grant"
        or first not in IMPERATIVE_VERBS
        or first in _STATES_WHAT_FOLLOWS
        or first in ("never", "always", "please", "let", "let's")
        or m.group(1).isupper()
        or second.lower() in NOT_IMPERATIVE_NEXT
        or (second[:1].isupper() and first not in _CLEAR_VERBS)
        or second.lower() == "that"
    ):
        return False
    if STATEMENT.search(text, m.end()) is None:
        return True
    return second.lower() in _OBJECT_NEXT and _SECOND_CLAUSE.search(text) is None
