"""The engine against the scenario files, and the conformance runner itself.

Every scenario of ``tests/data/scenarios_public.json`` (the companion of RULES.md) is its own test
case. ``scenarios_extra.json`` holds hand-derived positions for fields and variants the public
file does not use; ``scenarios_audit.json`` the 70 positions of an independent audit, worked out
from RULES.md (same format as the public file). The runner is also checked to *fail* on wrong or
uninterpretable scenarios, so a broken runner cannot pass everything.
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from casino_tui.conformance import (
    ScenarioError,
    build_position,
    check_scenario,
    parse_action,
    realize_round,
    realize_round_last,
    run_data,
    run_file,
)
from casino_tui.conformance.scores import _score_matches
from casino_tui.engine import PRESET_NAMES, Move, Phase, Rules, State, parse_card
from casino_tui.engine.scoring import score_round

DATA = Path(__file__).parent / "data"
PUBLIC_PATH = DATA / "scenarios_public.json"
EXTRA_PATH = DATA / "scenarios_extra.json"
AUDIT_PATH = DATA / "scenarios_audit.json"
PUBLIC = json.loads(PUBLIC_PATH.read_text(encoding="utf-8"))
EXTRA = json.loads(EXTRA_PATH.read_text(encoding="utf-8"))
AUDIT = json.loads(AUDIT_PATH.read_text(encoding="utf-8"))


def _scenario(sid: str) -> dict[str, Any]:
    for s in PUBLIC["scenarios"]:
        if s["id"] == sid:
            return copy.deepcopy(s)
    raise KeyError(sid)


def _check(scn: dict[str, Any]) -> list[str]:
    return check_scenario(scn, PUBLIC["presets"], PUBLIC["option_defaults"])


# ----------------------------------------------------------------------------- the scenarios
def test_public_file_has_55_scenarios() -> None:
    ids = [s["id"] for s in PUBLIC["scenarios"]]
    assert len(ids) == 55
    assert len(set(ids)) == 55


@pytest.mark.parametrize("scenario", PUBLIC["scenarios"], ids=lambda s: s["id"])
def test_public_scenario(scenario: dict[str, Any]) -> None:
    assert _check(scenario) == []


@pytest.mark.parametrize("scenario", EXTRA["scenarios"], ids=lambda s: s["id"])
def test_extra_scenario(scenario: dict[str, Any]) -> None:
    assert check_scenario(scenario) == []


@pytest.mark.parametrize("scenario", AUDIT["scenarios"], ids=lambda s: s["id"])
def test_audit_scenario(scenario: dict[str, Any]) -> None:
    assert check_scenario(scenario, AUDIT["presets"], AUDIT["option_defaults"]) == []


def test_audit_file_has_the_public_format() -> None:
    assert list(AUDIT) == list(PUBLIC)
    assert {k: AUDIT[k] for k in ("notation", "option_defaults", "presets")} == {
        k: PUBLIC[k] for k in ("notation", "option_defaults", "presets")}
    ids = [s["id"] for s in AUDIT["scenarios"]]
    assert len(ids) == len(set(ids)) == 70
    assert all(s["preset"] in PUBLIC["presets"] for s in AUDIT["scenarios"])


def test_run_file_reports_every_scenario() -> None:
    results = run_file(PUBLIC_PATH)
    assert [r.id for r in results] == [s["id"] for s in PUBLIC["scenarios"]]
    assert all(r.passed for r in results)


# ----------------------------------------------------------------------------- the CLI
def _cli(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "casino_tui.conformance", str(path)],
                          capture_output=True, text=True, timeout=300, check=False)


def test_cli_public_file() -> None:
    proc = _cli(PUBLIC_PATH)
    lines = proc.stdout.strip().splitlines()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert lines == ["55 passed, 0 failed"]


def test_cli_wrong_scenario(tmp_path: Path) -> None:
    good = _scenario("CAP-01")
    wrong = _scenario("CAP-01")
    wrong["id"] = "CAP-01-wrong"
    wrong["expect"]["legal_captures"] = [["T1"], ["T2"]]  # the engine also allows T1+T2
    data = {**PUBLIC, "scenarios": [good, wrong]}
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    proc = _cli(path)
    lines = proc.stdout.strip().splitlines()
    assert proc.returncode != 0
    assert lines[-1] == "1 passed, 1 failed"
    assert len(lines) == 2
    assert lines[0].startswith("FAIL CAP-01-wrong:")
    assert "unexpected captures" in lines[0]


def test_cli_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    proc = _cli(path)
    assert proc.returncode != 0
    assert proc.stdout.strip().splitlines()[-1] == "0 passed, 1 failed"


# ----------------------------------------------------------------------------- failures
# (scenario id, path into the scenario, wrong value): each must make the scenario fail.
MUTATIONS: list[tuple[str, tuple[Any, ...], Any]] = [
    ("BLD-04", ("expect", "after_move", "owner"), 1),
    ("BLD-04", ("expect", "legal_moves", 0, "kind"), "multiple"),
    ("BLD-11", ("expect", "contrast", "preset"), "french_casino_seed000"),
    ("BLD-17", ("expect", "contrast", "after_move", "owner"), 0),
    ("BLD-19", ("expect", "contrast", 2, "table"), "T1=KH, T2=5C"),
    ("BLD-20", ("expect", "contrast", 1, "legal_moves", 0, "card"), "9S"),
    ("CAP-04", ("expect", "legal_captures", 0), ["T5"]),
    ("CAP-20", ("expect", "also", "played_card"), "10S"),
    ("CAP-22", ("expect", "after_capture", "sweep_awarded_to"), None),
    ("CAP-23", ("expect", "also", "table"), "T1=8D,T2=6S"),
    ("CAP-25", ("expect", "after_capture", "table"), ["T1"]),
    ("DEAL-02", ("expect", "cards_per_player_per_deal"), [4, 4]),
    ("DEAL-03", ("expect", "by_deal_pattern", "singles", "seat0"), ["c01", "c02", "c05", "c06"]),
    ("DEAL-03", ("expect", "pattern_used_by", "singles"), "Danish preset"),
    ("DEAL-05", ("expect", "by_players", "3", "deals"), 3),
    ("END-01", ("expect", "winner"), "P1"),
    ("END-04", ("expect", "scores_after", "P1"), 19),
    ("END-06", ("expect", "contrast", "winner"), "P0"),
    ("END-07", ("expect", "rounds_in_match"), 5),
    ("END-08", ("expect", "contrast", "claimant_total"), 21),
    ("END-09", ("expect", "round_ends_immediately"), False),
    ("RND-02", ("expect", "contrast", "sweep_awarded_to"), 1),
    ("RND-05", ("expect", "residue_cards"), ["5H", "4C", "KD"]),
    ("RND-06", ("expect", "legal_moves"), [{"type": "trail", "card": "9S"}]),
    ("RND-07", ("expect", "granted_cards"), ["7H", "7C"]),
    ("RND-08", ("expect", "sweep_awarded_to"), 0),
    ("RND-10", ("expect", "checks", 1, "legal"), True),
    ("RND-10", ("expect", "checks", 2, "last_capturer_after"), 0),
    ("RND-11", ("expect", "plays_after_stock_exhausted"), 4),
    ("RND-11", ("expect", "after_play_and_draw", "stock_size"), 40),
    ("SCR-01", ("expect", "round_points", "P0", "items", "cards"), 2),
    ("SCR-05", ("position", "sides"), {"A": [0, 1], "B": [2, 3]}),
    ("SCR-08", ("expect", "contrast", "round_points", "P0"), 17),
    ("SCR-10", ("expect", "variants", "all_eleven_skunk"),
     "P0 wins the game immediately in any round"),
]


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> None:
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = value


@pytest.mark.parametrize(("sid", "path", "value"), MUTATIONS,
                         ids=[f"{m[0]}:{'.'.join(map(str, m[1]))}" for m in MUTATIONS])
def test_wrong_expectation_fails(sid: str, path: tuple[Any, ...], value: Any) -> None:
    scn = _scenario(sid)
    assert _check(scn) == []
    _set(scn, path, value)
    assert _check(scn) != []


@pytest.mark.parametrize("where", ["expect", "contrast", "position", "top", "check", "move"])
def test_uninterpretable_fields_fail(where: str) -> None:
    sid = {"contrast": "BLD-05", "check": "RND-10", "move": "BLD-04"}.get(where, "CAP-22")
    scn = _scenario(sid)
    if where == "expect":
        scn["expect"]["captured_count_after"] = 3
    elif where == "contrast":
        scn["expect"]["contrast"]["legal_build_values"] = [10]
    elif where == "position":
        scn["position"]["stock_order"] = ["AS"]
    elif where == "top":
        scn["expected_winner"] = "P0"
    elif where == "check":
        scn["expect"]["checks"][0]["action"] = "pluck T1 while nobody is looking"
    else:
        scn["expect"]["legal_moves"][0]["owner"] = 0
    errors = _check(scn)
    assert errors
    assert any("interpret" in e or "unknown" in e for e in errors), errors


def test_preset_table_mismatch_fails() -> None:
    presets = copy.deepcopy(PUBLIC["presets"])
    presets["classic"]["overrides_of_defaults"] = {"sweep_points": 2}
    errors = check_scenario(_scenario("CAP-01"), presets, PUBLIC["option_defaults"])
    assert any("preset classic differs" in e for e in errors)


def test_crash_is_a_failure_not_a_pass() -> None:
    scn = _scenario("CAP-01")
    scn["expect"]["legal_captures"] = "T1"
    assert _check(scn)
    results = run_data({"scenarios": [scn, "not a scenario"]})
    assert [r.passed for r in results] == [False, False]


# ----------------------------------------------------------------------------- positions
def test_nonfinal_position_does_not_end_round() -> None:
    # the dealer plays his only card; the round must go on (a re-deal), not end
    rules = Rules.preset("classic")
    b = build_position(rules, {"num_players": 2, "player": 1, "table": [{"id": "T1",
                                                                          "cards": ["7H"]}],
                               "hand": ["7C"]})
    st = b.state
    assert st.dealer == 1
    assert not st.is_last_deal
    ev = st.apply(Move.capture(parse_card("7C"), [0]))
    assert ev.redeal
    assert st.phase == Phase.PLAY


def test_nonfinal_last_deal_keeps_a_card_elsewhere() -> None:
    rules = Rules.preset("classic")
    b = build_position(rules, {"num_players": 2, "player": 1, "is_last_deal": True,
                               "table": [{"id": "T1", "cards": ["7H"]}], "hand": ["7C"]})
    st = b.state
    assert st.is_last_deal
    st.apply(Move.capture(parse_card("7C"), [0]))
    assert st.phase == Phase.PLAY


def test_final_position_ends_round_with_residue_to_last_capturer() -> None:
    rules = Rules.preset("classic")
    b = build_position(rules, {"num_players": 3, "player": 2, "is_final_play_of_round": True,
                               "table": [{"id": "T1", "cards": ["KD"]}], "hand": ["3S"],
                               "last_capturer": 1})
    st = b.state
    assert st.is_last_deal and not st.stock
    st.apply(Move.trail(parse_card("3S")))
    summary = st.round_summaries[-1]
    assert summary.residue_to == 1
    assert sorted(summary.residue) == sorted([parse_card("KD"), parse_card("3S")])
    assert sum(len(c) for c in st.captured) == 52  # hidden cards were given to the capturer


def test_realized_round_scores_as_requested() -> None:
    rules = Rules.preset("classic")
    sides = [[0], [1]]
    captured, sweeps = realize_round(rules, sides, 2, [(8, None), (5, None)], 0)
    scores = score_round(rules, sides, captured, sweeps, 0)
    assert [s.total for s in scores] == [8, 5]
    assert sorted(c for pile in captured for c in pile) == list(range(52))


def test_parse_action_steps() -> None:
    assert parse_action("trail 6H, then pluck T1 (7C)") == [
        ("trail", {"card": "6H"}), ("pluck", {"refs": "T1 (7C)"})]
    assert parse_action("pluck T1 before playing") == [
        ("pluck", {"refs": "T1", "when": "before"})]
    assert parse_action("pluck T2 after trailing the 6H")[0] == ("trail", {"card": "6H"})


# ----------------------------------------------------------------------------- realizing rounds
REALIZE_OPTIONS: list[dict[str, Any]] = [
    {}, {"game_end": "count_out"}, {"sweeps_cancel": True}, {"score_timing": "all_immediate"},
    {"majority_rule": "absolute_majority"}, {"cards_points": 2, "last_capture_points": 1},
    {"all_eleven_rule": "bonus_point"},
]


def _random_round(rules: Rules, n: int, rng: random.Random
                  ) -> tuple[list[list[int]], list[list[int]], list[int], int]:
    """A finished round as it could really end: the deck split at random among the capture
    piles (each seat captured something), random sweeps and last capturer."""
    sides = State(rules, n, deal=False).sides
    deck = list(rules.deck_cards)
    rng.shuffle(deck)
    cuts = sorted(rng.sample(range(1, len(deck)), n - 1))
    piles = [deck[a:b] for a, b in zip([0, *cuts], [*cuts, len(deck)], strict=True)]
    sweeps = [rng.choice([0, 0, 0, 1, 2]) for _ in range(n)]
    return sides, piles, sweeps, rng.randrange(n)


def _wants(rules: Rules, scores: list[Any], pooled: list[list[int]]) -> dict[str, list[Any]]:
    """The same round points written every way a scenario may give them."""
    ace_items = []
    for s, cards in zip(scores, pooled, strict=True):
        items = {k: v for k, v in s.items.items() if k != "aces"}
        if "aces" in s.items:
            for suit in "SHDC":
                if parse_card("A" + suit) in cards:
                    items["ace_" + suit] = rules.ace_points
        ace_items.append((None, items))
    return {
        "totals": [(s.total, None) for s in scores],
        "items": [(None, dict(s.items)) for s in scores],
        "both": [(s.total, dict(s.items)) for s in scores],
        "per-suit aces": ace_items,
        "one side free": [(None, None)] + [(s.total, None) for s in scores[1:]],
    }


def test_realize_round_builds_real_rounds() -> None:
    """The points of real rounds (every preset and player count, and rule options that change
    scoring) can all be realized, as totals, item breakdowns or both, with the last capturer
    given or left to the runner; the realized round scores exactly as asked."""
    rng = random.Random(20261123)
    tried = failed = 0
    for opts in REALIZE_OPTIONS:
        for name in PRESET_NAMES:
            rules = Rules.preset(name, **opts)
            for n in rules.player_counts:
                for _ in range(3 if not opts else 1):
                    sides, piles, sweeps, last = _random_round(rules, n, rng)
                    scores = score_round(rules, sides, piles, sweeps, last, skip_immediate=True)
                    pooled = [[c for s in side for c in piles[s]] for side in sides]
                    for form, want in _wants(rules, scores, pooled).items():
                        for choose in (False, True):
                            tried += 1
                            try:
                                cap, sw, got_last = realize_round_last(
                                    rules, sides, n, want, last, choose_last=choose)
                            except ScenarioError:
                                failed += 1
                                continue
                            assert sorted(c for p in cap for c in p) == list(rules.deck_cards)
                            assert got_last is not None and cap[got_last]
                            if not choose:
                                assert got_last == last
                            got = score_round(rules, sides, cap, sw, got_last,
                                              skip_immediate=True)
                            for i, w in enumerate(want):
                                if w != (None, None):
                                    mine = [c for s in sides[i] for c in cap[s]]
                                    assert _score_matches(got[i], w, mine, rules), \
                                        (name, opts, form, w, got[i].items)
    assert tried > 3000
    assert failed == 0, f"{failed} of {tried} rounds could not be realized"


def test_realize_round_rejects_impossible_points() -> None:
    royal = Rules.preset("royal_cassino")  # no sweep points: 11 a round at most
    with pytest.raises(ScenarioError, match="cannot construct"):
        realize_round(royal, [[0], [1]], 2, [(12, None), (0, None)], 0)
    with pytest.raises(ScenarioError, match="cannot construct"):
        realize_round(Rules.preset("classic"), [[0], [1]], 2,
                      [(None, {"cards": 3}), (None, {"cards": 3})], 0)
    with pytest.raises(ScenarioError, match="cannot construct"):
        realize_round(Rules.preset("california_cassino"), [[i] for i in range(6)], 6,
                      [(3, None)] * 6, 0)


def test_realize_round_prefers_fewest_sweeps() -> None:
    """11 points against none is the whole round without a sweep (all eleven), not 8 points
    and three sweeps with the cards tied."""
    rules = Rules.preset("all_eleven_skunk")
    cap, sw, _last = realize_round_last(rules, [[0], [1]], 2, [(11, None), (0, None)], 0)
    assert sw == [0, 0]
    assert score_round(rules, [[0], [1]], cap, sw, 0)[0].all_eleven


def test_realize_round_puts_the_last_capture_where_asked() -> None:
    rules = Rules.preset("danish_kortspil_seed001")
    want = [(None, {"cards": 1, "most_C": 2, "big_casino": 2, "little_casino": 1}),
            (None, {"last_capture": 1, "aces": 4})]
    cap, _sw, last = realize_round_last(rules, [[0], [1]], 2, want, 0, choose_last=True)
    assert last == 1 and cap[1]
    with pytest.raises(ScenarioError):
        realize_round(rules, [[0], [1]], 2, want, 0)  # seat 0 made the last capture
