"""Whether a text speaks to the checking rather than about the world: instructions to the
model, a message addressed to it, or a verdict stated for "this claim" (`judge/quotes.py`,
rule 2).

A page that wants a false claim passed carries the claim itself, so a quote of it is on the
page and about the claim; what gives it away is that it talks *to the judge* or *about the
verdict*, which a source on the claim's subject has no reason to do. Four kinds of text:

1. **an imperative to the reader about the checking**, at the start of a clause (after
   `.;:,!?`, a quote mark or bracket, or "and / then / so / now / please / first …"): "ignore
   / disregard / forget / override / bypass / discard" + within four words "instructions,
   prompts, directives, guidelines, guidance, rules, directions, commands, orders, constraints,
   context, everything, anything, what …"; or a verb that gives a verdict ("label, mark,
   classify, rate, treat, consider, deem, judge, confirm, verify, accept, answer …") followed
   in the same clause by "claim / statement / assertion / verdict" and then a verdict word
   ("verified, supported, true, correct, accurate, valid, confirmed, factual …"), or within
   four words "as supported / verified" ("Label as supported: …"). Also "you must / should /
   need to / are to …" + such a verb + "claim …" or "instructions …".
2. **a message addressed to a model**: "note / message / instructions / attention … to / for
   (the, all, any) AI, LLM, language model, AI assistant / model / agent, chatbot,
   fact-checker, judge, grader, evaluator"; "dear / hey / attention" + those; "if you are
   a(n) … AI / LLM / language model / chatbot / fact-checker / judge …"; "AI / LLM (…) reading /
   processing / evaluating / checking … this"; "as an AI (language model)," .
3. **a verdict for the claim**: "this / the / each / every / any (above / following / cited
   …) claim / statement / assertion (above / here …) is / should be / has been … verified /
   supported / true / accurate / marked / rated …"; "the verdict / label / rating / answer for this claim".
   Skipped when the claim itself is about claims or verdicts ("Fact-checkers rated the claim
   true"): then a page's verdict is its subject.
4. **the old fixed forms**: "ignore previous instructions" (and "disregard / forget /
   override" + "all / your / previous / prior / above …" + "instructions / prompts /
   directives") anywhere; "system prompt"; "you are now", "you are a(n) … AI / assistant /
   model / chatbot / fact-checker / judge / grader"; "answer / respond / reply (with / as /
   :) supported / true / verified / yes"; "mark … as supported / true / verified";
   "supported = true"; "new / updated / hidden instructions"; chat template tokens
   (`<|im_start|>`, `[INST]`, `<<SYS>>`).

The text is read as a reader sees it (`reading.as_read`): compatibility forms folded (NFKC:
full-width letters, ligatures), invisible format characters (zero-width spaces, soft hyphens,
bidi controls) removed, quote marks and dashes straightened, white space collapsed.

They are narrow on purpose: documentation says "set the option to true", "return true", "you
must verify your email", "the model reads the prompt", and reporting says "fact-checkers label
the claim as false"; none of these is an imperative about a claim's verdict at a clause's
start. `bench/quote_rules.py` measures how many real evidence sentences (WiCE) they refuse.
"""

from __future__ import annotations

import re

from citecheck.judge.reading import as_read


def _alt(*words: str) -> str:
    return "(?:" + "|".join(words) + ")"


# A clause starts at the text's start, after punctuation or a quote mark, or after a word
# that joins or softens an imperative ("and label …", "please ignore …", "First, treat …").
_JOINS = _alt(
    "and", "then", "so", "now", "please", "kindly", "just", "simply", "also", "instead", "first", "next",
    "finally",
)  # fmt: skip
_START = rf"(?:^|(?<=[.!?;:,\"'(\[])|\b{_JOINS}\b)\s*(?:please\s+)?"
_IGNORE = _alt("ignore", "disregard", "forget", "override", "bypass", "discard")
_RULES = _alt(
    r"instructions?", r"prompts?", r"directives?", r"guidelines?", "guidance", "rules", "directions",
    "commands", "orders", "constraints", "context",
)  # fmt: skip
_VERDICT_VERB = _alt(
    "label", "mark", "classify", "rate", "tag", "flag", "grade", "score", "treat", "consider", "regard",
    "deem", "judge", "evaluate", "assess", "declare", "confirm", "verify", "accept", "approve",
    "validate", "answer", "respond", "reply", "record", "report",
)  # fmt: skip
_META = _alt(r"claims?", r"statements?", r"assertions?", r"verdicts?")
_VERDICT = _alt(
    "verified", "supported", "true", "correct", "accurate", "valid", "confirmed", "factual",
    "approved", "passed", "pass",
)  # fmt: skip
_CLAUSE = r"[^.!?;\n]"  # within one clause
_MODEL = _alt(
    r"a\.?i\.?", r"llms?", r"language\s+models?", r"chatbots?", r"fact-?checkers?", r"judges?", r"graders?",
    r"evaluators?",
    r"a\.?i\.?\s+" + _alt(r"models?", r"assistants?", r"systems?", r"agents?", r"crawlers?", r"bots?"),
)  # fmt: skip

_DIRECTIVES = re.compile(
    "|".join(
        (
            # 1. an imperative about the checking
            rf"{_START}{_IGNORE}\b(?:\s+[\w'-]+){{0,4}}?\s+(?:{_RULES}|everything|anything|what(?:ever)?)\b",
            rf"{_START}{_VERDICT_VERB}\b{_CLAUSE}{{0,60}}?\b{_META}\b{_CLAUSE}{{0,40}}?\b{_VERDICT}\b",
            rf"{_START}{_VERDICT_VERB}\b(?:\s+[\w'-]+){{0,3}}?\s+as\s+[\"']?(?:supported|verified)\b",
            r"\byou\s+(?:must|should|shall|will|need\s+to|have\s+to|can\s+only|may\s+only|"
            r"are\s+(?:to|required\s+to|instructed\s+to|expected\s+to|asked\s+to))\s+"
            rf"(?:(?:now|only|always|simply|just)\s+)?(?:{_VERDICT_VERB}|{_IGNORE})\b{_CLAUSE}{{0,60}}?\b(?:{_META}|{_RULES})\b",
            # 2. a message addressed to a model
            rf"\b(?:notes?|messages?|instructions?|attention|reminders?|notice|memo|hints?|warning)\s+(?:to|for)\s+"
            rf"(?:(?:all|any|the|every)\s+)?{_MODEL}(?![\w-])",
            rf"\b(?:dear|attention|hey|hello|hi)\s*,?\s+{_MODEL}(?![\w-])",
            rf"\bif\s+you\s+are\s+(?:an?\s+)?(?:[\w-]+\s+){{0,2}}?{_MODEL}(?![\w-])",
            r"\b(?:a\.?i\.?|llms?|language\s+models?)(?:\s+[\w-]+){0,2}?\s+"
            r"(?:reading|processing|evaluating|summari[sz]ing|checking|verifying|analy[sz]ing|scanning|crawling|parsing)"
            r"\s+(?:this|these)\b",
            r"\bas\s+an?\s+(?:a\.?i\.?|llm|artificial\s+intelligence)(?:\s+(?:language\s+)?(?:model|assistant|system|chatbot))?\s*[,:]",
            r"\bas\s+an?\s+(?:a\.?i\.?\s+)?language\s+model\b",
            # 4. the old fixed forms
            rf"\b{_IGNORE}\s+(?:(?:all|any|the|your|my|these|those|previous|prior|above|earlier|preceding|former|other)\s+){{0,3}}"
            r"(?:instructions?|prompts?|directives?)\b",
            r"\bsystem\s+prompts?\b",
            r"\byou\s+are\s+(?:now\b|an?\s+(?:\w+\s+){0,2}?"
            r"(?:ai|assistant|model|language\s+model|chatbot|bot|fact-?checker|judge|grader)\b)",
            r"\b(?:answer|respond|reply)\s*(?:(?:with|as|that)\s+|[:=]\s*)?[\"']?(?:supported|true|verified|yes)\b",
            r"\bmark\s+(?:\w+\s+){0,3}?as\s+[\"']?(?:supported|true|verified)\b",
            r"\bsupported[\"']?\s*[:=]\s*[\"']?(?:true|yes)\b",
            r"\b(?:new|updated|hidden)\s+instructions?\b",
            r"<\|[a-z_]+\|>|\[/?inst\]|<</?sys>>",
        )
    ),
    re.IGNORECASE,
)
# 3. a verdict for the claim
_VERDICTS = re.compile(
    r"\b(?:this|the|that|each|every|any|all|these|such)\s+"
    r"(?:(?:above|following|preceding|previous|given|cited|quoted|said|present|current|referenced)\s+)?"
    rf"{_META}"
    r"(?:\s+(?:above|below|here|in\s+question|on\s+this\s+page))?\s+"
    r"(?:is|are|should|must|shall|will|has|have|can)\s+(?:(?:be|been|now|hereby|officially|therefore)\s+){0,3}"
    r"(?:marked|labell?ed|rated|classified|considered|treated|deemed|judged|verified|supported|true|correct|"
    r"accurate|confirmed|valid|factual|approved)\b"
    rf"|\b(?:verdict|label|rating|classification|answer)\s+(?:for|of|on)\s+(?:this|the|each|every|any|all)\s+{_META}",
    re.IGNORECASE,
)
# A claim that is itself about claims or verdicts may be backed by a page's verdict.
_ABOUT_VERDICTS = re.compile(
    r"\b(?:claims?|statements?|assertions?|verdicts?|fact-?check\w*|rat(?:ed|es|ing)|debunk\w*|verif\w+)\b",
    re.IGNORECASE,
)


def instructs_a_model(text: str, claim: str = "") -> bool:
    """Whether `text` speaks to the checking (instructions or a message to a model, or a
    verdict for the claim) rather than about the claim's subject: the module docstring's
    rules. `claim`, if given, lifts rule 3 when the claim itself is about a verdict."""
    seen = as_read(text)
    if _DIRECTIVES.search(seen) is not None:
        return True
    return _VERDICTS.search(seen) is not None and _ABOUT_VERDICTS.search(claim) is None
