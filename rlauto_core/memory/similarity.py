"""Bigram similarity: how alike two task texts are, in any language, without a model.

Text is normalised (NFKC, lower case, every run of punctuation or spaces one space), split into
tokens at spaces, and each token gives its character bigrams (a one-character token itself).
Chinese or Japanese text has no spaces, so a sentence is one token and its bigrams are the
usual CJK word-pair signal; in English, bigrams stay inside words, so the spaces around "the"
and "and" add nothing (across words they made unrelated English tasks look 0.3-0.5 alike).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

_SEPARATORS = re.compile(r"[\W_]+")


def normalised(text: str) -> str:
    return _SEPARATORS.sub(" ", unicodedata.normalize("NFKC", text).lower()).strip()


def bigrams(text: str) -> Counter[str]:
    out: Counter[str] = Counter()
    for token in normalised(text).split():
        if len(token) == 1:
            out[token] += 1
        for i in range(len(token) - 1):
            out[token[i : i + 2]] += 1
    return out


def dice(a: str, b: str) -> float:
    """Sørensen-Dice over bigram multisets: 1.0 for the same text, 0.0 for nothing shared."""
    left, right = bigrams(a), bigrams(b)
    total = sum(left.values()) + sum(right.values())
    if total == 0:
        return 0.0
    return 2 * sum((left & right).values()) / total


def containment(part: str, whole: str) -> float:
    """The share of `part`'s bigrams found in `whole`: a short name inside a long instruction."""
    mine = bigrams(part)
    size = sum(mine.values())
    if size == 0:
        return 0.0
    return sum((mine & bigrams(whole)).values()) / size


def contains(whole: str, part: str) -> bool:
    """`part` appears in `whole` once both are normalised (an alias named in an instruction)."""
    needle = normalised(part)
    return bool(needle) and needle in normalised(whole)
