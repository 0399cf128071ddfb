"""The hot path of move generation, for the common positions of the common rules.

Handles a mover who owns no build under rules with no per-move filters (``Rules.hot_path``):
single-valued loose cards, plain hand cards, court cards that pair one at a time. Anything else
returns ``None`` and :mod:`fastgen` takes over. The result is exactly the reference generator's
list, in the same order (``tests/test_movegen.py`` checks this on random positions).

Written for speed in plain Python, and in a style that mypyc compiles well (ints, lists, no
closures): a bitset of reachable sums rejects most cards in a few integer operations, and subset
enumeration only runs for sums that exist.
"""

from __future__ import annotations

from typing import Final, Literal

from .moves import Build, Move

_BUILD: Final[Literal["build"]] = "build"
_CAPTURE: Final[Literal["capture"]] = "capture"
_TRAIL: Final[Literal["trail"]] = "trail"


# Moves are immutable, so equal moves can share one object: interning them saves building a
# NamedTuple for every candidate of every position (keys: card, pile mask, value, single).
_TRAILS: list[Move] = [Move(_TRAIL, c) for c in range(52)]
_CAPS: dict[int, Move] = {}
_BUILDS: dict[int, Move] = {}
_INTERN_LIMIT: Final = 500_000


def _capture(card: int, mask: int) -> Move:
    key = mask * 64 + card
    mv = _CAPS.get(key)
    if mv is None:
        mv = Move(_CAPTURE, card, _mask_tuple(mask))
        if len(_CAPS) < _INTERN_LIMIT:
            _CAPS[key] = mv
    return mv


def _build(card: int, mask: int, value: int, single: bool) -> Move:
    key = ((mask * 64 + value) * 2 + single) * 64 + card
    mv = _BUILDS.get(key)
    if mv is None:
        mv = Move(_BUILD, card, _mask_tuple(mask), value, single)
        if len(_BUILDS) < _INTERN_LIMIT:
            _BUILDS[key] = mv
    return mv


def _mask_tuple(mask: int) -> tuple[int, ...]:
    out: list[int] = []
    i = 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return tuple(out)


def _subsets(vals: list[int], pos: list[int], target: int) -> list[int]:
    """Masks (over table positions) of loose-card subsets totalling ``target``.

    ``vals`` ascend; the search stops as soon as a value exceeds what is still needed.
    """
    out: list[int] = []
    n = len(vals)
    # iterative DFS: stack of (next index, mask, remaining)
    stack_j: list[int] = [0]
    stack_m: list[int] = [0]
    stack_r: list[int] = [target]
    while stack_j:
        j = stack_j.pop()
        m = stack_m.pop()
        r = stack_r.pop()
        while j < n:
            v = vals[j]
            if v > r:
                break
            bit = 1 << pos[j]
            if v == r:
                out.append(m | bit)
            else:
                stack_j.append(j + 1)
                stack_m.append(m | bit)
                stack_r.append(r - v)
            j += 1
    return out


def _cached_subsets(vals: list[int], pos: list[int], target: int,
                    cache: dict[int, list[int]]) -> list[int]:
    g = cache.get(target)
    if g is None:
        g = _subsets(vals, pos, target)
        cache[target] = g
    return g


def _unions(groups: list[int]) -> list[int]:
    """Every union of pairwise-disjoint groups, including the empty one (0)."""
    res: list[int] = [0]
    seen: set[int] = {0}
    for g in groups:
        add: list[int] = []
        for u in res:
            if not u & g:
                x = u | g
                if x not in seen:
                    seen.add(x)
                    add.append(x)
        res.extend(add)
    return res


def _popcount(m: int) -> int:
    return bin(m).count("1")


_LOW64: Final = (1 << 64) - 1


def _sort_masks(masks: list[int]) -> list[int]:
    """Masks in the canonical order (``movegen.mask_order``): fewer piles, then lower mask."""
    keyed: list[int] = [(_popcount(m) << 64) | m for m in masks]
    keyed.sort()
    return [k & _LOW64 for k in keyed]


def _keeps(owned_bits: list[int], owned_vals: list[int], hvals: list[int], hi: int,
           mask: int) -> bool:
    """Retain rule: every owned build outside ``mask`` keeps a capturing card in hand."""
    for k in range(len(owned_bits)):
        if owned_bits[k] & mask:
            continue
        need = owned_vals[k]
        ok = False
        for j in range(len(hvals)):
            if j != hi and hvals[j] == need:
                ok = True
                break
        if not ok:
            return False
    return True


def hot_generate(pv: list[int], tv1: list[int], maxv: int, table_only: bool, building: bool,
                 loose: list[int], bvals: list[int], bsingle: list[bool], bmine: list[bool],
                 hand: list[int]) -> list[Move] | None:
    """Legal moves, or None when this position needs the general generator.

    ``pv[c]``: the single capture value of card c (0 if it has none or several); ``tv1[c]``: its
    single table value (0 for none, -1 for several); ``loose``: the loose cards (the table's
    first piles, ascending); ``bvals``/``bsingle``/``bmine``: value, kind and "owned by the
    mover" of each build after them. Builds the mover owns get the default owner obligations
    (variant 1 with the retain rule: no trail, keep a card that takes each owned build).
    """
    nl = len(loose)
    n = nl + len(bvals)
    vals: list[int] = []
    pos: list[int] = []
    limit = (1 << (maxv + 1)) - 1
    reach = 1
    for i in range(nl):
        v = tv1[loose[i]]
        if v < 0:
            return None
        if v:
            vals.append(v)
            pos.append(i)
            reach = (reach | (reach << v)) & limit
    bbits_of: dict[int, list[int]] = {}
    singles_of: dict[int, list[int]] = {}
    owned_bits: list[int] = []
    owned_vals: list[int] = []
    for j in range(len(bvals)):
        bit = 1 << (nl + j)
        bv = bvals[j]
        if bmine[j]:
            owned_bits.append(bit)
            owned_vals.append(bv)
        if bv in bbits_of:
            bbits_of[bv].append(bit)
        else:
            bbits_of[bv] = [bit]
        if bsingle[j]:
            if bv in singles_of:
                singles_of[bv].append(bit)
            else:
                singles_of[bv] = [bit]
    sub_cache: dict[int, list[int]] = {}
    cap_cache: dict[int, list[int]] = {}  # value -> sorted capture masks (before owner rules)
    others_cache: dict[int, list[int]] = {}  # build value -> unions of the other groups
    moves: list[Move] = []
    hvals: list[int] = []
    for c in hand:
        hvals.append(pv[c])
    for hi in range(len(hand)):
        card = hand[hi]
        v = hvals[hi]
        # ---- captures
        if n:
            if v:
                caps = cap_cache.get(v)
                if caps is None:
                    groups: list[int] = []
                    if reach >> v & 1:
                        groups.extend(_cached_subsets(vals, pos, v, sub_cache))
                    if v in bbits_of:
                        groups.extend(bbits_of[v])
                    caps = groups if len(groups) <= 1 else _sort_masks(_unions(groups)[1:])
                    cap_cache[v] = caps
                for m in caps:
                    if not owned_bits or _keeps(owned_bits, owned_vals, hvals, hi, m):
                        moves.append(_capture(card, m))
            elif tv1[card] == 0:  # a court card: one loose card of its rank
                r = card >> 2
                for i in range(nl):
                    if loose[i] >> 2 == r and (not owned_bits or _keeps(
                            owned_bits, owned_vals, hvals, hi, 1 << i)):
                        moves.append(_capture(card, 1 << i))
            else:
                return None
        # ---- builds
        hv = tv1[card]
        if building and n and hv > 0:
            holders: set[int] = set()
            for j in range(len(hand)):
                if j != hi:
                    w = hvals[j]
                    if w:
                        holders.add(w)
                    elif tv1[hand[j]] != 0:
                        return None
            for target in sorted(holders):
                if target < hv:
                    continue
                d = target - hv
                hg: list[int] = []
                raises: list[int] = []
                if d == 0:
                    hg.append(0)
                else:
                    if reach >> d & 1:
                        hg.extend(_cached_subsets(vals, pos, d, sub_cache))
                    if d in singles_of:
                        raises.extend(singles_of[d])
                if not hg and not raises:
                    continue
                us = others_cache.get(target)
                if us is None:
                    others: list[int] = []
                    if table_only and reach >> target & 1:
                        others.extend(_cached_subsets(vals, pos, target, sub_cache))
                    if target in bbits_of:
                        others.extend(bbits_of[target])
                    us = _unions(others) if others else [0]
                    others_cache[target] = us
                if len(us) == 1 and not raises and (not hg or hg[0] == 0):
                    continue
                found: dict[int, bool] = {}
                for h in hg + raises:  # the hand card's group: loose cards or a raise
                    for u in us:
                        if not u & h:
                            m = h | u
                            if m:
                                found[m] = found.get(m, False) or u == 0
                if len(found) == 1:
                    for m, single in found.items():
                        if not owned_bits or _keeps(owned_bits, owned_vals, hvals, hi, m):
                            moves.append(_build(card, m, target, single))
                    continue
                keep: list[int] = []
                for m in found:
                    if not owned_bits or _keeps(owned_bits, owned_vals, hvals, hi, m):
                        keep.append(m)
                for m in _sort_masks(keep):
                    moves.append(_build(card, m, target, found[m]))
        if not owned_bits:
            moves.append(_TRAILS[card])
    if not moves:  # cannot happen with the retain rule; the general generator decides
        return None
    return moves


def generate_for(table: list[object], hand: list[int], mover: int, pv: list[int],
                 tv1: list[int], maxv: int, table_only: bool, building: bool,
                 owner_rules: bool) -> list[Move] | None:
    """``hot_generate`` for an engine table (loose cards, then builds); None to fall back."""
    n = len(table)
    nl = n
    while nl and isinstance(table[nl - 1], Build):
        nl -= 1
    loose: list[int] = []
    for i in range(nl):
        c = table[i]
        assert isinstance(c, int)
        loose.append(c)
    bvals: list[int] = []
    bsingle: list[bool] = []
    bmine: list[bool] = []
    for i in range(nl, n):
        b = table[i]
        assert isinstance(b, Build)
        mine = b.owner == mover
        if mine and not owner_rules:
            return None
        bvals.append(b.value)
        bsingle.append(b.single)
        bmine.append(mine)
    return hot_generate(pv, tv1, maxv, table_only, building, loose, bvals, bsingle, bmine, hand)


def play_on_table(table: list[object], card: int, kind: str, piles: tuple[int, ...],
                  value: int, single: bool, owner: int, court: bool,
                  taken: list[int]) -> tuple[list[object], Build | None]:
    """The table after ``card`` is trailed, captures ``piles`` or builds on them.

    Captured cards (the played card last) are appended to ``taken``. Returns the new table (in
    canonical order) and the new build, if any.
    """
    if kind == "trail":
        out = list(table)
        i = 0
        n = len(out)
        while i < n:
            p = out[i]
            if isinstance(p, Build):
                break
            assert isinstance(p, int)
            if p > card:
                break
            i += 1
        out.insert(i, card)
        return out, None
    keep: list[object] = []
    cards: list[int] = []
    k = 0
    np_ = len(piles)
    for i in range(len(table)):
        p = table[i]
        if k < np_ and piles[k] == i:
            k += 1
            if isinstance(p, Build):
                cards.extend(p.cards)
            else:
                assert isinstance(p, int)
                cards.append(p)
        else:
            keep.append(p)
    cards.append(card)
    if kind == "capture":
        taken.extend(cards)
        return keep, None
    new = Build(tuple(cards), value, single, owner, court)
    keep.append(new)
    return keep, new
