"""The README's picture of the PR comment (docs/pr-comment.svg) is what docs/make_pr_comment_svg.py
makes now from a real `citecheck demo` run: a change to the comment that is not followed by a
regenerated, committed picture fails here, so the README cannot show a comment the code no
longer posts. (Regenerating it in .ci/run instead would only rewrite CI's own clone: the picture
in the repository, the one readers see, could still be stale.)"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "make_pr_comment_svg.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_pr_comment_svg", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_pictures_are_what_the_script_makes_now() -> None:
    script = _script()
    made, review = script.build_both()
    committed = script.OUT.read_text(encoding="utf-8")
    assert made == committed, "the PR comment changed: run `python docs/make_pr_comment_svg.py` and commit it"
    assert review == script.OUT_REVIEW.read_text(encoding="utf-8"), (
        "the review comment changed: run `python docs/make_pr_comment_svg.py` and commit it"
    )
    assert script.OUT == ROOT / "docs" / "pr-comment.svg"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/pr-comment.svg)" in readme and "(docs/pr-suggestion.svg)" in readme  # the README shows them


def test_the_review_picture_shows_the_suggestion_as_github_does() -> None:
    script = _script()
    claim, body = script.suggested()
    shown = [
        re.sub(r"<[^>]+>", "", t)
        for t in re.findall(r"<text[^>]*>.*?</text>", script.render_review(claim, body))
    ]
    assert shown[0] == "examples/demo.md · line 12"
    assert shown[2] == "citecheck · number check: the page gives '48%' where the claim says '70%'."
    code = "".join(t[2:] for t in shown if t[:2] in ("- ", "  ", "+ "))
    # The line as it is, then as the suggestion makes it: only the figure differs.
    assert code.count("About 70% of contributors") == 1 and code.count("About 48% of contributors") == 1
    assert "```suggestion\nAbout 48% of contributors are paid" in body
    assert shown[-1] == "Commit suggestion"


def test_the_picture_shows_the_comment_as_github_does() -> None:
    script = _script()
    body = script.comment()
    shown = [re.sub(r"<[^>]+>", "", t) for t in re.findall(r"<text[^>]*>.*?</text>", script.render(body))]
    # The outcome first, the verified claims folded, the failures and every link as in the body.
    assert shown[1] == body.splitlines()[1] and shown[1].startswith("❌ citecheck failed: ")
    assert shown[2:5] == ["Verification Report", "Verified Claims", "▸ 3 verified claims"]
    assert shown[5] == "Failed Claims"
    assert "PASS:" not in "".join(shown)  # folded: only the summary shows
    links = re.findall(r'<tspan class="link">([^<]*)</tspan>', script.render(body))
    assert "examples/demo.md:12" in links and "https://demo.citecheck.test/survey-2024.html" in links
    assert "/pull/42/files#diff-" in body  # the comment's links go into the PR's diff
    assert shown[-1].startswith(
        "2 suggested changes are on the diff, as a review: the cited page's own words"
    )
