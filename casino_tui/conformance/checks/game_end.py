"""Game-end scenarios: scores before (or after) a round, and whether the game ends, who wins,
whether another round follows.

The round in between is realized (:mod:`..realize`) from the points the scenario gives it and
played to its end by a real :class:`State`.
"""

from __future__ import annotations

import re
from typing import Any

from casino_tui.engine import Phase, scoring

from ..positions import _drive_round_end
from ..realize import realize_round, realize_round_last
from ..scenario import (
    Check,
    ScenarioError,
    SideNames,
    _bool,
    _check_position_keys,
    _engine_sides,
    _int,
    _leftover,
    _names_n,
    _obj,
    _opt_seat,
)
from ..scores import (
    _end_fields,
    _points_errors,
    _score_matches,
    _scores_errors,
    _scores_list,
    _statement_errors,
    _want_points,
)

GAME_POS_KEYS = {"scores_before_round", "round_points", "num_players", "round_no", "round",
                 "target", "last_capturer"}


def _game_end_check(c: Check) -> list[str]:
    rules = c.rules()
    pos = c.position
    e = c.expect
    after_keys = [k for k in pos if re.fullmatch(r"scores_after_round_\d+", k)]
    _check_position_keys(pos, GAME_POS_KEYS | set(after_keys))
    score_specs = [pos[k] for k in ("scores_before_round", *after_keys) if k in pos]
    if not score_specs or not all(isinstance(s, dict) for s in score_specs):
        raise ScenarioError("the position gives no scores")
    all_names = [nm for s in score_specs for nm in s]
    n = _int(pos.get("num_players", _names_n(all_names)), "num_players")
    names = SideNames(_engine_sides(rules, n))
    k = len(names.sides)
    # no last capturer given: the realized round puts the last capture where the points need it
    choose_last = "last_capturer" not in pos
    last = _opt_seat(pos.get("last_capturer"), n)
    if last is None:
        last = names.sides[0][0]
    target = pos.get("target")
    errs: list[str] = []
    used: set[str] = set()
    rno_spec = pos.get("round_no", pos.get("round"))

    if after_keys:  # scores after a given round (fixed number of rounds)
        if len(after_keys) > 1 or "scores_before_round" in pos:
            raise ScenarioError("give either scores_before_round or one scores_after_round_N")
        rno = int(after_keys[0].rsplit("_", 1)[1])
        after = _scores_list(pos[after_keys[0]], names)
        want: list[tuple[int | None, dict[str, Any] | None]] = [(None, None)] * k
        captured, sweeps = realize_round(rules, names.sides, n, want, last)
        pts = [s.total for s in scoring.score_round(rules, names.sides, captured, sweeps, last,
                                                    skip_immediate=True)]
        before = [a - p for a, p in zip(after, pts, strict=True)]
        st = _drive_round_end(rules, n, captured, sweeps, last, before, rno, target)
        errs.extend(_scores_errors(pos[after_keys[0]], st.scores, names,
                                   f"score after round {rno}"))
        if "rounds_in_match" in e:
            used.add("rounds_in_match")
            m = _int(e["rounds_in_match"], "rounds_in_match")
            early = _drive_round_end(rules, n, captured, sweeps, last, before, m - 1, target)
            if early.is_game_over:
                errs.append(f"the game ends after round {m - 1}, expected {m} rounds")
            final = _drive_round_end(rules, n, captured, sweeps, last, before, m, target)
            if not final.is_game_over:
                errs.append(f"the game does not end after round {m}")
        keys = {"winner", "game_over", "scores_after"} & set(e)
        used |= keys
        errs.extend(_end_fields(st, e, names, keys))
        errs.extend(_leftover(e, used))
        return errs

    before = _scores_list(pos.get("scores_before_round"), names)
    rp = pos.get("round_points")
    if rp is None:
        want = [(None, None)] * k
    else:
        rp = _obj(rp, "round_points")
        want = [(None, None)] * k
        for nm, v in rp.items():
            want[names.index(nm)] = _want_points(v)
    rno = (_int(rno_spec, "round_no") if rno_spec is not None
           else (1 if not any(before) else 2))
    captured, sweeps, got_last = realize_round_last(rules, names.sides, n, want, last,
                                                    choose_last=choose_last)
    if got_last is not None:
        last = got_last
    st = _drive_round_end(rules, n, captured, sweeps, last, before, rno, target)
    summary = st.round_summaries[-1]
    pooled = [[c_ for s in side for c_ in captured[s]] for side in names.sides]
    for i, w in enumerate(want):
        if w != (None, None) and not _score_matches(summary.scores[i], w, pooled[i], rules):
            errs.append(f"the replayed round scored {summary.scores[i].items} for "
                        f"{names.name(i, list(rp or {}))}, not {w}")
    keys = {"winner", "game_over", "scores_after"} & set(e)
    used |= keys
    errs.extend(_end_fields(st, e, names, keys))
    if "another_round" in e:
        used.add("another_round")
        again = st.phase == Phase.ROUND_OVER
        if again != _bool(e["another_round"], "another_round"):
            errs.append(f"another round: expected {e['another_round']}, engine phase "
                        f"{st.phase.value}")
        if again:
            r0 = st.round_no
            st.next_round()
            if st.round_no != r0 + 1 or st.phase != Phase.PLAY:
                errs.append("the engine could not start another round")
    if "target_after" in e:
        used.add("target_after")
        if st.target != _int(e["target_after"], "target_after"):
            errs.append(f"target after: expected {e['target_after']}, engine {st.target}")
    if "round_points" in e:
        used.add("round_points")
        errs.extend(_points_errors(_obj(e["round_points"], "round_points"), summary.scores,
                                   names, rules, pooled))
    if "_statement" in e:
        used.add("_statement")
        errs.extend(_statement_errors(
            e["_statement"], names,
            lambda r, sb: _drive_round_end(rules, n, captured, sweeps, last, sb, r, target),
            before))
    errs.extend(_leftover(e, used))
    return errs
