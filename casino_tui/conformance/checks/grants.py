"""Initial-pair scenarios: the first deal puts given cards on the table, and the engine grants
them (or not) to a player, with or without a sweep.
"""

from __future__ import annotations

from collections import Counter

from casino_tui.engine import pile_cards

from ..play import _table_norm, _types_error
from ..positions import _deal_with
from ..scenario import (
    Check,
    ScenarioError,
    _cards,
    _check_position_keys,
    _cstr,
    _int,
    _leftover,
    _opt_seat,
    _seat,
    _table_desc,
)

GRANT_POS_KEYS = {"num_players", "dealer", "first_player", "initial_table"}


def _grant_check(c: Check) -> list[str]:
    rules = c.rules()
    pos = c.position
    e = c.expect
    _check_position_keys(pos, GRANT_POS_KEYS)
    n = _int(pos.get("num_players", 2), "num_players")
    dealer = _seat(pos.get("dealer", 1 if n == 2 else n - 1), n)
    initial = _cards(pos["initial_table"])
    st = _deal_with(rules, n, dealer, {None: initial})
    errs: list[str] = []
    if "first_player" in pos and st.to_move != _seat(pos["first_player"], n):
        errs.append(f"first player: expected {pos['first_player']}, engine {st.to_move}")
    grant = st.initial_grant
    used: set[str] = set()
    if "granted_to" in e:
        used.add("granted_to")
        got = grant[0] if grant else None
        if got != _opt_seat(e["granted_to"], n):
            errs.append(f"granted to: expected {e['granted_to']}, engine {got}")
    if "granted_cards" in e:
        used.add("granted_cards")
        got_c = sorted(grant[1]) if grant else []
        if got_c != sorted(_cards(e["granted_cards"])):
            errs.append(f"granted cards: expected {e['granted_cards']}, engine {_cstr(got_c)}")
    if "sweep_awarded_to" in e:
        used.add("sweep_awarded_to")
        got_s = [s for s in range(n) if st.sweeps[s]]
        exp = _opt_seat(e["sweep_awarded_to"], n)
        if got_s != ([] if exp is None else [exp]):
            errs.append(f"sweep awarded to: expected {e['sweep_awarded_to']}, engine "
                        f"{got_s or None}")
    if "last_capturer" in e:
        used.add("last_capturer")
        if st.last_capturer != _opt_seat(e["last_capturer"], n):
            errs.append(f"last capturer: expected {e['last_capturer']}, engine "
                        f"{st.last_capturer}")
    if "table_after_grant" in e:
        used.add("table_after_grant")
        want = e["table_after_grant"]
        if not isinstance(want, list):
            raise ScenarioError("table_after_grant must be a list")
        have = Counter(frozenset(pile_cards(p)) for p in st.table)
        if _table_norm(want, None) != have:
            errs.append(f"table after grant: expected {want}, engine {_table_desc(st.table)}")
    for k in ("first_player_legal_move_types", "legal_move_types"):
        if k in e:
            used.add(k)
            errs.extend(_types_error(st, e[k], "first player's legal move types"))
    errs.extend(_leftover(e, used))
    return errs
