"""Legal move generation (RULES.md 2.6) and single-move legality checks.

Speed comes from two facts. The engine keeps the table in a canonical order (loose cards sorted,
then builds in the order they were made; see :func:`canonical_table`), so the loose cards with a
numeric value are a prefix of the table and their subset sums depend only on the sorted tuple of
their values. Those sums, the capture sets made from them and the loose-only build sets are
computed once per tuple and cached (:class:`TableSums`). Everything works on bitmasks of table
indices.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from .cards import RANKS, Card, card_str, rank_of
from .moves import Build, Move, Pile
from .rules import Rules

_CACHE_LIMIT = 200_000
_MASK_TUPLES: dict[int, tuple[int, ...]] = {}


def mask_tuple(mask: int) -> tuple[int, ...]:
    """Sorted indices of the set bits of ``mask`` (memoized)."""
    t = _MASK_TUPLES.get(mask)
    if t is None:
        out = []
        i = 0
        m = mask
        while m:
            if m & 1:
                out.append(i)
            m >>= 1
            i += 1
        t = tuple(out)
        if len(_MASK_TUPLES) < 1_000_000:
            _MASK_TUPLES[mask] = t
    return t


def disjoint_unions(groups: Iterable[int]) -> set[int]:
    """Every nonempty union of pairwise-disjoint groups (masks)."""
    res = {0}
    for g in set(groups):
        res |= {u | g for u in res if not u & g}
    res.discard(0)
    return res


def _product(a: Iterable[int], b: Iterable[int]) -> set[int]:
    """All unions of one element of ``a`` with one of ``b`` (the masks are disjoint)."""
    return {x | y for x in a for y in b}


def canonical_table(table: Iterable[Pile]) -> list[Pile]:
    """The engine's table order: loose cards ascending, then builds in their existing order."""
    loose = sorted(p for p in table if not isinstance(p, Build))
    return loose + [p for p in table if isinstance(p, Build)]


def subset_sums(values: Sequence[tuple[int, ...]], maxv: int) -> dict[int, list[int]]:
    """Total -> masks of the nonempty subsets of ``values`` with that total (at most maxv).

    Bit i of a mask stands for ``values[i]``; a card with several values (an ace worth 1 or 14)
    counts each of them.
    """
    entries: list[tuple[int, int]] = [(0, 0)]
    multi = False
    for i, vals in enumerate(values):
        bit = 1 << i
        if len(vals) == 1:
            val = vals[0]
            entries += [(m | bit, t + val) for m, t in entries if t + val <= maxv]
        elif vals:
            multi = True
            new: list[tuple[int, int]] = []
            for val in vals:
                new += [(m | bit, t + val) for m, t in entries if t + val <= maxv]
            entries += new
    sums: dict[int, list[int]] = {}
    for m, t in entries[1:]:
        lst = sums.get(t)
        if lst is None:
            sums[t] = [m]
        else:
            lst.append(m)
    if multi:
        sums = {k: sorted(set(v)) for k, v in sums.items()}
    return sums


class TableSums:
    """Subset sums of a sorted run of loose cards, and their disjoint unions (cached)."""

    __slots__ = ("n", "sums", "unions")

    def __init__(self, values: Sequence[tuple[int, ...]], maxv: int) -> None:
        sums = subset_sums(values, maxv)
        self.n = len(values)
        self.sums = sums
        self.unions: dict[object, frozenset[int]] = {}

    def loose_unions(self, v: int) -> frozenset[int]:
        """Nonempty disjoint unions of the loose groups totalling v."""
        u = self.unions.get(v)
        if u is None:
            u = frozenset(disjoint_unions(self.sums.get(v, ())))
            self.unions[v] = u
        return u

    def loose_builds(self, hv: int, v: int, table_only: bool) -> list[tuple[int, bool]]:
        """Builds of value v by a hand card worth hv using loose cards only: (mask, single)."""
        hgroups: list[int] = [0] if hv == v else list(self.sums.get(v - hv, ()))
        others = self.loose_unions(v) if table_only else frozenset()
        found: dict[int, bool] = {}
        for hg in hgroups:
            if hg:
                found[hg] = True
            for u in others:
                if not hg & u:
                    found.setdefault(hg | u, False)
        return sorted(found.items())


EMPTY_SUMS = TableSums([], 0)


def sums_for(rules: Rules, table: Sequence[Pile], n_loose: int) -> TableSums:
    cache = rules.sums_cache
    key = tuple(map(rules.card_class.__getitem__, table[:n_loose]))  # type: ignore[arg-type]
    ts = cache.get(key)
    if ts is None:
        cv = rules.class_values
        ts = TableSums([cv[k] for k in key], rules.max_value)
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = ts
    return ts


@dataclass(slots=True)
class TableInfo:
    """What move generation needs to know about one table, independent of the hand."""

    table: Sequence[Pile]
    n: int
    full: int
    n_loose: int
    ts: TableSums
    builds: list[tuple[int, int, bool, bool, int, int]]  # bit, value, single, court, owner, ncards
    _by_rank: dict[int, list[int]] | None = field(default=None)

    def loose_by_rank(self, rank: int) -> list[int]:
        if self._by_rank is None:
            d: dict[int, list[int]] = {}
            for i in range(self.n_loose):
                d.setdefault(self.table[i] >> 2, []).append(1 << i)  # type: ignore[operator]
            self._by_rank = d
        return self._by_rank.get(rank, [])


def table_info(rules: Rules, table: Sequence[Pile]) -> TableInfo:
    """Analyse a table in canonical order (see :func:`canonical_table`)."""
    n_loose = 0
    builds: list[tuple[int, int, bool, bool, int, int]] = []
    for i, p in enumerate(table):
        if not isinstance(p, Build):
            n_loose += 1
        else:
            builds.append((1 << i, p.value, p.single, p.court, p.owner, len(p.cards)))
    n = len(table)
    return TableInfo(table, n, (1 << n) - 1, n_loose, sums_for(rules, table, n_loose), builds)


# ------------------------------------------------------------------------------ captures
def _court_capture_masks(rules: Rules, info: TableInfo, card: Card) -> set[int]:
    r = rank_of(card)
    loose = info.loose_by_rank(r)
    mode = rules.court_capture
    if mode == "one":
        selections = set(loose)
    elif mode == "all":
        selections = {sum(loose)} if loose else set()
    elif mode == "one_or_all_three":
        selections = set(loose)
        if len(loose) == 3:
            selections.add(sum(loose))
    else:  # any
        selections = disjoint_unions(loose)
    court_builds = [b[0] for b in info.builds if b[3] and b[1] == r + 1]
    if not court_builds:
        return selections
    bu = disjoint_unions(court_builds)
    return bu | selections | _product(bu, selections)


def capture_masks_for_value(rules: Rules, info: TableInfo, card: Card, v: int) -> set[int]:
    ts = info.ts
    if v == rules.low_values[card]:
        loose = ts.loose_unions(v)
    else:  # a high value: same-rank loose cards pair too (G1)
        key = (v, rank_of(card))
        loose = ts.unions.get(key)  # type: ignore[assignment]
        if loose is None:
            groups = list(ts.sums.get(v, ()))
            groups.extend(info.loose_by_rank(rank_of(card)))
            loose = frozenset(disjoint_unions(groups))
            ts.unions[key] = loose
    if not info.builds:
        return set(loose)
    bgroups: list[int] = []
    for bit, bv, single, court, _owner, _n in info.builds:
        if court:
            continue
        if bv == v:
            bgroups.append(bit)
        elif rules.single_build_as_card and single and bv < v:
            bgroups.extend(bit | s for s in ts.sums.get(v - bv, ()))
    if not bgroups:
        return set(loose)
    if rules.single_build_as_card:
        groups = list(ts.sums.get(v, ()))
        if v != rules.low_values[card]:
            groups.extend(info.loose_by_rank(rank_of(card)))
        return disjoint_unions(groups + bgroups)
    bu = disjoint_unions(bgroups)
    return bu | set(loose) | _product(bu, loose)


def raw_capture_masks(rules: Rules, info: TableInfo, card: Card) -> set[int]:
    """Capture pile sets for ``card`` before the owner and extent filters (2.2 groups)."""
    if not info.n:
        return set()
    vals = rules.capturer_values[card]
    if not vals:
        out = _court_capture_masks(rules, info, card)
    elif len(vals) == 1:
        out = capture_masks_for_value(rules, info, card, vals[0])
    else:
        out = set()
        for v in vals:
            out |= capture_masks_for_value(rules, info, card, v)
    if card == rules.table_clearer:
        out.add(info.full)
    return out


# ------------------------------------------------------------------------------ builds
@dataclass(slots=True)
class BuildCandidate:
    mask: int
    value: int
    single: bool
    raise_owner: int | None  # owner of the single build raised by the hand card, if any
    court: bool = False


def holder_values(rules: Rules, hand: Sequence[Card], hi: int) -> set[int]:
    cv = rules.capturer_values
    holders: set[int] = set()
    for j, c in enumerate(hand):
        if j != hi:
            holders.update(cv[c])
    return holders


def raw_build_candidates(rules: Rules, info: TableInfo, hand: Sequence[Card], hi: int,
                         mover: int) -> list[BuildCandidate]:
    """Builds with hand[hi] satisfying B1-B6 (holder, grouping, no raising of multiples)."""
    if not info.n or not rules.building:
        return []
    h = hand[hi]
    comp = rules.table_values[h]
    if not comp:
        if rules.court_builds != "none" and not rules.courts_are_numeric:
            return court_build_candidates(rules, info, hand, hi)
        return []
    holders = holder_values(rules, hand, hi)
    if not holders:
        return []
    ts = info.ts
    table_only = rules.table_only_groups_in_builds
    out: dict[tuple[int, int], BuildCandidate] = {}

    def add(mask: int, v: int, single: bool, rowner: int | None) -> None:
        prev = out.get((mask, v))
        if prev is None:
            out[(mask, v)] = BuildCandidate(mask, v, single, rowner)
        else:
            prev.single = prev.single or single
            if prev.raise_owner is None:
                prev.raise_owner = rowner

    for hv in comp:
        for v in holders:
            if v < hv:
                continue
            for mask, single in ts.loose_builds(hv, v, table_only):
                add(mask, v, single, None)
            if not info.builds:
                continue
            d = v - hv
            ul = ts.loose_unions(v) if table_only else frozenset()
            ul0 = set(ul) | {0}
            bv_bits = [b[0] for b in info.builds if b[1] == v and not b[3]]
            ub = disjoint_unions(bv_bits) if bv_bits else set()
            hg_loose = [0] if d == 0 else list(ts.sums.get(d, ()))
            # loose hand groups with one or more other builds of value v
            for hg in hg_loose:
                for b in ub:
                    for u in ul0:
                        if not hg & u:
                            add(hg | b | u, v, False, None)
            # raises: the hand card joins one single build (B3a, B5, B6)
            if d <= 0:
                continue
            ub0 = ub | {0}
            for bit, bv, single, court, owner, _n in info.builds:
                if not single or court:
                    continue
                if not rules.raise_own_build and owner == mover:
                    continue
                if bv == d:
                    hgs = [bit]
                elif rules.single_build_as_card and bv < d:
                    hgs = [bit | s for s in ts.sums.get(d - bv, ())]
                else:
                    continue
                for hg in hgs:
                    for b in ub0:
                        if b & hg:
                            continue
                        for u in ul0:
                            if not hg & u:
                                add(hg | b | u, v, not b and not u, owner)
    return list(out.values())


def court_build_candidates(rules: Rules, info: TableInfo, hand: Sequence[Card],
                            hi: int) -> list[BuildCandidate]:
    """Natural builds of one court rank (2.4.6); the builder must hold another of the rank."""
    h = hand[hi]
    r = rank_of(h)
    if not any(rank_of(c) == r for j, c in enumerate(hand) if j != hi):
        return []
    units: list[tuple[int, int]] = [(bit, 1) for bit in info.loose_by_rank(r)]
    units.extend((b[0], b[5]) for b in info.builds if b[3] and b[1] == r + 1)
    out = []
    n = len(units)
    for sub in range(1, 1 << n):
        mask = 0
        ncards = 1
        for k in range(n):
            if sub >> k & 1:
                mask |= units[k][0]
                ncards += units[k][1]
        if rules.court_builds == "natural_all_four" and ncards != 3:
            continue
        out.append(BuildCandidate(mask, r + 1, False, None, court=True))
    return out


# ------------------------------------------------------------------------------ filters
@dataclass(slots=True)
class Context:
    """Everything about the mover that the filters need."""

    rules: Rules
    table: Sequence[Pile]
    hand: Sequence[Card]
    mover: int
    info: TableInfo
    owned: list[tuple[int, int, bool]]  # (bit, value, court) of builds the mover owns
    owned_mask: int


def make_context(rules: Rules, table: Sequence[Pile], hand: Sequence[Card], mover: int,
                 info: TableInfo | None = None) -> Context:
    if info is None:
        info = table_info(rules, table)
    owned = [(b[0], b[1], b[3]) for b in info.builds if b[4] == mover]
    om = 0
    for o in owned:
        om |= o[0]
    return Context(rules, table, hand, mover, info, owned, om)


def can_take(rules: Rules, card: Card, value: int, court: bool) -> bool:
    if court:
        return rank_of(card) + 1 == value
    return value in rules.capturer_values[card]


def answer_gap(rules: Rules, hand: Sequence[Card], hi: int,
               builds: Iterable[tuple[int, int, bool]]) -> tuple[list[tuple[int, bool]],
                                                                list[Card]] | None:
    """Can the hand without hand[hi] answer for all ``builds`` (bit, value, court) at once?

    A capture declares one value (RULES.md 1.2), so each build value needs its own card: a
    card worth 1 or 14 takes a build of 1 or one of 14, never both. Builds of one value are
    taken together (G4) and share a card. Returns None when such a matching exists, else the
    build values (value, court) that lack cards and the fewer cards the hand has for them
    (Hall's condition fails for them; the smallest such set).

    Only a card with several capture values can take two build values, so for a hand of
    single-valued cards this is the plain "each build value has a card" test that the hot path
    (``_hot._keeps``, which never sees such cards) applies.
    """
    cv = rules.capturer_values
    classes: list[tuple[int, bool]] = []
    nbrs: list[int] = []
    used = 0
    shared = False
    for _bit, value, court in builds:
        key = (value, court)
        if key in classes:
            continue
        m = 0
        for j, c in enumerate(hand):  # can_take, inlined: this runs for every owner's move
            if j != hi and (rank_of(c) + 1 == value if court else value in cv[c]):
                m |= 1 << j
        if not m:
            return [key], []
        shared = shared or bool(m & used)
        used |= m
        classes.append(key)
        nbrs.append(m)
    if not shared:  # no card can take two of the values: each value has a card of its own
        return None
    k = len(classes)
    best: tuple[int, int, int] | None = None  # (values, subset of values, their cards)
    for sub in range(3, 1 << k):
        size = sub.bit_count()
        if size < 2 or (best is not None and size >= best[0]):
            continue
        cards = 0
        for i in range(k):
            if sub >> i & 1:
                cards |= nbrs[i]
        if cards.bit_count() < size:
            best = (size, sub, cards)
    if best is None:
        return None
    return ([classes[i] for i in range(k) if best[1] >> i & 1],
            [c for j, c in enumerate(hand) if best[2] >> j & 1])


def keeps_builds(ctx: Context, hi: int, remaining_owned: Iterable[tuple[int, int, bool]]) -> bool:
    """Retain rule: after playing hand[hi], the hand can answer for every build still owned,
    each build value with a card of its own (:func:`answer_gap`)."""
    return answer_gap(ctx.rules, ctx.hand, hi, remaining_owned) is None


def retain_reason(ctx: Context, hi: int,
                  remaining_owned: Iterable[tuple[int, int, bool]]) -> str | None:
    """Why playing hand[hi] and then owning ``remaining_owned`` breaks the retain rule, in a
    player's words (None if it does not)."""
    gap = answer_gap(ctx.rules, ctx.hand, hi, remaining_owned)
    if gap is None:
        return None
    values, cards = gap
    if not cards:
        return "you must keep a card that can take the build you own"
    names = [_vstr(v, court) for v, court in values]
    held = [card_str(c) for c in cards]
    return (f"you would own builds of {_and(names)} with only {_and(held)} to take them: "
            f"each build needs its own card")


def _and(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _retain_enforced(rules: Rules) -> bool:
    return rules.owner_must_keep_capture_card is True


def capture_allowed(ctx: Context, hi: int, mask: int) -> bool:
    """Owner filters for a capture of ``mask`` with hand[hi] (retain rule, variants 2/3)."""
    if not ctx.owned:
        return True
    rules = ctx.rules
    if rules.owner_restriction in ("variant2", "variant3") and not mask & ctx.owned_mask:
        return False
    if _retain_enforced(rules):
        left = [o for o in ctx.owned if not o[0] & mask]
        if left and not keeps_builds(ctx, hi, left):
            return False
    return True


def new_build_owner(ctx: Context, cand: BuildCandidate) -> int:
    """Owner of the build a candidate makes (2.5 ``ownership``, D-OWN-1)."""
    if ctx.rules.ownership == "last_to_add":
        return ctx.mover
    if cand.raise_owner is not None:
        return ctx.mover
    in_p = [b for b in ctx.info.builds if b[0] & cand.mask]
    if len(in_p) == 1:
        return in_p[0][4]
    return ctx.mover


def _vstr(value: int, court: bool) -> str:
    return RANKS[value - 1] if court else str(value)


def build_allowed(ctx: Context, hi: int, cand: BuildCandidate) -> tuple[bool, str]:
    """B7-B9 for a build candidate; returns (ok, reason if not)."""
    rules = ctx.rules
    info = ctx.info
    mask = cand.mask
    if rules.same_value_builds == "must_merge":
        for b in info.builds:
            if b[1] == cand.value and b[3] == cand.court and not b[0] & mask:
                return False, (f"builds of the same value must be merged: include the other "
                               f"build of {_vstr(cand.value, cand.court)}")
    owner = new_build_owner(ctx, cand)
    if rules.max_builds_per_player is not None:
        count = sum(1 for o in ctx.owned if not o[0] & mask) + (owner == ctx.mover)
        if count > rules.max_builds_per_player:
            return False, "you may own only one build at a time"
    if ctx.owned:
        restr = rules.owner_restriction
        touches_own = bool(mask & ctx.owned_mask)
        if restr == "variant2" and not touches_own:
            return False, "you own a build, so you must take it or add to it"
        if restr == "variant3" and not touches_own:
            has_builds = any(b[0] & mask for b in info.builds)
            takeover = cand.raise_owner is not None and cand.raise_owner != ctx.mover
            if has_builds and not takeover:
                return False, ("you own a build: you may duplicate only your own build, "
                               "raise an opponent's single build, or start a new one")
        if _retain_enforced(rules):
            after = [o for o in ctx.owned if not o[0] & mask]
            if owner == ctx.mover:
                after.append((0, cand.value, cand.court))
            why = retain_reason(ctx, hi, after)
            if why:
                return False, why
    return True, ""


def trail_allowed(ctx: Context, hi: int) -> tuple[bool, str]:
    rules = ctx.rules
    if ctx.owned:
        if rules.owner_restriction != "none":
            v = ctx.owned[0]
            return False, f"you own a build of {_vstr(v[1], v[2])}, so you may not trail"
        if _retain_enforced(rules):
            why = retain_reason(ctx, hi, ctx.owned)
            if why:
                return False, why
    return True, ""


def filter_captures(ctx: Context, hi: int, raw: AbstractSet[int]) -> list[int]:
    """Apply the owner filters and ``capture_extent`` to raw capture sets; sorted."""
    if ctx.owned:
        raw = {m for m in raw if capture_allowed(ctx, hi, m)}
    if ctx.rules.capture_extent == "inclusion_maximal" and len(raw) > 1:
        raw = {m for m in raw if not any(o != m and o & m == m for o in raw)}
    return sorted(raw, key=mask_order)


def captures_for_card(ctx: Context, hi: int) -> list[int]:
    """Legal capture masks for hand[hi], all filters applied except compulsory capture."""
    return filter_captures(ctx, hi, raw_capture_masks(ctx.rules, ctx.info, ctx.hand[hi]))


def mask_order(m: int) -> int:
    """Sort key of the canonical move order: fewer piles first, then the lower mask."""
    return (m.bit_count() << 64) | m


# ------------------------------------------------------------------------------ generator
def generate(rules: Rules, table: Sequence[Pile], hand: Sequence[Card], mover: int) -> list[Move]:
    """Reference generator: every legal card play for ``mover``, straight from RULES.md 2.6.

    The engine uses :func:`casino_tui.engine.fastgen.generate`, which caches the candidates per
    table shape and must return exactly this list (tests compare the two).
    ``table`` must be in canonical order (the engine's own tables always are).
    """
    ctx = make_context(rules, table, hand, mover)
    per_card: list[tuple[list[Move], list[Move], Move | None]] = []
    for hi, card in enumerate(hand):
        caps = [Move("capture", card, mask_tuple(m)) for m in captures_for_card(ctx, hi)]
        blds: list[Move] = []
        for cand in raw_build_candidates(rules, ctx.info, hand, hi, mover):
            if build_allowed(ctx, hi, cand)[0]:
                blds.append(Move("build", card, mask_tuple(cand.mask), cand.value, cand.single,
                                 cand.court))
        blds.sort(key=_build_order)
        ok, _ = trail_allowed(ctx, hi)
        per_card.append((caps, blds, Move("trail", card) if ok else None))
    return assemble(rules, per_card, hand)


def assemble(rules: Rules, per_card: list[tuple[list[Move], list[Move], Move | None]],
             hand: Sequence[Card]) -> list[Move]:
    """Join each card's captures, builds and trail; apply compulsory capture and the fallback
    (RULES.md 2.6 steps 4 and 5)."""
    comp = rules.compulsory_capture
    strict = comp == "strict" and any(caps for caps, _b, _t in per_card)
    moves: list[Move] = []
    for caps, blds, trail in per_card:
        moves.extend(caps)
        if strict:
            continue
        moves.extend(blds)
        if trail is not None:
            if comp == "no_trail_of_capturing_card" and caps:
                continue
            moves.append(trail)
    if not moves:  # only possible with the retain rule off: every trail is legal
        moves = [Move("trail", c) for c in hand]
    return moves


def _build_order(m: Move) -> tuple[int, int]:
    mask = 0
    for p in m.piles:
        mask |= 1 << p
    return (m.value or 0, mask_order(mask))


# ------------------------------------------------------------------------------ checks
def capture_groups_ok(rules: Rules, table: Sequence[Pile], card: Card, mask: int) -> bool:
    """Can ``mask`` be split into capture groups for ``card`` (2.2 G1-G5, 2.3)?

    Decides without enumerating every capture, so it stays fast on huge tables.
    """
    if not mask or mask >> len(table):
        return False
    full = (1 << len(table)) - 1
    if card == rules.table_clearer and mask == full:
        return True
    vals = rules.capturer_values[card]
    if not vals:
        return mask in _court_capture_masks(rules, table_info(rules, table), card)
    tv = rules.table_values
    r = rank_of(card)
    idx = mask_tuple(mask)
    for v in vals:
        loose: list[int] = []
        singles: list[tuple[int, int]] = []
        ok = True
        for i in idx:
            p = table[i]
            if not isinstance(p, Build):
                if not tv[p] and p >> 2 != r:
                    ok = False
                    break
                loose.append(i)
            elif p.court:
                ok = False
                break
            elif p.value == v:
                continue
            elif rules.single_build_as_card and p.single and p.value < v:
                singles.append((i, p.value))
            else:
                ok = False
                break
        if ok and _partition(loose, singles, v, table, tv, r):
            return True
    return False


def _partition(loose: list[int], singles: list[tuple[int, int]], v: int,
               table: Sequence[Pile], tv: tuple[tuple[int, ...], ...], rank: int) -> bool:
    """Can the loose cards be split into groups of value v (plus G5 single builds)?

    Each G5 single build of value bv needs its own loose cards totalling v - bv; every other
    loose card is a same-rank single or part of a group totalling v.
    """
    memo: dict[frozenset[int], bool] = {}

    def walk(items: list[int], k: int, total: int, need: int,
             chosen: frozenset[int]) -> Iterator[frozenset[int]]:
        if total == need and chosen:
            yield chosen
            return
        for j in range(k, len(items)):
            for val in tv[table[items[j]]]:  # type: ignore[index]
                if total + val <= need:
                    yield from walk(items, j + 1, total + val, need, chosen | {items[j]})

    def groups_with(rem: frozenset[int], first: int) -> Iterator[frozenset[int]]:
        items = sorted(rem - {first})
        for val in tv[table[first]]:  # type: ignore[index]
            if val <= v:
                yield from walk(items, 0, val, v, frozenset({first}))

    def solve(rem: frozenset[int]) -> bool:
        if not rem:
            return True
        hit = memo.get(rem)
        if hit is not None:
            return hit
        first = min(rem)
        res = (table[first] >> 2) == rank and solve(rem - {first})  # type: ignore[operator]
        if not res:
            res = any(solve(rem - g) for g in groups_with(rem, first))
        memo[rem] = res
        return res

    def with_singles(k: int, rem: frozenset[int]) -> bool:
        if k == len(singles):
            return solve(rem)
        need = v - singles[k][1]
        return any(with_singles(k + 1, rem - g) for g in walk(sorted(rem), 0, 0, need,
                                                               frozenset()))

    return with_singles(0, frozenset(loose))


__all__ = [
    "Build", "BuildCandidate", "Context", "TableInfo", "TableSums", "answer_gap",
    "canonical_table", "capture_allowed", "capture_groups_ok", "captures_for_card",
    "disjoint_unions", "generate", "make_context", "mask_tuple", "raw_build_candidates",
    "raw_capture_masks", "retain_reason", "table_info", "trail_allowed",
]
