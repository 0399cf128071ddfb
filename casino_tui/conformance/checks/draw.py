"""Draw-mode scenarios: hand and stock sizes, a play and its draw, and the plays of a round."""

from __future__ import annotations

from casino_tui.engine import State

from ..play import _compare_after
from ..positions import simulate_round
from ..scenario import Check, _check_position_keys, _int, _leftover, _obj, _seat


def _draw_check(c: Check) -> list[str]:
    rules = c.rules()
    pos = c.position
    e = c.expect
    _check_position_keys(pos, {"num_players", "player", "dealer", "hand_size_before",
                               "stock_size_before"})
    n = _int(pos.get("num_players", 2), "num_players")
    player = _seat(pos.get("player", 0), n)
    dealer = _seat(pos.get("dealer", (player - 1) % n), n)
    _st, _deals, plays = simulate_round(rules, n, dealer)
    fresh = State(rules, n, "conformance", deal=False)
    fresh.dealer = dealer
    fresh.next_round()
    errs: list[str] = []
    if fresh.to_move != player:
        errs.append(f"the first player is seat {fresh.to_move}, not {player}")
    if "hand_size_before" in pos and len(fresh.hands[player]) != pos["hand_size_before"]:
        errs.append(f"hand size before: expected {pos['hand_size_before']}, engine "
                    f"{len(fresh.hands[player])}")
    if "stock_size_before" in pos and len(fresh.stock) != pos["stock_size_before"]:
        errs.append(f"stock size before: expected {pos['stock_size_before']}, engine "
                    f"{len(fresh.stock)}")
    used: set[str] = set()
    if "after_play_and_draw" in e:
        used.add("after_play_and_draw")
        after = _obj(e["after_play_and_draw"], "after_play_and_draw")
        mv = next(m for m in fresh.legal_moves() if m.kind in ("trail", "capture", "build"))
        before = fresh.clone()
        ev = fresh.apply(mv)
        errs.extend(_compare_after(before, fresh, ev, None, after))
    if "total_plays_in_round" in e:
        used.add("total_plays_in_round")
        if len(plays) != _int(e["total_plays_in_round"], "total_plays_in_round"):
            errs.append(f"plays in the round: expected {e['total_plays_in_round']}, engine "
                        f"{len(plays)}")
    if "plays_after_stock_exhausted" in e:
        used.add("plays_after_stock_exhausted")
        late = sum(1 for _m, stock in plays if stock == 0)
        if late != _int(e["plays_after_stock_exhausted"], "plays_after_stock_exhausted"):
            errs.append(f"plays after the stock ran out: expected "
                        f"{e['plays_after_stock_exhausted']}, engine {late}")
    errs.extend(_leftover(e, used))
    return errs
