"""Seeded random games whose outcomes are pinned: a speedup of the engine (the compiled hot
path, its pure-Python fallback, cheaper copies) must never change what the rules allow.

Each case plays a few rounds of random legal play from a fixed seed, choosing among
``legal_moves()`` by index, so the pins cover the list of legal moves in order, not only its
contents: the scores of every round and a digest of every move played. The values were
recorded before the engine was made faster (and checked against the reference generator,
``tests/test_movegen.py``); run under both the compiled module and ``CASINO_TUI_PURE=1``-style
pure Python (see tests/test_movegen.py), they must match exactly.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

from casino_tui.engine import Rules, State

ROUNDS = 3
ROOT = Path(__file__).resolve().parents[1]


def play(preset: str, players: int, seed: int,
         options: dict[str, object] | None = None) -> tuple[list[list[int]], list[int], str]:
    """Round totals, game scores and a digest of the moves of ``ROUNDS`` seeded rounds."""
    rules = Rules.preset(preset, target=10**9, **(options or {}))
    st = State(rules, players, seed=seed)
    pick = random.Random(seed).random
    digest = hashlib.sha256()
    while not st.is_game_over and len(st.round_summaries) < ROUNDS:
        if st.is_round_over:
            st.next_round()
            continue
        moves = [m for m in st.legal_moves() if m.kind != "claim"]  # a claim ends the game
        move = moves[int(pick() * len(moves))]
        digest.update(repr(move).encode())
        st.apply(move, validate=False)
    return ([s.totals for s in st.round_summaries], list(st.scores), digest.hexdigest()[:16])


PINNED: dict[tuple[str, int, int], tuple[list[list[int]], list[int], str]] = {
    ('classic', 2, 1): ([[11, 0], [1, 10], [8, 3]],
        [20, 13], 'bbeb6573267c7771'),
    ('classic', 2, 2): ([[9, 2], [4, 7], [7, 4]],
        [20, 13], 'a207f660e6373dc6'),
    ('classic', 3, 1): ([[6, 2, 3], [10, 0, 1], [2, 6, 2]],
        [18, 8, 6], '2c89ba4be85714ac'),
    ('classic', 4, 1): ([[3, 8], [4, 7], [1, 10]],
        [8, 25], '73250be7a81c2ca7'),
    ('french_casino_seed000', 2, 1): ([[11, 0], [7, 4], [9, 2]],
        [27, 6], 'd4579bec5e414249'),
    ('french_casino_seed000', 3, 1): ([[7, 3, 0], [1, 5, 2], [0, 5, 2]],
        [8, 13, 4], '578ba6d90f4d9e83'),
    ('french_casino_seed000', 4, 1): ([[6, 5], [10, 1], [1, 10]],
        [17, 16], '77ca566dfe2f2f30'),
    ('casino_aux_piques_seed000', 2, 1): ([[18, 6], [14, 10], [17, 7]],
        [49, 23], 'd4579bec5e414249'),
    ('casino_aux_piques_seed000', 3, 1): ([[14, 8, 2], [2, 11, 8], [4, 11, 6]],
        [20, 30, 16], '578ba6d90f4d9e83'),
    ('casino_aux_piques_seed000', 4, 1): ([[12, 12], [16, 8], [5, 19]],
        [33, 39], '77ca566dfe2f2f30'),
    ('spade_cassino_seed002', 2, 1): ([[20, 5], [5, 20], [18, 7]],
        [43, 32], 'bbeb6573267c7771'),
    ('spade_cassino_seed002', 3, 1): ([[12, 6, 7], [18, 1, 6], [7, 12, 5]],
        [37, 19, 18], '2c89ba4be85714ac'),
    ('spade_cassino_seed002', 4, 1): ([[8, 17], [6, 19], [7, 18]],
        [21, 54], '73250be7a81c2ca7'),
    ('spade_cassino_hoyle', 2, 1): ([[21, 5], [6, 20], [18, 8]],
        [45, 33], 'bbeb6573267c7771'),
    ('spade_cassino_hoyle', 3, 1): ([[13, 6, 7], [19, 1, 6], [8, 12, 5]],
        [40, 19, 18], '2c89ba4be85714ac'),
    ('spade_cassino_hoyle', 4, 1): ([[9, 17], [6, 20], [7, 19]],
        [22, 56], '73250be7a81c2ca7'),
    ('draw_cassino', 2, 1): ([[11, 0], [5, 6], [2, 9]],
        [18, 15], 'f071f6b6808cba76'),
    ('draw_cassino', 3, 1): ([[2, 5, 4], [6, 3, 2], [2, 9, 0]],
        [10, 17, 6], '3f2525b457d28ac2'),
    ('draw_cassino', 4, 1): ([[9, 2], [4, 7], [4, 7]],
        [17, 16], '0ad4588b3d18c820'),
    ('casino_a_la_tire_seed000', 2, 1): ([[7, 4], [2, 9], [9, 2]],
        [18, 15], '9db139baecc9c14c'),
    ('casino_a_la_tire_seed000', 3, 1): ([[4, 1, 5], [1, 4, 3], [4, 1, 2]],
        [9, 6, 10], 'f1e5fe99c79c4ba8'),
    ('casino_a_la_tire_seed000', 4, 1): ([[3, 8], [8, 3], [9, 2]],
        [20, 13], '9ea272da4b46ee90'),
    ('royal_cassino', 2, 1): ([[10, 1], [6, 5], [2, 9]],
        [18, 15], 'dc7ff845bb70f9dc'),
    ('royal_cassino', 2, 2): ([[5, 6], [3, 8], [5, 6]],
        [13, 20], '72799b7fb051cb70'),
    ('royal_cassino', 3, 1): ([[1, 7, 3], [2, 5, 4], [7, 2, 2]],
        [10, 14, 9], 'f49369160cd0588a'),
    ('royal_cassino', 4, 1): ([[9, 2], [10, 1], [10, 1]],
        [29, 4], 'ee3713dcb6de1c30'),
    ('buckeye_cassino', 2, 1): ([[10, 1], [7, 4], [7, 4]],
        [24, 9], '07c3f401e895509a'),
    ('buckeye_cassino', 3, 1): ([[1, 7, 3], [4, 0, 7], [7, 2, 2]],
        [12, 9, 12], '730f384344f372e8'),
    ('buckeye_cassino', 4, 1): ([[9, 2], [10, 1], [8, 3]],
        [27, 6], 'bfa2e19c81c2e2f7'),
    ('california_cassino', 2, 1): ([[7, 4], [4, 7], [6, 5]],
        [17, 16], '16063810742d2d4d'),
    ('california_cassino', 3, 1): ([[10, 0, 1], [1, 7, 3], [0, 2, 9]],
        [11, 9, 13], 'b750a506dea04fda'),
    ('california_cassino', 4, 1): ([[1, 0, 0, 10], [3, 0, 6, 2], [6, 0, 2, 3]],
        [10, 0, 8, 15], '2f4498a61f45a273'),
    ('california_cassino', 6, 1): ([[0, 3, 0, 3, 2, 3], [0, 4, 5, 1, 1, 0], [6, 0, 2, 1, 1, 0]],
        [6, 7, 7, 5, 4, 3], '9bd5206ac567beca'),
    ('portuguese_cassino', 2, 1): ([[11, 0], [1, 10], [8, 3]],
        [20, 13], 'bbeb6573267c7771'),
    ('portuguese_cassino', 4, 1): ([[3, 8], [4, 7], [1, 10]],
        [8, 25], '73250be7a81c2ca7'),
    ('diamond_cassino', 2, 1): ([[0, 6], [6, 0], [1, 2]],
        [7, 8], '3ae4af9b552b9bf7'),
    ('diamond_cassino', 3, 1): ([[3, 0, 1], [0, 3, 0], [0, 1, 1]],
        [3, 4, 2], '75cca8c11ddc4bea'),
    ('diamond_cassino', 4, 1): ([[0, 3], [1, 1], [7, 0]],
        [8, 4], '7d63702401b56b97'),
    ('pluck_cassino', 2, 1): ([[11, 0], [9, 2], [11, 1]],
        [31, 3], '1ecc0141e3691374'),
    ('pluck_cassino', 3, 1): ([[0, 3, 8], [5, 5, 1], [1, 1, 9]],
        [6, 9, 18], '5abed70e2eac87ca'),
    ('pluck_cassino', 4, 1): ([[2, 9], [5, 3], [2, 6]],
        [9, 18], '449d16a54f2becef'),
    ('five_player', 5, 1): ([[5, 0, 0, 0, 6], [1, 3, 0, 2, 5], [2, 4, 0, 0, 2]],
        [8, 7, 0, 2, 13], '0ccf29c90ff51faa'),
    ('trailing_royals', 2, 1): ([[11, 0], [1, 10], [8, 3]],
        [20, 13], '23cfd4dfaf39096e'),
    ('trailing_royals', 3, 1): ([[6, 2, 3], [10, 1, 0], [2, 6, 2]],
        [18, 9, 5], 'd64e8edacafc565e'),
    ('trailing_royals', 4, 1): ([[3, 8], [4, 7], [1, 10]],
        [8, 25], '6589684f458fb61f'),
    ('face_cards_all_four', 2, 1): ([[11, 0], [1, 10], [8, 3]],
        [20, 13], '9d8af0c16218dc85'),
    ('face_cards_all_four', 3, 1): ([[6, 2, 3], [10, 0, 1], [2, 6, 2]],
        [18, 8, 6], '5308f9ac68c640f8'),
    ('face_cards_all_four', 4, 1): ([[3, 8], [4, 7], [1, 10]],
        [8, 25], '7a3c271f8ac737dc'),
    ('initial_pairs', 2, 1): ([[11, 0], [1, 10], [8, 3]],
        [20, 13], '6a1f3d1e61b1fbe0'),
    ('initial_pairs', 3, 1): ([[6, 2, 3], [10, 0, 1], [2, 6, 2]],
        [18, 8, 6], '2c89ba4be85714ac'),
    ('initial_pairs', 4, 1): ([[3, 8], [4, 7], [1, 10]],
        [8, 25], '73250be7a81c2ca7'),
    ('sudden_death', 2, 1): ([[11, 0], [1, 10], [8, 3]],
        [20, 13], 'bbeb6573267c7771'),
    ('sudden_death', 3, 1): ([[6, 2, 3], [10, 0, 1], [2, 6, 2]],
        [18, 8, 6], '2c89ba4be85714ac'),
    ('sudden_death', 4, 1): ([[3, 8], [4, 7], [1, 10]],
        [8, 25], '73250be7a81c2ca7'),
    ('michigan_sudden_death', 2, 1): ([[10, 1], [1, 10], [8, 3]],
        [61, 20], '5a01e97e9df1e584'),
    ('michigan_sudden_death', 3, 1): ([[6, 2, 3], [10, 0, 1], [2, 6, 2]],
        [18, 8, 6], '1256cfa9cb6e4228'),
    ('michigan_sudden_death', 4, 1): ([[3, 8], [0, 11], [2, 9]],
        [25, 28], '06d3c6ef1b8eed69'),
    ('call_out_21', 2, 1): ([[11, 0], [1, 10], [8, 3]],
        [20, 13], 'bbeb6573267c7771'),
    ('call_out_21', 3, 1): ([[6, 2, 3], [10, 0, 1], [2, 6, 2]],
        [18, 8, 6], '2c89ba4be85714ac'),
    ('call_out_21', 4, 1): ([[3, 8], [4, 7], [1, 10]],
        [8, 25], '73250be7a81c2ca7'),
    ('all_eleven_bonus', 2, 1): ([[12, 0], [1, 10], [8, 3]],
        [21, 13], 'bbeb6573267c7771'),
    ('all_eleven_bonus', 3, 1): ([[6, 2, 3], [10, 0, 1], [2, 6, 2]],
        [18, 8, 6], '2c89ba4be85714ac'),
    ('all_eleven_bonus', 4, 1): ([[3, 8], [4, 7], [1, 10]],
        [8, 25], '73250be7a81c2ca7'),
    ('all_eleven_skunk', 2, 1): ([[11, 0]],
        [11, 0], '5d15ae1720691120'),
    ('all_eleven_skunk', 3, 1): ([[6, 2, 3], [10, 0, 1], [2, 6, 2]],
        [18, 8, 6], '2c89ba4be85714ac'),
    ('all_eleven_skunk', 4, 1): ([[3, 8], [4, 7], [1, 10]],
        [8, 25], '73250be7a81c2ca7'),
    ('all_eleven_instant', 2, 1): ([[11, 0]],
        [11, 0], '5d15ae1720691120'),
    ('all_eleven_instant', 3, 1): ([[6, 2, 3], [10, 0, 1], [2, 6, 2]],
        [18, 8, 6], '2c89ba4be85714ac'),
    ('all_eleven_instant', 4, 1): ([[3, 8], [4, 7], [1, 10]],
        [8, 25], '73250be7a81c2ca7'),
    ('build_variant_1', 2, 1): ([[11, 0], [1, 10], [8, 3]],
        [20, 13], 'bbeb6573267c7771'),
    ('build_variant_1', 3, 1): ([[6, 2, 3], [10, 0, 1], [2, 6, 2]],
        [18, 8, 6], '2c89ba4be85714ac'),
    ('build_variant_1', 4, 1): ([[3, 8], [4, 7], [1, 10]],
        [8, 25], '73250be7a81c2ca7'),
    ('build_variant_2', 2, 1): ([[11, 0], [1, 10], [8, 3]],
        [20, 13], 'f702ab7400c2742f'),
    ('build_variant_2', 3, 1): ([[6, 2, 3], [5, 2, 4], [2, 6, 2]],
        [13, 10, 9], '85f990107df98198'),
    ('build_variant_2', 4, 1): ([[3, 8], [4, 7], [2, 9]],
        [9, 24], 'ed606d72520272bb'),
    ('build_variant_3', 2, 1): ([[11, 0], [1, 10], [8, 3]],
        [20, 13], 'f702ab7400c2742f'),
    ('build_variant_3', 3, 1): ([[6, 2, 3], [5, 2, 4], [2, 6, 2]],
        [13, 10, 9], '85f990107df98198'),
    ('build_variant_3', 4, 1): ([[3, 8], [4, 7], [5, 6]],
        [12, 21], '196dd5d915febe3d'),
    ('five_of_spades_sweeps', 2, 1): ([[11, 0], [7, 5], [8, 3]],
        [26, 8], 'dda50cc7a9039fb0'),
    ('five_of_spades_sweeps', 3, 1): ([[7, 4, 2], [10, 0, 1], [2, 6, 2]],
        [19, 10, 5], '4bd634d0252c9181'),
    ('five_of_spades_sweeps', 4, 1): ([[3, 8], [11, 1], [9, 2]],
        [23, 11], '1472b7eb02f53581'),
    ('danish_kortspil_seed001', 2, 1): ([[9, 2], [3, 9], [4, 7]],
        [16, 18], '92a4d64b47f3a1de'),
    ('danish_kortspil_seed001', 3, 1): ([[6, 5, 1], [2, 1, 10], [7, 2, 3]],
        [15, 8, 14], '953a28dbd5f2d030'),
    ('danish_kortspil_seed001', 4, 1): ([[2, 2, 1, 6], [1, 5, 4, 1], [4, 2, 3, 1]],
        [7, 9, 8, 8], 'c55ef2f960bcc351'),
}


@pytest.mark.parametrize(("preset", "players", "seed"), sorted(PINNED))
def test_seeded_games_are_unchanged(preset: str, players: int, seed: int) -> None:
    assert play(preset, players, seed) == PINNED[(preset, players, seed)]


OPTIONS_PINNED: list[tuple[str, dict[str, object], str]] = [
    ('classic', {'single_build_as_card': True}, '319d88bb45f4ca68'),
    ('classic', {'capture_extent': 'inclusion_maximal'}, 'e53d9e2ee4e7bdbb'),
    ('classic', {'compulsory_capture': 'strict'}, 'd4a7f5b2cc4f0196'),
    ('classic', {'owner_restriction': 'none', 'owner_must_keep_capture_card': False},
     '19e5c90b592d4b6d'),
    ('classic', {'table_only_groups_in_builds': False}, '31b41bbc767b2d05'),
    ('classic', {'raise_own_build': False}, '319d88bb45f4ca68'),
    ('royal_cassino', {'single_build_as_card': True}, '97cdf885568c4e5c'),
    ('danish_kortspil_seed001', {'high_value_scope': 'anywhere'}, '86d3efba9e0fdf74'),
]


@pytest.mark.parametrize(("preset", "options", "digest"), OPTIONS_PINNED)
def test_seeded_games_with_options_are_unchanged(preset: str, options: dict[str, object],
                                                 digest: str) -> None:
    assert play(preset, 2, 7, options)[2] == digest


def _attributes(st: State) -> dict[str, object]:
    """Every data attribute of a State, compiled (no ``__dict__``) or not."""
    out = {}
    for name in dir(st):
        if name.startswith("__"):
            continue
        value = getattr(st, name)
        if not callable(value):
            out[name] = value
    return out


def test_clone_copies_every_attribute_and_shares_no_list() -> None:
    rules = Rules.preset("pluck_cassino")
    st = State(rules, 3, seed=4)
    pick = random.Random(4).random
    for _ in range(20):
        moves = st.legal_moves()
        st.apply(moves[int(pick() * len(moves))], validate=False)
    copy = st.clone()
    before = _attributes(st)
    assert _attributes(copy).keys() == before.keys()
    for name, value in before.items():
        if name != "_legal":
            assert getattr(copy, name) == value, name
    for name in ("hands", "table", "stock", "captured", "sweeps", "scores", "history"):
        assert getattr(copy, name) is not getattr(st, name), name
    copy.apply(copy.legal_moves()[0])
    assert _attributes(st) == before  # the original is untouched


def test_views_and_summaries_pickle() -> None:
    """Views go to the computer players' worker process; a compiled engine must pickle them
    like the pure-Python one."""
    st = State(Rules.preset("classic"), 2, seed=9)
    while not st.is_round_over:
        st.apply(st.legal_moves()[0])
    view = st.view(1)
    assert pickle.loads(pickle.dumps(view)) == view
    summary = st.round_summaries[-1]
    assert pickle.loads(pickle.dumps(summary)) == summary


def test_the_pure_python_engine_plays_the_same_games() -> None:
    """The same pinned games with ``CASINO_TUI_PURE=1``: the engine's sources run as plain
    Python even where the compiled modules are installed (what a machine without a C compiler
    runs), and must play exactly the same games."""
    code = ("import json, sys; sys.path.insert(0, 'tests')\n"
            "from casino_tui.engine._hotpath import is_compiled\n"
            "import test_engine_pinned as t\n"
            "print(json.dumps([is_compiled(), [[*k, t.play(*k)] for k in sorted(t.PINNED)],"
            " [t.play(p, 2, 7, o)[2] for p, o, _ in t.OPTIONS_PINNED]]))\n")
    env = {**os.environ, "CASINO_TUI_PURE": "1"}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=600)
    assert res.returncode == 0, res.stderr
    compiled, games, digests = json.loads(res.stdout)
    assert compiled is False
    for preset, players, seed, (rounds, scores, digest) in games:
        assert [rounds, scores, digest] == list(PINNED[(preset, players, seed)]), preset
    assert digests == [d for _, _, d in OPTIONS_PINNED]
