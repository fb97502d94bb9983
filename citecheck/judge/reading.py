"""Text as a reader sees it, for the evidence rules (`judge/quotes.py`): the typography models
straighten when they quote, and the characters no reader sees."""

from __future__ import annotations

import re
import unicodedata

# Typographic characters models often straighten when quoting; one character each way, so
# offsets found in the translated text are valid in the original.
TYPOGRAPHY = str.maketrans(
    {
        **dict.fromkeys("‘’‚‛", "'"),
        **dict.fromkeys("“”„‟«»", '"'),
        **dict.fromkeys("‐‑‒–—―−", "-"),
    }
)
# Format characters no reader sees (soft hyphen, zero-width spaces and joiners, bidi controls,
# word joiners, the BOM, tag characters): they may not split a word a rule looks for.
_INVISIBLE = re.compile(
    "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\U000e0000-\U000e007f]"
)


def as_read(text: str) -> str:
    """`text` as a reader sees it: compatibility forms folded (NFKC: full-width letters,
    ligatures), invisible characters removed, quote marks and dashes straightened, white
    space collapsed to single spaces."""
    if not text.isascii():
        text = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
    return " ".join(text.translate(TYPOGRAPHY).split())
