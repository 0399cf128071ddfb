"""benchmarks.keybytes sorts what a game sends by kind."""

from __future__ import annotations

from benchmarks.keybytes import kinds_of_bytes


def test_bytes_are_sorted_into_text_styles_resets_moves_and_newlines() -> None:
    sent = b"\x1b[2;5H\x1b[1;38;5;214mab\x1b[0m\r\n\x1b[3H\xe2\x94\x80\x1b[?25l"
    counts = kinds_of_bytes(sent)
    assert counts == {"moves": 10, "styles": 13, "text": 5, "resets": 4, "newlines": 2,
                      "other escapes": 6}
    assert sum(counts.values()) == len(sent)
