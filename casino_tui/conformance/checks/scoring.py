"""Scoring scenarios: given capture piles, sweeps and the last capturer, the round's points (and
the scores, winner and end of the game after that round).
"""

from __future__ import annotations

from typing import Any

from casino_tui.engine import Card, CasinoError, Rules, State, scoring

from ..positions import _drive_round_end
from ..scenario import (
    Check,
    Json,
    ScenarioError,
    SideNames,
    _cards,
    _check_position_keys,
    _int,
    _leftover,
    _obj,
    _opt_seat,
    _per_seat,
    _seat,
)
from ..scores import _end_fields, _points_errors, _scores_list, _statement_errors

SCORING_POS_KEYS = {"sides", "captured", "sweeps", "last_capturer", "counts", "num_players",
                    "scores_before_round", "round_no", "target"}


def _scoring_setup(rules: Rules, pos: Json) -> tuple[int, SideNames, list[list[Card]],
                                                      list[int], int | None]:
    declared = pos.get("sides")
    cap_spec = pos.get("captured")
    if not isinstance(cap_spec, dict | list):
        raise ScenarioError("captured must map seats to cards")
    seats = set(_per_seat(cap_spec, None, "captured", _cards))  # type: ignore[arg-type]
    if isinstance(declared, dict):
        for v in declared.values():
            seats.update(_seat(s) for s in v)
    n = _int(pos.get("num_players", max(seats) + 1 if seats else 2), "num_players")
    captured_d = _per_seat(cap_spec, n, "captured", _cards)
    captured = [captured_d.get(s, []) for s in range(n)]
    sweeps_d = _per_seat(pos.get("sweeps"), n, "sweeps", lambda v: _int(v, "sweeps"))
    sweeps = [sweeps_d.get(s, 0) for s in range(n)]
    last = _opt_seat(pos.get("last_capturer"), n)
    try:
        eng_sides = State(rules, n, deal=False).sides
    except CasinoError:
        eng_sides = None
    if isinstance(declared, dict):
        decl_sides = [[_seat(s, n) for s in v] for v in declared.values()]
        if eng_sides is not None and sorted(map(sorted, decl_sides)) != sorted(map(sorted,
                                                                                  eng_sides)):
            raise ScenarioError(f"the scenario's sides {declared} are not the engine's sides "
                                f"{eng_sides} for {n} players")
        sides = eng_sides if eng_sides is not None else decl_sides
        names = SideNames(sides, declared)
    else:
        sides = eng_sides if eng_sides is not None else [[s] for s in range(n)]
        names = SideNames(sides)
    return n, names, captured, sweeps, last


def _scoring_check(c: Check) -> list[str]:
    rules = c.rules()
    pos = c.position
    e = c.expect
    _check_position_keys(pos, SCORING_POS_KEYS)
    n, names, captured, sweeps, last = _scoring_setup(rules, pos)
    errs: list[str] = []
    used: set[str] = set()
    if "counts" in pos:
        errs.extend(_counts_errors(rules, pos["counts"], captured, n))
    if "round_points" in e:
        used.add("round_points")
        scores = scoring.score_round(rules, names.sides, captured, sweeps, last)
        pooled = [[c_ for s in side for c_ in captured[s]] for side in names.sides]
        errs.extend(_points_errors(_obj(e["round_points"], "round_points"), scores, names,
                                   rules, pooled))
    game_keys = {"scores_after", "winner", "game_over", "_statement"} & set(e)
    if game_keys:
        used |= game_keys
        scores_before = _scores_list(pos.get("scores_before_round"), names)
        rno = pos.get("round_no")
        if "_statement" in e:
            errs.extend(_statement_errors(
                e["_statement"], names,
                lambda r, sb: _drive_round_end(rules, n, captured, sweeps, last, sb, r,
                                               pos.get("target")), scores_before))
        if game_keys - {"_statement"}:
            st = _drive_round_end(rules, n, captured, sweeps, last, scores_before,
                                  _int(rno, "round_no") if rno is not None else
                                  (1 if not any(scores_before) else 2), pos.get("target"))
            errs.extend(_end_fields(st, e, names, game_keys - {"_statement"}))
    errs.extend(_leftover(e, used))
    return errs


def _counts_errors(rules: Rules, counts: Any, captured: list[list[Card]], n: int) -> list[str]:
    errs = []
    per = _per_seat(counts, n, "counts", lambda v: _obj(v, "counts"))
    scores = scoring.score_round(rules, [[s] for s in range(n)], captured, [0] * n, None)
    for seat, d in per.items():
        for k, v in d.items():
            if k == "cards":
                got = scores[seat].cards
            elif k in ("spades", "hearts", "diamonds", "clubs"):
                got = scores[seat].suit_counts[("spades", "hearts", "diamonds", "clubs").index(k)]
            else:
                raise ScenarioError(f"cannot interpret count {k!r}")
            if got != v:
                errs.append(f"counts of seat {seat}: {k} {v} in the scenario, engine counts {got}")
    return errs
