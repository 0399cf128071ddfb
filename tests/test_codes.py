"""Join codes (casino_tui.table.codes): easy to read aloud, tolerant when typed, never in use."""

from __future__ import annotations

import random

import pytest

from casino_tui.table.codes import (
    CODE_COUNT,
    CODE_LENGTH,
    CONSONANTS,
    VOWELS,
    is_code,
    new_code,
    normalize_code,
    parse_code,
    random_code,
    spoken,
)


def test_alphabet_has_no_look_alikes() -> None:
    letters = set(CONSONANTS + VOWELS)
    assert not letters & set("0123456789LCQXHJWY")
    assert len(letters) == len(CONSONANTS) + len(VOWELS)
    assert CODE_COUNT == 274_625


@pytest.mark.parametrize(("typed", "code"), [
    ("KAMIRO", "KAMIRO"), ("kamiro", "KAMIRO"), ("Ka-Mi-Ro", "KAMIRO"), (" ka mi ro ", "KAMIRO"),
    ("ka_mi.ro", "KAMIRO"), ("k0m1r0", "KOMIRO"), ("b-a-d-e-f-u", "BADEFU"),
])
def test_typed_codes_are_read_with_tolerance(typed: str, code: str) -> None:
    assert normalize_code(typed) == code and parse_code(typed) == code and is_code(typed)


@pytest.mark.parametrize("typed", [
    "", "KAMI", "KAMIROS", "KAMIRU-KA", "AKIMOR", "LAMIRO", "KAMIR0X", "KA MI R", "ΚΑΜΙΡΟ",
    "KAMIRO\x1b", "[b]KAMIRO", "-" * 50 + "KAMIRO", "KAMIRÖ", "KAMIRO;ls",
])
def test_anything_else_is_not_a_code(typed: str) -> None:
    assert normalize_code(typed) is None and not is_code(typed)
    with pytest.raises(ValueError, match="KAMIRO"):
        parse_code(typed)


def test_random_codes_are_valid_and_spread() -> None:
    rng = random.Random(7)
    codes = [random_code(rng) for _ in range(2000)]
    assert all(len(c) == CODE_LENGTH and normalize_code(c) == c for c in codes)
    assert len(set(codes)) > 1980  # 274,625 codes: a few repeats at most
    assert {c[0] for c in codes} == set(CONSONANTS) and {c[1] for c in codes} == set(VOWELS)
    assert is_code(random_code())  # the system's random numbers
    assert spoken("KAMIRO") == "ka-mi-ro"


def test_new_code_avoids_codes_in_use() -> None:
    rng = random.Random(1)
    first = random_code(random.Random(1))
    # A set of used codes, or a function saying whether a code is taken.
    assert new_code(set(), random.Random(1)) == first
    other = new_code({first}, random.Random(1))
    assert other != first and is_code(other)
    taken = {first, other}
    assert new_code(taken.__contains__, random.Random(1)) not in taken
    used: set[str] = set()
    for _ in range(500):
        used.add(new_code(used, rng))
    assert len(used) == 500
    with pytest.raises(RuntimeError, match="no free table code"):
        new_code(lambda _code: True, rng, attempts=50)


def test_a_private_tables_code_is_twice_as_long() -> None:
    from casino_tui.table.codes import PRIVATE_CODE_COUNT, PRIVATE_CODE_LENGTH, shown

    code = new_code(set(), random.Random(5), private=True)
    assert len(code) == PRIVATE_CODE_LENGTH == 12 and PRIVATE_CODE_COUNT == CODE_COUNT ** 2
    said = spoken(code)
    assert said == f"{spoken(code[:6])} {spoken(code[6:])}"  # ka-mi-ro be-du-sa
    assert normalize_code(said) == normalize_code(shown(code)) == code
    assert shown("KAMIROBEDUSA") == "K A M I R O   B E D U S A"
    assert shown("KAMIRO") == "K A M I R O"
