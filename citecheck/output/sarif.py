"""SARIF 2.1.0 for code scanning: one rule per fail-on category, one result per failed or
unsourced claim under its most specific category, and one per unreadable file
(docs/ARCHITECTURE.md). A claim a check contradicted with the page's words carries its fix
(`ClaimResult.suggestion`) as the result's `fixes`, which code scanning and editors apply."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from pydantic_core import to_json

from citecheck import __version__
from citecheck.cache import digest
from citecheck.models import ClaimResult, Report, Suggestion, Verdict
from citecheck.output.common import (
    CLAIM_CHARS,
    FAIL_TAGS,
    REASON_CHARS,
    collapse_whitespace,
    shorten,
    source_url,
)
from citecheck.policy import claim_categories

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
INFORMATION_URI = "https://github.com/citecheck/citecheck"

# fail-on category → SARIF rule description, one rule per category (in their canonical order).
_RULES: dict[str, str] = {
    "unsupported": "The cited source does not support the claim.",
    "unreadable": "A selected Markdown file could not be read, so none of its claims was checked.",
    "unreachable": "The cited URL could not be fetched.",
    "blocked": "The cited site refused the request (401, 403, 429 or a challenge page).",
    "not-extractable": "No text could be extracted from the cited source.",
    "disallowed": "The cited source is outside the allowlist or blocked by the fetch guard.",
    "limit": "The claim was not checked: the cost cap or the claim limit was reached.",
    "judge-error": "The claim was not verified: the LLM judge refused, failed, or gave malformed output.",
    "unsure": (
        "The claim was not verified: the LLM judge was unsure (low confidence, evidence not on the "
        "page or too weak, or a rationale that contradicts its verdict)."
    ),
    "no-fact": (
        "The LLM judge read the sentence (a link and no cited figure, date, quotation or comparison) "
        "as stating nothing a source could support: an opinion, a pointer, a title."
    ),
    "not-verified": (
        "The claim could not be verified (judge disabled, fetching disabled, citation unresolved, ...)."
    ),
    "unsourced": "The claim cites no source.",
}
# What to do about each, shown with a code-scanning alert.
_RULE_HELP: dict[str, str] = {
    "unsupported": "Correct the claim to match the source, or cite a source that supports it.",
    "unreadable": "Fix the file (the error says why: binary, too large, too costly to parse) or exclude it.",
    "unreachable": "Fix or replace the link (an archived copy works), or retry if the site was down.",
    "blocked": "Cite a copy the site lets robots read (an archived copy works), or retry later.",
    "not-extractable": "Cite a page with the text in it (HTML, PDF or plain text), not an image or file.",
    "disallowed": "Cite a source on an allowed domain, or add its domain to `allowed-domains`.",
    "limit": "Raise `max-cost-usd` / `max-claims`, or check fewer claims per run (sharding).",
    "judge-error": "Re-run; if it persists, check the judge's key, model and base URL, or try another model.",
    "unsure": (
        "Make the claim match what the source states, or cite a source that states it plainly; "
        "drop `unsure` from `fail-on` to report such claims without failing."
    ),
    "no-fact": "Nothing to do if it is no claim; if it is, state the fact the source supports.",
    "not-verified": "Enable the judge with an API key, turn fetching on, or fix the citation.",
    "unsourced": "Add a citation (a link, footnote or reference) for the claim.",
}


def render_sarif(report: Report) -> str:
    """SARIF 2.1.0: one rule per failure type, one result per failed or unsourced claim.

    A result is an `error` when its claim hits a fail-on category, a `warning` otherwise.
    `partialFingerprints` rest on file, claim text and source, so code scanning keeps
    tracking an alert when the line moves.
    """
    rule_ids = list(_RULES)
    rules = [
        {
            "id": rule,
            "name": "".join(part.capitalize() for part in rule.split("-")),
            "shortDescription": {"text": description},
            "fullDescription": {"text": description},
            "help": {"text": _RULE_HELP[rule], "markdown": _RULE_HELP[rule]},
            "helpUri": INFORMATION_URI,
            "defaultConfiguration": {"level": "error" if rule in report.fail_on else "warning"},
        }
        for rule, description in _RULES.items()
    ]
    results: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for claim in report.claims:
        categories = claim_categories(claim)
        rule = _rule(categories)
        if rule is None:
            continue
        error = any(cat in report.fail_on for cat in categories)
        source = source_url(claim)
        message = _sarif_message(claim, source)
        result: dict[str, Any] = {}
        if claim.suggestion is not None:
            result["fixes"] = [_fix(claim.suggestion)]
        results.append(
            {
                **result,
                "ruleId": rule,
                "ruleIndex": rule_ids.index(rule),
                "level": "error" if error else "warning",
                "message": {"text": message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": quote(claim.file.replace("\\", "/"))},
                            "region": {"startLine": max(claim.line, 1), "startColumn": max(claim.column, 1)},
                        }
                    }
                ],
                "partialFingerprints": {"citecheckClaim/v1": _fingerprint(claim, rule, source, seen)},
                "properties": {"verdict": claim.verdict.value, "categories": categories},
            }
        )
    results.extend(_unreadable_results(report, rule_ids))
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "citecheck",
                        "version": report.version or __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "results": results,
                # Columns count characters, as a claim's and a fix's do (not UTF-16 units).
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
    # pydantic-core's encoder: indented output from `json` falls back to pure Python (slow).
    return to_json(sarif, indent=2).decode("utf-8") + "\n"


def _fix(suggestion: Suggestion) -> dict[str, Any]:
    """The claim's fix as a SARIF `fix`: its span replaced by the page's words (the deleted
    region's end column is the one just past it, as SARIF's is)."""
    original, replacement = shorten(suggestion.original, 80), shorten(suggestion.replacement, 80)
    return {
        "description": {"text": f"Use the source's words: “{original}” → “{replacement}”"},
        "artifactChanges": [
            {
                "artifactLocation": {"uri": quote(suggestion.file.replace("\\", "/"))},
                "replacements": [
                    {
                        "deletedRegion": {
                            "startLine": suggestion.line,
                            "startColumn": suggestion.column,
                            "endLine": suggestion.end_line,
                            "endColumn": suggestion.end_column,
                        },
                        "insertedContent": {"text": suggestion.replacement},
                    }
                ],
            }
        ],
    }


def _unreadable_results(report: Report, rule_ids: list[str]) -> list[dict[str, Any]]:
    """One result per file the run could not read: its claims were never checked."""
    level = "error" if "unreadable" in report.fail_on else "warning"
    return [
        {
            "ruleId": "unreadable",
            "ruleIndex": rule_ids.index("unreadable"),
            "level": level,
            "message": {"text": f"File not read: {shorten(error.message, REASON_CHARS)}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": quote(error.file.replace("\\", "/"))},
                        "region": {"startLine": max(error.line or 1, 1)},
                    }
                }
            ],
            "partialFingerprints": {"citecheckClaim/v1": digest("unreadable", error.file)[:32]},
            "properties": {"categories": ["unreadable"]},
        }
        for error in report.errors
        if error.fatal
    ]


def _rule(categories: list[str]) -> str | None:
    """A claim's rule: its most specific category (`judge-error` rather than `not-verified`),
    None for a claim in none (a pass)."""
    specific = [c for c in categories if c != "not-verified"]
    return (specific or categories or [None])[0]


def _sarif_message(claim: ClaimResult, source: str | None) -> str:
    text = shorten(claim.text, CLAIM_CHARS)
    if claim.verdict == Verdict.unsourced:
        return f"Unsourced claim: {text}"
    tag, default = FAIL_TAGS[claim.verdict]
    reason = shorten(claim.reason or default, REASON_CHARS)
    return f"{tag}: {reason} — claim: {text} — source: {source or 'unresolved'}"


def _fingerprint(claim: ClaimResult, rule: str, source: str | None, seen: dict[str, int]) -> str:
    """Stable across line moves; the same sentence twice in one file gets an occurrence number."""
    base = digest(rule, claim.file, collapse_whitespace(claim.text), source or "")
    seen[base] = seen.get(base, 0) + 1
    return f"{base[:32]}:{seen[base]}"
