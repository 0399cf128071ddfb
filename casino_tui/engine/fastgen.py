"""Fast legal move generation: candidates cached per table shape, filtered per position.

The engine keeps the table in canonical order (loose cards ascending, then builds oldest first).
Every capture set and build candidate then depends only on the *shape* of the table: the value
classes of the loose cards and the (value, kind, court, size) of each build. :class:`TableMoves`
computes them once per shape; the mover's hand and the owner rules are applied per position with
the same filters as the reference generator in :mod:`movegen` (``capture_allowed``,
``build_allowed``, ``trail_allowed``), and :func:`generate` returns exactly the reference's list
in the same order (``tests/test_movegen.py`` checks this on random positions of every preset).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import movegen
from ._hotpath import generate_for
from .cards import Card, rank_of
from .movegen import (
    BuildCandidate,
    Context,
    TableInfo,
    assemble,
    build_allowed,
    disjoint_unions,
    mask_order,
    mask_tuple,
    subset_sums,
    trail_allowed,
)
from .moves import Build, Move, Pile
from .rules import Rules

_CACHE_LIMIT = 100_000

# (mask, pile tuple, single, raised build bit or 0, a decomposition without a raise exists)
BuildEntry = tuple[int, tuple[int, ...], bool, int, bool]


class TableMoves:
    """Capture sets and build candidates of one table shape (owner-independent)."""

    __slots__ = ("_blds", "_caps", "_lu", "b_of_value", "bsingle", "bvalue", "n", "n_loose",
                 "rules", "sums")

    def __init__(self, rules: Rules, loose_vals: Sequence[tuple[int, ...]],
                 builds: Sequence[tuple[int, bool, bool, int]]) -> None:
        self.rules = rules
        self.n_loose = nl = len(loose_vals)
        self.n = nl + len(builds)
        sums = subset_sums(loose_vals, rules.max_value)
        self.sums = sums
        self.bvalue: list[int] = []
        self.bsingle: list[int] = []  # bits of single, non-court builds
        b_of_value: dict[int, list[int]] = {}
        for j, (value, single, court, _ncards) in enumerate(builds):
            bit = 1 << (nl + j)
            self.bvalue.append(value)
            if not court:
                b_of_value.setdefault(value, []).append(bit)
                if single:
                    self.bsingle.append(bit)
        self.b_of_value = b_of_value
        self._lu: dict[int, frozenset[int]] = {}
        self._caps: dict[int, list[tuple[int, ...]]] = {}
        self._blds: dict[int, list[BuildEntry]] = {}

    def loose_unions(self, v: int) -> frozenset[int]:
        u = self._lu.get(v)
        if u is None:
            u = frozenset(disjoint_unions(self.sums.get(v, ())))
            self._lu[v] = u
        return u

    def _build_value(self, bit: int) -> int:
        return self.bvalue[bit.bit_length() - 1 - self.n_loose]

    def capture_masks_plain(self, v: int) -> set[int]:
        """Capture sets of a card whose only value is v and equals its table value."""
        loose = self.loose_unions(v)
        bits = self.b_of_value.get(v)
        g5 = self.rules.single_build_as_card and any(
            self._build_value(b) < v for b in self.bsingle)
        if g5:
            groups = list(self.sums.get(v, ()))
            groups.extend(bits or ())
            for b in self.bsingle:
                bv = self._build_value(b)
                if bv < v:
                    groups.extend(b | s for s in self.sums.get(v - bv, ()))
            return disjoint_unions(groups)
        if not bits:
            return set(loose)
        bu = disjoint_unions(bits)
        return bu | loose | {x | y for x in bu for y in loose}

    def caps_plain(self, v: int) -> list[tuple[int, ...]]:
        """``capture_masks_plain`` as sorted pile tuples (cached)."""
        c = self._caps.get(v)
        if c is None:
            c = [mask_tuple(m) for m in sorted(self.capture_masks_plain(v), key=mask_order)]
            self._caps[v] = c
        return c

    def builds(self, hv: int, v: int) -> list[BuildEntry]:
        """Build candidates of value v with a hand card worth hv (B1-B5; no owner filters)."""
        key = hv * 64 + v
        res = self._blds.get(key)
        if res is not None:
            return res
        rules = self.rules
        sums = self.sums
        d = v - hv
        ul0 = set(self.loose_unions(v)) if rules.table_only_groups_in_builds else set()
        ul0.add(0)
        bits = self.b_of_value.get(v)
        ub0 = disjoint_unions(bits) if bits else set()
        ub0.add(0)
        hgroups: list[tuple[int, int]] = [(0, 0)] if d == 0 else [(s, 0) for s in
                                                                  sums.get(d, ())]
        if d > 0:
            for b in self.bsingle:
                bv = self._build_value(b)
                if bv == d:
                    hgroups.append((b, b))
                elif rules.single_build_as_card and bv < d:
                    hgroups.extend((b | s, b) for s in sums.get(d - bv, ()))
        found: dict[int, list[Any]] = {}  # mask -> [single, raised build, not a raise]
        for h, rb in hgroups:
            for b in ub0:
                if b & h:
                    continue
                hb = h | b
                for u in ul0:
                    if u & hb:
                        continue
                    m = hb | u
                    if not m:
                        continue
                    single = not b and not u
                    e = found.get(m)
                    if e is None:
                        found[m] = [single, rb, not rb]
                    else:
                        e[0] = e[0] or single
                        if rb:
                            e[1] = e[1] or rb
                        else:
                            e[2] = True
        res = [(m, mask_tuple(m), e[0], e[1], e[2]) for m, e in found.items()]
        res.sort(key=_entry_order)
        self._blds[key] = res
        return res


def _entry_order(e: BuildEntry) -> int:
    return mask_order(e[0])


def _lookup(rules: Rules, table: Sequence[Pile]) -> tuple[TableMoves, int]:
    n = len(table)
    nl = n
    while nl and isinstance(table[nl - 1], Build):
        nl -= 1
    cc = rules.card_class
    if nl == n:
        key: tuple[Any, ...] = tuple([cc[p] for p in table])  # type: ignore[index]
    else:
        key = (tuple([cc[p] for p in table[:nl]]),  # type: ignore[index]
               tuple([(b.value, b.single, b.court, len(b.cards))  # type: ignore[union-attr]
                      for b in table[nl:]]))
    cache = rules.moves_cache
    tm = cache.get(key)
    if tm is None:
        cv = rules.class_values
        tm = TableMoves(rules, [cv[k] for k in (key if nl == n else key[0])],
                        [] if nl == n else key[1])
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = tm
    return tm, nl


def _other_captures(rules: Rules, tm: TableMoves, table: Sequence[Pile], nl: int,
                    card: Card) -> set[int]:
    """Capture sets of court cards, multi-valued cards and the table-clearer (per position)."""
    info = TableInfo(table, tm.n, (1 << tm.n) - 1, nl, movegen.EMPTY_SUMS, _builds_of(table, nl))
    info.ts = movegen.sums_for(rules, table, nl)
    return movegen.raw_capture_masks(rules, info, card)


def _builds_of(table: Sequence[Pile], nl: int) -> list[tuple[int, int, bool, bool, int, int]]:
    out = []
    for i in range(nl, len(table)):
        b = table[i]
        assert isinstance(b, Build)
        out.append((1 << i, b.value, b.single, b.court, b.owner, len(b.cards)))
    return out


def generate(rules: Rules, table: Sequence[Pile], hand: Sequence[Card], mover: int) -> list[Move]:
    """All legal card plays for ``mover``; same result and order as ``movegen.generate``."""
    hot_args = rules.hot_args
    if hot_args is not None:
        res: list[Move] | None = generate_for(table, hand, mover, *hot_args)
        if res is not None:
            return res
    return generate_general(rules, table, hand, mover)


def generate_general(rules: Rules, table: Sequence[Pile], hand: Sequence[Card],
                     mover: int) -> list[Move]:
    """:func:`generate` without the hot path (for callers that have just tried it)."""
    tm, nl = _lookup(rules, table)
    n = tm.n
    owned = False
    for i in range(nl, n):
        if table[i].owner == mover:  # type: ignore[union-attr]
            owned = True
            break
    if owned or not rules.simple_filters:
        return _generate_filtered(rules, tm, nl, table, hand, mover)
    pv = rules.plain_value
    tv = rules.table_values
    cv = rules.capturer_values
    building = rules.building and n
    moves: list[Move] = []
    hvals = [cv[c] for c in hand] if building else []
    for hi, card in enumerate(hand):
        if n:
            v = pv[card]
            if v is not None:
                for pt in tm.caps_plain(v):
                    moves.append(Move("capture", card, pt))
            else:
                caps = _other_captures(rules, tm, table, nl, card)
                if caps:
                    moves.extend([Move("capture", card, mask_tuple(m))
                                  for m in sorted(caps, key=mask_order)])
        if building:
            comp = tv[card]
            if comp:
                holders: set[int] = set()
                for j, hvs in enumerate(hvals):
                    if j != hi:
                        holders.update(hvs)
                if len(comp) == 1:
                    hv = comp[0]
                    for v in sorted(holders):
                        if v >= hv:
                            for e in tm.builds(hv, v):
                                moves.append(Move("build", card, e[1], v, e[2]))
                else:
                    for v in sorted(holders):
                        for m, single, _rb, _nr in _merged_builds(tm, comp, v):
                            moves.append(Move("build", card, mask_tuple(m), v, single))
            elif rules.court_builds != "none" and not rules.courts_are_numeric:
                for cand in _court_cands(rules, tm, table, nl, hand, hi):
                    moves.append(Move("build", card, mask_tuple(cand.mask), cand.value, False,
                                      True))
        moves.append(Move("trail", card))
    return moves


def _merged_builds(tm: TableMoves, comp: tuple[int, ...], v: int) -> list[tuple[int, bool, int,
                                                                              bool]]:
    """Build candidates of value v for a hand card with several values, merged by mask."""
    merged: dict[int, list[Any]] = {}
    for hv in comp:
        if hv > v:
            continue
        for m, _pt, single, rb, nonraise in tm.builds(hv, v):
            e = merged.get(m)
            if e is None:
                merged[m] = [single, rb, nonraise]
            else:
                e[0] = e[0] or single
                e[1] = e[1] or rb
                e[2] = e[2] or nonraise
    out = [(m, e[0], e[1], e[2]) for m, e in merged.items()]
    out.sort(key=lambda t: mask_order(t[0]))
    return out


def _court_cands(rules: Rules, tm: TableMoves, table: Sequence[Pile], nl: int,
                 hand: Sequence[Card], hi: int) -> list[BuildCandidate]:
    info = TableInfo(table, tm.n, (1 << tm.n) - 1, nl, movegen.EMPTY_SUMS, _builds_of(table, nl))
    return movegen.court_build_candidates(rules, info, hand, hi)


def _generate_filtered(rules: Rules, tm: TableMoves, nl: int, table: Sequence[Pile],
                       hand: Sequence[Card], mover: int) -> list[Move]:
    """Positions where the owner rules or a per-move option filter the candidates."""
    builds = _builds_of(table, nl)
    info = TableInfo(table, tm.n, (1 << tm.n) - 1, nl, movegen.EMPTY_SUMS, builds)
    owned = [(b[0], b[1], b[3]) for b in builds if b[4] == mover]
    om = 0
    for o in owned:
        om |= o[0]
    ctx = Context(rules, table, hand, mover, info, owned, om)
    n = tm.n
    pv = rules.plain_value
    tv = rules.table_values
    owners = {b[0]: b[4] for b in builds}
    per_card: list[tuple[list[Move], list[Move], Move | None]] = []
    for hi, card in enumerate(hand):
        if not n:
            raw: set[int] = set()
        elif pv[card] is not None:
            raw = tm.capture_masks_plain(pv[card])  # type: ignore[arg-type]
        else:
            raw = _other_captures(rules, tm, table, nl, card)
        caps = [Move("capture", card, mask_tuple(m))
                for m in movegen.filter_captures(ctx, hi, raw)]
        cands: list[BuildCandidate] = []
        comp = tv[card]
        if n and rules.building and comp:
            holders = movegen.holder_values(rules, hand, hi)
            for v in sorted(holders):
                for m, single, rb, nonraise in _merged_builds(tm, comp, v):
                    rowner = None
                    if rb:
                        rowner = owners[rb]
                        if not rules.raise_own_build and rowner == mover:
                            if not nonraise:
                                continue
                            rowner = None
                    cands.append(BuildCandidate(m, v, single, rowner))
        elif n and rules.building and rules.court_builds != "none" \
                and not rules.courts_are_numeric:
            cands = _court_cands(rules, tm, table, nl, hand, hi)
        blds = [Move("build", card, mask_tuple(c.mask), c.value, c.single, c.court)
                for c in cands if build_allowed(ctx, hi, c)[0]]
        ok, _ = trail_allowed(ctx, hi)
        per_card.append((caps, blds, Move("trail", card) if ok else None))
    return assemble(rules, per_card, hand)


def check_consistency(rules: Rules, table: Sequence[Pile], hand: Sequence[Card],
                      mover: int) -> None:  # pragma: no cover - debugging aid
    fast = generate(rules, table, hand, mover)
    ref = movegen.generate(rules, table, hand, mover)
    if fast != ref:
        raise AssertionError(f"fast {fast} != reference {ref}")


__all__ = ["TableMoves", "generate", "generate_general", "rank_of"]
