"""Join codes: a table's short name that people read aloud to each other.

A code is three syllables of a consonant and a vowel, ``KAMIRO``: easy to say ("ka-mi-ro"),
to hear and to type. There are no digits, so O and I cannot be taken for 0 and 1 (typed 0 and 1
are read as O and I); the consonants leave out L (like I), C, Q and X (said as other letters)
and H, J, W and Y (said differently from one language to the next).
That gives 65 syllables and 274,625 codes.

A private table (one that is not listed) has a code of six syllables, ``KAMIRO-BEDUSA``
(:data:`PRIVATE_SYLLABLES`: 75,418,890,625 codes): the code is all it takes to reach it, so it
must not be found by trying codes. The table channel also limits the wrong codes a player and
an address may try (:mod:`casino_tui.table.guard`); at that pace finding one of a thousand
private tables from a thousand addresses would take over a year. A listed table keeps the
short code: anyone sees it in the list anyway.

Typed codes are read with tolerance: any case, spaces, dashes, dots and underscores anywhere
(``ka-mi-ro``, ``Ka Mi Ro``), and the digits 0 and 1 for the letters O and I.

Codes are drawn with the operating system's random numbers unless a random source is given, so
that a private table's code cannot be predicted from the ones seen before.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection

CONSONANTS = "BDFGKMNPRSTVZ"
VOWELS = "AEIOU"
SYLLABLES = 3
CODE_LENGTH = 2 * SYLLABLES
CODE_COUNT = (len(CONSONANTS) * len(VOWELS)) ** SYLLABLES
PRIVATE_SYLLABLES = 2 * SYLLABLES
PRIVATE_CODE_LENGTH = 2 * PRIVATE_SYLLABLES
PRIVATE_CODE_COUNT = (len(CONSONANTS) * len(VOWELS)) ** PRIVATE_SYLLABLES
MAX_TYPED = 40  # characters of a typed code, separators included

_IGNORED = " -_.\t"
_DIGITS = str.maketrans({"0": "O", "1": "I"})


def normalize_code(text: str) -> str | None:
    """The code typed as ``text`` (``"ka-mi ro"`` -> ``"KAMIRO"``), or None if it is none."""
    if not isinstance(text, str) or len(text) > MAX_TYPED:
        return None
    code = "".join(c for c in text if c not in _IGNORED).upper().translate(_DIGITS)
    if len(code) not in (CODE_LENGTH, PRIVATE_CODE_LENGTH):
        return None
    for i, c in enumerate(code):
        if c not in (CONSONANTS if i % 2 == 0 else VOWELS):
            return None
    return code


def parse_code(text: str) -> str:
    """Like :func:`normalize_code`, but ``ValueError`` says what a code looks like."""
    code = normalize_code(text)
    if code is None:
        raise ValueError(f"a table's code is {SYLLABLES} syllables such as KAMIRO "
                         f"({CODE_LENGTH} letters), a private table's {PRIVATE_SYLLABLES} "
                         f"({PRIVATE_CODE_LENGTH} letters)")
    return code


def is_code(text: str) -> bool:
    return normalize_code(text) is not None


def spoken(code: str) -> str:
    """How to read a code aloud: ``KAMIRO`` -> ``ka-mi-ro`` (a private table's code in two
    words: ``ka-mi-ro be-du-sa``)."""
    words = [code[i:i + CODE_LENGTH] for i in range(0, len(code), CODE_LENGTH)]
    return " ".join("-".join(w[i:i + 2].lower() for i in range(0, len(w), 2)) for w in words)


def shown(code: str) -> str:
    """A code as the waiting room shows it, letter by letter: ``K A M I R O`` (a private
    table's with its two halves apart: ``K A M I R O   B E D U S A``)."""
    return "   ".join(" ".join(code[i:i + CODE_LENGTH])
                      for i in range(0, len(code), CODE_LENGTH))


def random_code(rng: random.Random | None = None, *, private: bool = False) -> str:
    """Any code (``private``: of :data:`PRIVATE_SYLLABLES`)."""
    rng = rng or random.SystemRandom()
    syllables = PRIVATE_SYLLABLES if private else SYLLABLES
    return "".join(rng.choice(CONSONANTS) + rng.choice(VOWELS) for _ in range(syllables))


def new_code(used: Collection[str] | Callable[[str], bool],
             rng: random.Random | None = None, *, attempts: int = 10_000,
             private: bool = False) -> str:
    """A code not in ``used`` (a collection of codes, or a function that says whether a code is
    taken); ``private``: a private table's long code. Raises ``RuntimeError`` when
    ``attempts`` random codes were all taken, which with fewer than 200,000 tables open is
    practically never."""
    taken: Callable[[str], bool] = used if callable(used) else used.__contains__
    rng = rng or random.SystemRandom()
    for _ in range(attempts):
        code = random_code(rng, private=private)
        if not taken(code):
            return code
    raise RuntimeError(f"no free table code found in {attempts} attempts")
