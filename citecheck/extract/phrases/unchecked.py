"""Sentences that cite nothing and have nothing to check, which are no *Unsourced* claim
(`states_nothing_checkable`): hedges, general comparisons, plans, method notes, feelings,
schedule entries and rosters."""

from __future__ import annotations

import re

from citecheck.extract.phrases.grammar import FINDING
from citecheck.models import ClaimKind

# Hedges: "the AUPR may be competitive", "the community does seem to be gaining expertise".
# Lower case only: "May 2021" is a month.
_HEDGE = re.compile(
    r"\b(?:may|might|seems?|seemed|appears?\s+to|appeared\s+to|probably|perhaps|possibly|arguably|"
    r"presumably|supposedly)\b"
)
# A comparison stated as a general truth: "… models often require more expertise than …", "the
# new team can do so cheaper than starting over", "a stale load will result in seeing the queue
# as more full than it is".
# ("the most often", "the most commonly cited" are superlatives, not frequencies)
_GENERIC = re.compile(
    r"\b(?:can|cannot|can't|will|need\s+to|needs\s+to|usually|typically|generally|sometimes|tends?\s+to)\b|"
    r"(?<!\bmost\s)\b(?:often|commonly|frequently)\b",
    re.IGNORECASE,
)
# Plans, promises and procedures: "The Tokio team plans to release Tokio 1.0 by December 2020",
# "At 5 months, you will hold a second review". A sentence that also says what was or did
# happen ("We released 2.0 in March and will …") keeps its past.
_FUTURE = re.compile(
    r"\b(?:will|won't|shall)\s|['’]ll\s|"
    r"\b(?:plans?|planning|intends?|intending|aims?|aiming|going)\s+to\s+[a-z]|\bis\s+scheduled\s+to\b",
    re.IGNORECASE,
)
_PAST = re.compile(r"\b(?:was|were|had|did|has\s+been|have\s+been|ago|last|since)\b", re.IGNORECASE)
# An amount or a share in the future tense is a projection, an analysis's result to check: "The
# reform will raise £108.4 billion over five years", "… will cut poverty by 12%".
_PROJECTED = re.compile(r"[$£€¥]\s?\d|\d\s?%|\bper\s?cent\b|\b\d[\d.,]*\s+(?:billion|million|trillion)\b")
# How something is done, not what was found: "All models are evaluated in a configuration that
# limits the output length to 8K", "Benchmarks … are tested multiple times using …".
_METHOD = re.compile(
    r"\b(?:is|are)\s+(?:\w+ly\s+)?(?:evaluated|tested|trained|measured|computed|calculated|performed|"
    r"conducted|sampled|averaged|benchmarked|scored|assessed|repeated|run)\s+(?:in|on|using|with|by|at|"
    r"over|across|for|against|multiple|several|once|twice|three|\d)\b|"
    # how the data are shown: "This year (2014) is left out because the year is not over yet."
    r"\b(?:is|are)\s+(?:left\s+out|excluded|omitted)\s+(?:because|since|as|from|here)\b",
    re.IGNORECASE,
)
# A person's feelings anywhere in a testimonial: "It's been a momentous year, and I'm proud of …".
_FEELING = re.compile(
    r"\bI(?:['’]m|\s+am|\s+was|\s+feel|\s+felt)\s+(?:really\s+|truly\s+|so\s+|very\s+|incredibly\s+)*"
    r"(?:proud|excited|happy|glad|thrilled|grateful|honou?red|lucky)\b|"
    r"\bI\s+(?:really\s+|truly\s+)?(?:enjoyed|loved|love)\b"
)


# A schedule's entry, a deadline or a period a process sets: "Request submission deadline: Friday,
# February 13, 2026", "TAC review period: June 18 - July 2, 2026", "Results announced: No later
# than May 1, 2026"; a date to meet, not a record of what happened.
_SCHEDULE_ENTRY = re.compile(
    r"^[^:.]{0,60}?\b(?:deadline|due(?:\s+date)?|cut-?off|period|window|freeze)\s*:\s*[^.;:]{1,60}$|"
    r"^[^:.]{1,60}:\s*(?:no\s+(?:later|earlier)\s+than|not\s+(?:later|earlier)\s+than)\s+[^.;:]{1,50}$",
    re.IGNORECASE,
)


# A list entry that names someone or something and gives its dates or role, with no verb: "Alex
# Griffing (2015-2017)", "Travis Oliphant (project founder, 2005-2012)". A roster, not a statement.
_ROSTER = re.compile(
    r"^[A-Z][\w.'’-]*(?:\s+(?:[A-Z][\w.'’-]*|(?:de|del|della|der|den|di|da|du|dos|la|le|van|von|ter|bin|al)\b)){0,5}"
    r"\s*\([^()]{1,80}\)\.?$"
)


def states_nothing_checkable(text: str, kinds: list[ClaimKind]) -> bool:
    """Whether a sentence that cites nothing carries no fact worth an *Unsourced* flag: a hedge
    ("may", "seems", "probably") on a comparison or a date, a comparison stated as a general
    truth ("… often requires more expertise than …"), a plan or procedure in the future tense
    ("we plan to release 1.0 by December"), a method description ("all models are evaluated
    in …"), or a testimonial's feelings ("… and I'm proud of …"). A figure keeps a hedged or
    general sentence, a finding ("the researchers found that …") keeps any of them, and a
    quotation is kept unless it only voices feelings."""
    if FINDING.search(text):
        return False
    if _ROSTER.match(text) is not None or _SCHEDULE_ENTRY.match(text) is not None:
        return True
    has_figure = ClaimKind.statistic in kinds
    quoted = ClaimKind.quote in kinds
    if quoted:
        return not has_figure and _FEELING.search(text) is not None
    if not has_figure and _HEDGE.search(text):
        return True
    past = _PAST.search(text) is not None  # "the largest category of feedback was …": a finding
    if kinds == [ClaimKind.comparative] and not past and _GENERIC.search(text):
        return True
    if _FUTURE.search(text) and not past and not (has_figure and _PROJECTED.search(text)):
        return True
    return _METHOD.search(text) is not None or (not has_figure and _FEELING.search(text) is not None)
