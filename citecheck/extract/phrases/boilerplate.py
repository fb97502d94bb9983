"""Lines that state no claim even when they link a page, by their form: pointers and calls to
action, thanks, credits, bylines, date stamps, metadata lines, note labels, meta notes,
copyright lines and agendas (`boilerplate_form`); feelings, lead-ins, questions and event
listings; and the pointer after a fact that names its source (`points_to_source`)."""

from __future__ import annotations

import re

from citecheck.extract.kinds import ZONE
from citecheck.extract.phrases.grammar import (
    CONJUNCTION,
    FINDING,
    FIRST_WORDS,
    LEAD_LABEL,
    LEADING_CLAUSE,
    NAMED_AFTER_VERB,
    STATEMENT,
    reads_as_statement,
)
from citecheck.extract.words import CALL_VERBS, NOT_IMPERATIVE_NEXT, POINTER_VERBS
from citecheck.numbers import wordset

# What is no claim even when it links a page: pointers and calls to action ("see …", "read more",
# "for more information", "… is worth mentioning", "she has a website at …"), thanks, bylines and
# date stamps ("By Jane Doe", "Updated 2024-05-03: …", "Posted on March 3"), disclaimers and meta
# notes ("Disclaimer: …", "Please note: …"), image credits ("Image courtesy of …").

# "For more information, …", "More details are …", "To learn more, …": more is elsewhere.
_MORE_ELSEWHERE = (
    r"for\s+(?:a\s+|the\s+)?(?:more|further|additional|full|complete)\s+(?:information|info|details|context|"
    r"examples|background|reading|list|overview|explanation|description)\b|"
    r"more\s+(?:information|info|details)\s+(?:is|are|can|about|on|in|at)\b|"
    r"(?:to\s+)?(?:learn|read|find\s+out)\s+more\b"
)
_BOILERPLATE_START = re.compile(
    # copyright and licence lines, with or without a link: "Copyright (c) 2019 Elan Shanker
    # (https://…)", "License: MIT By: … Repository: https://…"
    r"(?P<copyright>copyright\s+(?:\(c\)|©|\d{4}\b|by\b|(?-i:[A-Z]))|\(c\)\s|©|licen[cs]e\s*:)|"
    # an agenda's entry, its duration first ("(15 minutes) Framing round robin: …"; the caller has
    # stripped the parenthesis)
    r"(?P<agenda>~?\d+(?:\s*[-–]\s*\d+)?\s*(?:min|mins|minutes|hours?|hrs?)\.?\s*\)|"
    # a recording's chapter mark, its timestamp first ("25:27 How does SvelteKit fare … - Henry
    # Lie (25 minutes)", "00:05:20 Thomas begins talk"); a timeline's entry has its zone, its half
    # of the day, a colon or a dash after the time ("10:03:52 UTC Mariano reverted …")
    rf"(?:\d{{1,2}}:)?\d{{1,2}}:[0-5]\d\s(?!\s*(?:{ZONE}|[-–—:(])))|"
    rf"(?P<pointer>{_MORE_ELSEWHERE}|"
    r"(?:you\s+can|you\s+may|feel\s+free\s+to)\s+(?:also\s+)?(?:read|learn|find|see|check|watch|download|try|"
    r"get|view|follow|join|listen|explore|browse|track|subscribe|register|contact|reach|refer)\b)|"
    # a credit line: "Technical reviews by Kevin Swiber (Postman), …", "Edited by …"
    r"(?P<credit>(?:technical\s+|peer\s+)?(?:reviews?|reviewed|edit(?:ed|ing)|proofreading|illustrations?)\s+by\b|"
    r"(?:image|photo|figure|illustration|graphic|screenshot|video|banner|cover\s+image|header\s+image|logo)s?\s+"
    r"(?:courtesy|credit|by|from|via|source)\b|(?:photo|image)\s+credits?\b|credits?\s*:|source\s*:)|"
    # a call to action: "We encourage you to try out Hermes …", "We ask that you … give us feedback",
    # "Feel free to …", "Don't hesitate to …"
    r"(?P<call_to_action>(?:we|I)\s+(?:(?:also|strongly|highly|kindly|\w+ly)\s+)?(?:encourage|invite|ask|urge)\s+"
    r"(?:that\s+)?(?:you|everyone|all\s+of\s+you|readers|users)\b|(?:feel\s+free|don['’]t\s+hesitate)\s+to\b)|"
    r"(?P<thanks>(?:a\s+)?(?:big|huge|special|many|sincere|heartfelt)?\s*thanks?\s+(?:you|to\s+(?:everyone|all|our|"
    r"each|every|the\s+(?:many|amazing|wonderful|whole))|for)\b|thank\s+you\b)|"
    r"(?P<byline>by\s+[A-Z][\w.'’-]+(?:\s+[A-Z][\w.'’-]+){0,3}\s*$)|"
    r"(?P<note_label>(?:edit(?:ed)?|updated?|update\s+\d|disclaimer|please\s+note|note|nb|n\.b\.|p\.?s\.?)\b"
    r"[^:.!?]{0,40}:|note,)",
    re.IGNORECASE,
)
# … and anywhere in it (tried only when one of `_BOILERPLATE_WORDS` is there)
_BOILERPLATE_WORDS = (
    "recommend",
    "thank",
    "grateful",
    "acknowledge",
    "worth",
    "available",
    "website",
    "homepage",
    "blog",
    "site",
    "information",
    "details",
    "reading",
    "credit",
    "be found",
    "be read",
    "be viewed",
    "be accessed",
    "be downloaded",
    "be seen",
    "be watched",
    "originally",
)
_BOILERPLATE_ANY = re.compile(
    r"\b(?=[wisahmfcto])(?:"  # the first letters of the alternatives (see `kinds._STAT_DIGITS`)
    r"(?P<thanks>\b(?:we|I)(?:\s+would\s+like\s+to|\s+want\s+to|\s+wanted\s+to|['’]d\s+like\s+to)\s+(?:say\s+)?"
    r"(?:thank|acknowledge)|\b(?:we|I)\s+(?:thank|are\s+grateful|am\s+grateful)\b|\bspecial\s+thanks\b)|"
    r"(?P<pointer>\bworth\s+(?:mentioning|reading|a\s+read|a\s+look|checking\s+out|noting\s+here)\b|"
    # "… we also highly recommend reading [this guide]"
    r"\b(?:we|I)\s+(?:(?:also|strongly|highly|\w+ly)\s+)*recommend\s+(?:reading|watching|checking\s+out|"
    r"visiting|looking\s+at)\b|"
    r"\b(?:is|are)\s+available\s+(?:here|at\s+the\s+link|online\s+here)\b|"
    r"\bhas\s+a\s+(?:website|homepage|home\s+page|blog|personal\s+site)\b|"
    r"\b(?:more|further)\s+(?:information|details|reading)\s+(?:is\s+|are\s+|can\s+be\s+found\s+)?(?:here|at|in|on)\b|"
    # "The source can be found here.", "The slides can be viewed on our website."
    # (not in a clause of its own: "… has paintings which can be found at …")
    r"(?<!\bwhich\s)(?<!\bthat\s)(?<!\bwho\s)"
    r"\b(?:can|may)\s+(?:also\s+)?be\s+(?:found|read|viewed|accessed|downloaded|seen|watched)\s+(?:here|there|below|"
    r"above|online|at|on\s+(?:the|our|this|its|their|GitHub|YouTube)|in\s+(?:the|our|this|its|their)\s+"
    r"(?:[\w.-]+\s+){0,3}?(?:docs|"
    r"documentation|repository|repo|guide|blog|wiki|readme|changelog|release\s+notes|post|article|book|website|"
    r"site|page|issue|thread|forum|chapter|section|appendix))\b)|"
    # a credit line: "The credits for this syntax go to Björn Rabenstein."; a cross-post's note:
    # "Ian Beer, Project Zero (Originally posted on Project Zero blog 2020-07-27)"
    r"(?P<credit>\b(?:the\s+)?credits?\s+(?:for\b[^.!?]{0,80}?\s)?(?:goes|go)\s+to\b|"
    r"(?<=\()originally\s+(?:posted|published)\s+(?:on|in|at|to)\b))",
    re.IGNORECASE,
)
# An announcement that something can be had, and nothing more: "[Tickets](…) are available.",
# "Audio from the September 21, 2021 Pony development sync is available.". Not after a clause of
# its own ("The sprint was held on October 23, 2021, and the event report is now available."), nor
# a relative clause ending a statement ("…, the most recent year for which data are available.").
_ANNOUNCED = re.compile(
    r"(?![^;:]*?(?:\b(?:which|that|where|whose|whom)\b|,\s+and\s))[^;:]{1,160}?\b(?:is|are)\s+(?:now\s+)?"
    r"available\s*[.!]?\s*$",
    re.IGNORECASE,
)
# A date a line opens with, then a byline: "Oct 16, 2025 by Jane Doe", "2024-05-03 — by …".
_SHORT_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_DATED_BYLINE = re.compile(
    rf"^(?:{_SHORT_MONTH}\s+\d{{1,2}},?\s+\d{{4}}|\d{{1,2}}\s+{_SHORT_MONTH}\s+\d{{4}}|\d{{4}}-\d{{2}}-\d{{2}})"
    r"\s*[-–—|·,]?\s*by\s",
    re.IGNORECASE,
)
# "Posted on March 3 by …", "Last updated: 2024-05-03": a byline or stamp is short.
_STAMP = re.compile(
    r"^(?:posted|published|released|written|authored|last\s+updated|last\s+modified|last\s+reviewed|originally\s+published|"
    r"updated|reviewed)(?:\s+(?:on|in|at|by|from)\b|\s*[:\-–—(]|\s+\d|\s*$)",
    re.IGNORECASE,
)
# "Estimated time to complete: 60 minutes": a page's metadata line, a label and a short value.
_METADATA = re.compile(
    r"^(?:estimated\s+)?(?:time(?:\s+to\s+(?:complete|read))?|duration|reading\s+time|level|difficulty|"
    r"(?:start\s+|creation\s+|publication\s+)?date|created|published|"
    r"authors?|version|status|tags?|categor(?:y|ies)|audience|prerequisites|length|license|format|"
    r"last\s+(?:updated|modified|reviewed))\s*:\s*\S+(?:\s+\S+){0,4}\s*$",
    re.IGNORECASE,
)


# A conditional addressed to the reader, then whom to contact ("If you have something you'd
# like to be included contact the newsletter owner.").
_IF_YOU_CONTACT = re.compile(
    r"(?:[A-Za-z]+(?:\s+[A-Za-z]+)?,\s+)?(?i:if|when)\s+you\b[^.!?]{0,160}?\b(?:contact|email|ask|tell|message|ping|"
    r"find|let\s+us\s+know|"
    r"get\s+in\s+touch\s+with|reach\s+out\s+(?:to|in|on|at|via))\s+(?:the|us|me|our|them|[A-Z@])"
)
# Where advice is ("AbilityNet has advice on making your device easier to use"): a pointer.
_HAS_ADVICE = re.compile(
    r"\b(?:has|have|offers?|provides?|gives?)\s+(?:(?:some|more|useful|helpful|further|detailed|additional|"
    r"practical|good)\s+)*(?:advice|guidance|information|tips|instructions|suggestions)\s+(?:on|about|for)\b",
    re.IGNORECASE,
)
# A list item that continues the one before it, with no verb of its own ("and others who
# designed std::task.").
_CONTINUATION = re.compile(r"(?:and|or|as\s+well\s+as|plus)\s")


_ADVICE_WORDS = ("advice", "guidance", "information", "tips", "instructions", "suggestions")


def _points_elsewhere(stripped: str, low: str) -> bool:
    """A pointer, request or contact that is not at the sentence's start (see above); `low` is
    `stripped` lower-cased."""
    m = LEADING_CLAUSE.match(stripped)
    if m is not None and m.group(1) in POINTER_VERBS and STATEMENT.search(stripped, m.end()) is None:
        return True
    if _IF_YOU_CONTACT.match(stripped) is not None:
        return True
    if any(w in low for w in _ADVICE_WORDS) and _HAS_ADVICE.search(stripped) is not None:
        return True
    return _CONTINUATION.match(stripped) is not None and not reads_as_statement(stripped)


# What the writer is about to do: "I here show how to apply this to the joblib example", "We will
# explore the links … more in Module 3", "In this post, we look at …". A meta note.
_META = re.compile(
    r"^\W*(?:in\s+this\s+(?:post|article|section|chapter|tutorial|guide|blog\s+post|series|module),?\s+)?"
    r"(?:(?:first|next|now|then),?\s+)?(?:I|we|let['’]s|let\s+us)\s+"
    r"(?:(?:here|now|then|first|next|also|briefly|will|['’]ll|am\s+going\s+to|are\s+going\s+to)\s+)*"
    r"(?:show|explain|describe|demonstrate|walk\s+through|discuss|present|look\s+at|explore|cover|outline|"
    r"summari[sz]e|introduce|go\s+over|dive\s+into)\s+(?:how|what|why|when|where|which|whether|the|a|an|this|"
    r"these|some|each|our|my|its|their)\b",
    re.IGNORECASE,
)
# A page, talk or document as the subject of a verb that says what is in it: "This SciPy'19 talk
# explains how much difference that support has made", "The Data Science Skills wiki contains the
# talks schedule …": a pointer to it (the caller keeps one that states a figure).
_RESOURCE_SUBJECT = re.compile(
    r"^\W*(?:this|the|that|these|those|our|their|a|an)\s+(?:[\w'’.-]+\s+){0,3}?(?:talk|post|blog\s+post|article|"
    r"guide|video|paper|page|tutorial|document|documentation|docs|wiki|book|course|section|chapter|thread|faq|"
    r"repository|repo|notebook|slides|site|website|readme|presentation|webinar|podcast|episode|handbook|manual|"
    r"folder|directory)s?"
    r"\s+(?:also\s+|further\s+)?(?:explains?|describes?|shows?|covers?|contains?|lists?|walks|goes\s+(?:into|over|"
    r"through)|discuss(?:es)?|details|outlines?|introduces?|summari[sz]es?)\b",
    re.IGNORECASE,
)
# Where more is: "Here's the source code for …", "There's also a post on …", "Full details … are
# available in the documentation", "The Helm proto, see: https://…".
_RESOURCE_POINTER = re.compile(
    # "Here's the source code for version 0.1.0", "Here's a look back at what we did in 2024"
    r"^\W*here(?:['’]s|\s+is|\s+are)\s+(?:the|a|an|another|my|our|some|what|how)\b|"
    # "There's also a post on Mozilla Hacks", "There's a great guide to … on Stack Overflow"
    r"^\W*there(?:['’]s|\s+is|\s+are)\s+(?:also\s+)?(?:a|an|another|some)\s+(?:[\w'’-]+\s+){0,2}?(?:post|"
    r"guide|talk|article|video|write-?up|tutorial|thread|podcast|episode|book|course)s?\b|"
    # where the documentation is: "Full details of the PGlite adapter are available in the
    # documentation.", "The documentation is all in the SciMLDocs."
    r"^\W*(?:the\s+)?(?:full\s+|complete\s+|more\s+)?(?:details|documentation|docs|instructions|source\s+code|"
    r"slides|recordings?)\b(?:\s+(?:of|for|on|about)\s+[^.,;:]{1,60}?)?\s+(?:is|are)\s+(?:all\s+|now\s+|also\s+)?"
    r"(?:available\s+|published\s+|hosted\s+)?(?:in|at|on|from)\b|"
    # a name, then where to look: "The Helm proto, see: https://…"
    r"^[^.,;:!?]{1,60},\s+see:",
    re.IGNORECASE,
)


# A request to read elsewhere inside a sentence: "There's a lot of details here, so please read the
# edition guide for full details."
_PLEASE_READ = re.compile(
    r"\bplease\s+(?:read|see|refer\s+to|check|consult|visit|look\s+at|review|follow)\b", re.IGNORECASE
)


_TO_US = re.compile(r"\s+(?:(?:in|on|to|with|at|for)\s+)?(?:us|our|me|my)\b", re.IGNORECASE)


# A pointer verb's look-alike opening a subject of up to three words, then the sentence's own
# verb: "Contact tracing was …", "Email filtering output is …" (not "See what the docs can do").
_SUBJECT_THEN_VERB = re.compile(
    r"(?:\s+[A-Za-z][\w-]*){1,2}\s+(?:is|are|was|were|has|have|had|does|did|will|would|can|could)\b",
    re.IGNORECASE,
)


def boilerplate_form(text: str, *, figure: bool = False) -> str | None:
    """The form of a line that states no claim even with a link, or None: `pointer` (see …, read
    more, for more information, a call to action, a page as the subject of "explains"), `thanks`,
    `credit` (reviews by …, image courtesy of …, source: …), `byline`, `date-stamp` ("Posted on
    March 3"), `metadata` ("Estimated time: 60 minutes"), `note-label` ("Disclaimer: …", "Update:
    …"), `meta-note` ("In this post, we look at …"), `copyright`, `agenda` (an agenda's or a
    recording's time marks) — see the module docstring. `figure`: the sentence states a statistic,
    so a pointer to where it comes from ("See X, which says 40% of builds fail") is a claim about
    that source."""
    stripped = text.lstrip('*_ (["“')
    m = _BOILERPLATE_START.match(stripped)
    if m is not None:
        return (m.lastgroup or "pointer").replace("_", "-")
    if _DATED_BYLINE.match(stripped):
        return "byline"
    # the second: a table's row, "Date | 05 October 2023" (an advisory's header)
    if _METADATA.match(stripped) or (
        stripped.count(" | ") == 1 and _METADATA.match(stripped.replace(" | ", ": "))
    ):
        return "metadata"
    low = stripped.lower()
    if any(w in low for w in _BOILERPLATE_WORDS):
        m = _BOILERPLATE_ANY.search(stripped)
        if m is not None:
            return m.lastgroup
        if _ANNOUNCED.match(stripped) is not None:
            return "pointer"
    if _STAMP.match(stripped) and len(stripped.split()) <= 10:
        return "date-stamp"
    unlabelled = CONJUNCTION.sub("", LEAD_LABEL.sub("", stripped, count=1), count=1)
    m = FIRST_WORDS.match(unlabelled)
    if m:
        first, second = m.group(1).lower(), m.group(2).lower()
        if first in POINTER_VERBS and second not in NOT_IMPERATIVE_NEXT and not m.group(1).isupper():
            # "Read the Docs received a grant", "Contact tracing was used …": a name or a noun
            # that opens with a verb, then the sentence's own verb. "pointer-verb": the caller
            # checks that what the verb points at is the link ("Follow [@x](…)", not "Follow good
            # security practices (see Section 7)", cited advice)
            named = NAMED_AFTER_VERB.match(stripped) is not None
            subject = _SUBJECT_THEN_VERB.match(unlabelled, m.end(1)) is not None
            if figure or named or subject:
                return None
            # "Track our progress on …", "Join us on …", "Participate in our weekly …": the
            # reader's way to us, whatever it links; a verb that only ever calls to action ("Join
            # the #falco channel on …"), too; otherwise the caller checks the link
            if (
                first in CALL_VERBS
                or (first, second) == ("check", "out")
                or _TO_US.match(unlabelled, m.end(1))
            ):
                return "pointer"
            return "pointer-verb"
    if figure:
        return None
    if _META.match(stripped) is not None:
        return "meta-note"
    if (
        _RESOURCE_POINTER.match(stripped) is not None
        or ("please" in low and _PLEASE_READ.search(stripped) is not None)
        or _points_elsewhere(stripped, low)
    ):
        return "pointer"
    if _RESOURCE_SUBJECT.match(stripped) is not None:
        return "describes-resource"
    return None


# A person's feelings, as a sentence opens: "I really enjoyed working with …", "I'm proud of …",
# "My favourite …" (a quotation that goes on to a fact after "What I love about Go …" stays).
_SENTIMENT = re.compile(
    r"^\W*I(?:['’]m|\s+am|\s+was|\s+have|\s+had)?\s+(?:really\s+|truly\s+|so\s+|very\s+|always\s+|just\s+)*"
    r"(?:enjoy(?:ed)?|lov(?:e|ed)|lik(?:e|ed)|proud|excited|happy|glad|thrilled|grateful|honou?red)\b|"
    r"^\W*my\s+favou?rite\b"
)


def is_sentiment(text: str) -> bool:
    """A person's feelings ("I really enjoyed …", "I'm proud of …"): an opinion, whatever else the
    sentence says, unless it states a figure (the caller checks)."""
    return _SENTIMENT.search(text) is not None


# A sentence that only introduces what follows it ("In the words of Section508.gov:", "Here's how
# @tdreyno responded to a pull request:", "For example, Active Admin starts its guide with:");
# one that states a finding ("@progrium found that documenting the vision helped …:") is a claim.
_INTRODUCTION = re.compile(
    r"^(?:here['’]?s|here\s+is|here\s+are|in\s+the\s+words\s+of|for\s+example|for\s+instance|e\.g\.|"
    r"as\s+an\s+example|such\s+as)\b|\b(?:says?|said|writes?|wrote|explains?|explained|puts?\s+it|"
    r"responds?|responded|replied|calls?|called|describes?|described|starts?|begins?|notes?|noted|states|"
    r"following|below|this|these|like\s+this)\b[^:]{0,80}:\s*$|\b(?:defines?|defined)\b[^:]{0,80}\bas:\s*$",
    re.IGNORECASE,
)


_GERUND_START = re.compile(r"\W*[A-Z][a-z]+ing\s")


def is_lead_in(text: str) -> bool:
    """A sentence ending with a colon that introduces a quotation, list or example and states
    nothing itself (short, a verb of saying or a "here's how" opener, or a heading with no verb)."""
    text = text.rstrip()
    if not text.endswith(":"):
        return False
    if FINDING.search(text):
        return False  # "For example, Homebrew finds that Google Analytics helps them …:"
    if len(text.split()) <= 6 or _INTRODUCTION.search(text) is not None:
        return True
    # "Managing packages in an environment (replacing pip and pipdeptree):" heads a list; a verb
    # the statement test does not know keeps "Kubernetes kops sets aside office hours …:"
    return _GERUND_START.match(text) is not None and not reads_as_statement(text)


def is_question(text: str) -> bool:
    return text.rstrip(" \"'”’)]*_").endswith("?")


# An event listing: a linked name with its date (and time, place) in fields of their own, no verb
# ("NodeConf London - May 11th, 2016", "2024-03-19 | Leipzig, DE | Rust Leipzig", "GTFS-Flex -
# Working Group Meeting | January 17, 2024 @ 10 am EST"). An announcement of what is to come,
# a schedule, not a record of what happened: "23rd September 2020: MOSS and ROS confirm contract"
# has a verb, and "Disclosure Date: 2 November 2020" labels a fact's date.
_LISTING_FIELDS = re.compile(r"\s*(?:\||\t|\s[-–—•]\s|:\s)\s*")
_DATE_WORD = re.compile(
    rf"^(?:{_SHORT_MONTH}|(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    rf"\d{{1,4}}(?:st|nd|rd|th)?|\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}(?::\d{{2}}){{0,2}}(?:[ap]m)?|{ZONE}|"
    r"[ap]m|@|to|and|&|[-–—,.])$",
    re.IGNORECASE,
)
_LISTING_TOKEN = re.compile(r"[\w:]+|[@&,.\-–—]")
_NAME_WORD = re.compile(r"[^\s()\[\],/+|]+")
_DATE_LABEL = frozenset(["date", "dates"])
# Words a name may hold in lower case ("Rust - Modern Systems Programming in Leipzig").
_NAME_SMALL = wordset("of and in the for on at with to by from or a an de la du der")


def _is_date_field(field: str) -> bool:
    tokens = _LISTING_TOKEN.findall(field)
    return any(t[0].isdigit() for t in tokens) and all(_DATE_WORD.match(t) for t in tokens)


def is_listing(text: str) -> bool:
    """Whether a linked line is an event listing: a date in a field of its own, and a name in the
    others (every word capitalised or a small word, no number, no verb, no "date" label)."""
    fields = [f for f in _LISTING_FIELDS.split(text.strip().rstrip(".")) if f.strip()]
    dated = [_is_date_field(f) for f in fields]
    if len(fields) < 2 or not any(dated) or all(dated):
        return False
    name = " ".join(f for f, d in zip(fields, dated, strict=True) if not d)
    return all(
        (w[0].isupper() or w.lower() in _NAME_SMALL or not w[0].isalnum()) and w.lower() not in _DATE_LABEL
        for w in _NAME_WORD.findall(name)
    )


# "The researchers found that …", "The authors report that …", "They showed that …": a finding
# of the study the sentence before names.
_CITED_FINDING = re.compile(
    r"^\W*(?:(?:the|these|those|this|that)\s+(?:researchers|authors|scientists|investigators|study|studies|"
    r"paper|papers|survey|report|analysis|team|work|experiments?)|they)\s+(?:also\s+|further\s+)?"
    r"(?:found|find|showed|show|reported|report|observed|concluded|demonstrated|noted)\b",
    re.IGNORECASE,
)


# A sentence that only says where the last one comes from: "See the reproducer.", "For more
# information, read the security advisory.", "More details in the release notes."
_SOURCE_POINTER = re.compile(
    rf"^\W*(?:see(?:\s+also)?|read|check\s+out|refer\s+to|{_MORE_ELSEWHERE}|"
    r"(?:the\s+)?(?:full\s+)?details\s+(?:are\s+)?(?:in|at|on)\b)",
    re.IGNORECASE,
)


def points_to_source(text: str) -> bool:
    """Whether a sentence only points at where more is ("See the reproducer.", "For more
    information, read the security advisory."): what it links is the source of the sentence
    before it."""
    return len(text.split()) <= 20 and _SOURCE_POINTER.match(text) is not None


def reports_cited_finding(text: str) -> bool:
    """Whether a sentence reports the finding of a study named just before it ("The researchers
    found that …"), so that it cites what the sentence before it cites."""
    return _CITED_FINDING.match(text) is not None
