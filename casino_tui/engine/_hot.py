"""The hot path of move generation, for the common positions of the common rules.

Handles rules with no per-move filters (``Rules.hot_path``): single-valued loose cards, plain
hand cards, court cards that pair one at a time, and a mover's own builds under the default
owner obligations. Anything else returns ``None`` and :mod:`fastgen` takes over. The result is
exactly the reference generator's list, in the same order (``tests/test_movegen.py`` checks
this on random positions).

Written for speed in plain Python, and in a style that mypyc compiles well (ints, lists, no
closures): a bitset of reachable sums rejects most cards in a few integer operations, and subset
enumeration only runs for sums that exist.
"""

from __future__ import annotations

import random as _random_module
from collections.abc import Callable
from typing import Final, Literal, cast

from .moves import Build, Move, Pile

_BUILD: Final[Literal["build"]] = "build"
_CAPTURE: Final[Literal["capture"]] = "capture"
_TRAIL: Final[Literal["trail"]] = "trail"


# Moves are immutable, so equal moves can share one object: interning them saves building a
# NamedTuple for every candidate of every position. Moves on the first 8 piles of the table
# (nine in ten in random play) are looked up by index in a list per card (captures: the pile
# mask; builds: one list per card and value, mask and kind), which needs neither hashing nor a
# boxed key; the others in one dict per card (builds: keyed by mask, value and kind). (With 10
# piles, the lists were four times the size: slower, as they are read at random and the
# garbage collector walks them.)
_TRAILS: Final[list[Move]] = [Move(_TRAIL, c) for c in range(52)]
_SMALL: Final = 1 << 8  # masks below this are interned in the lists
_CAPS_SMALL: Final[list[list[Move | None]]] = [[None] * _SMALL for _ in range(52)]
_BUILDS_SMALL: Final[list[list[Move | None] | None]] = [None] * (52 * 32)  # card * 32 + value
_CAPS: Final[list[dict[int, Move]]] = [{} for _ in range(52)]
_BUILDS: Final[list[dict[int, Move]]] = [{} for _ in range(52)]
_INTERN_LIMIT: Final = 2_500  # per card and kind in the dicts: at most some 30 MB of moves


def _new_move(kind: str, card: int, mask: int, value: int | None, single: bool | None) -> Move:
    """A new Move, made in one C call (``Move(...)`` runs the NamedTuple's Python-level
    ``__new__``, several times slower; the result is the same)."""
    return tuple.__new__(Move, (kind, card, _mask_tuple(mask), value, single, False))


def _capture(card: int, mask: int) -> Move:
    if mask < _SMALL:
        row = _CAPS_SMALL[card]
        got = row[mask]
        if got is None:
            got = _new_move(_CAPTURE, card, mask, None, None)
            row[mask] = got
        return got
    cache = _CAPS[card]
    mv = cache.get(mask)
    if mv is None:
        mv = _new_move(_CAPTURE, card, mask, None, None)
        if len(cache) < _INTERN_LIMIT:
            cache[mask] = mv
    return mv


def _build(card: int, mask: int, value: int, single: bool) -> Move:
    if mask < _SMALL and value < 32:
        row = _BUILDS_SMALL[card * 32 + value]
        if row is None:
            row = [None] * (2 * _SMALL)
            _BUILDS_SMALL[card * 32 + value] = row
        i = mask * 2 + single
        got = row[i]
        if got is None:
            got = _new_move(_BUILD, card, mask, value, single)
            row[i] = got
        return got
    key = (mask << 6 | value) << 1 | single
    cache = _BUILDS[card]
    mv = cache.get(key)
    if mv is None:
        mv = _new_move(_BUILD, card, mask, value, single)
        if len(cache) < _INTERN_LIMIT:
            cache[key] = mv
    return mv


_MASK_TUPLES: Final[list[tuple[int, ...] | None]] = [None] * _SMALL  # small masks, made once


def _mask_tuple(mask: int) -> tuple[int, ...]:
    """The table positions of ``mask``, ascending."""
    if mask < _SMALL:
        got = _MASK_TUPLES[mask]
        if got is None:
            got = _mask_tuple_of(mask)
            _MASK_TUPLES[mask] = got
        return got
    return _mask_tuple_of(mask)


def _mask_tuple_of(mask: int) -> tuple[int, ...]:
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
    _subsets_from(vals, pos, 0, 0, target, out)
    return out


def _subsets_from(vals: list[int], pos: list[int], j: int, mask: int, rest: int,
                  out: list[int]) -> None:
    for k in range(j, len(vals)):
        v = vals[k]
        if v > rest:
            return
        bit = 1 << pos[k]
        if v == rest:
            out.append(mask | bit)
        else:
            _subsets_from(vals, pos, k + 1, mask | bit, rest - v, out)


def _unions(groups: list[int]) -> list[int]:
    """Every union of pairwise-disjoint groups, including the empty one (0)."""
    if len(groups) == 2:  # the common case, without the bookkeeping
        g0 = groups[0]
        g1 = groups[1]
        return [0, g0, g1] if g0 & g1 else [0, g0, g1, g0 | g1]
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
    if 0 <= m < _SMALL:
        return _POPCOUNTS[m]
    return _popcount_of(m)


def _popcount_of(m: int) -> int:
    c = 0
    while m:
        m &= m - 1
        c += 1
    return c


_POPCOUNTS: Final[list[int]] = [_popcount_of(m) for m in range(_SMALL)]

_KEY_SHIFT: Final = 32


def _sort_masks(masks: list[int]) -> list[int]:
    """Masks in the canonical order (``movegen.mask_order``): fewer piles, then lower mask."""
    n = len(masks)
    if n < 2:
        return masks
    if n <= 12:  # insertion sort of a copy: no keys to build
        out = list(masks)
        for i in range(1, n):
            x = out[i]
            cx = _popcount(x)
            j = i - 1
            while j >= 0:
                y = out[j]
                cy = _popcount(y)
                if cy < cx or (cy == cx and y < x):
                    break
                out[j + 1] = y
                j -= 1
            out[j + 1] = x
        return out
    big = False
    for m in masks:
        if m >> _KEY_SHIFT:
            big = True
            break
    if big:  # a table of more than 32 piles: sort by a tuple key
        return sorted(masks, key=_mask_key)
    keyed: list[int] = [(_popcount(m) << _KEY_SHIFT) | m for m in masks]
    keyed.sort()
    low = (1 << _KEY_SHIFT) - 1
    return [k & low for k in keyed]


def _mask_key(m: int) -> tuple[int, int]:
    return (_popcount(m), m)


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


def generate_for(table: list[Pile], hand: list[int], mover: int, pv: list[int],
                 tv1: list[int], maxv: int, table_only: bool, building: bool,
                 owner_rules: bool, multi: MultiValues | None = None) -> list[Move] | None:
    """Legal moves of ``mover`` on an engine table (loose cards, then builds), or None when
    this position needs the general generator.

    ``pv[c]``: the single capture value of card c (0 if it has none or several); ``tv1[c]``: its
    single table value (0 for none, -1 for several). Builds the mover owns get the default owner
    obligations when ``owner_rules`` (variant 1 with the retain rule: no trail, keep a card that
    takes each owned build); without it, owning a build means falling back.

    Few allocations per call: builds are looked up in short lists rather than dicts, subset
    lists are cached per value in one list, and the common build shapes skip the union step.

    With ``multi`` (the rules' cards of several values), a position holding such a card is
    handed to :func:`generate_multi` instead of returning None.
    """
    n = len(table)
    vals: list[int] = []
    pos: list[int] = []
    limit = (1 << (maxv + 1)) - 1
    reach = 1
    nl = 0
    while nl < n:
        p = table[nl]
        if not isinstance(p, int):
            break
        v = tv1[p]
        if v < 0:
            return None if multi is None else generate_multi(table, hand, mover, maxv,
                                                             table_only, building,
                                                             owner_rules, multi)
        if v:
            vals.append(v)
            pos.append(nl)
            reach = (reach | (reach << v)) & limit
        nl += 1
    nb = n - nl
    bvals: list[int] = _NONE  # the shared empty lists are replaced before any append
    bsingle: list[bool] = _NO_FLAGS
    owned_bits: list[int] = _NONE
    owned_vals: list[int] = _NONE
    if nb:
        bvals = []
        bsingle = []
    for j in range(nb):
        b = cast(Build, table[nl + j])  # the piles after the loose cards are builds
        bv = b.value
        bvals.append(bv)
        bsingle.append(b.single)
        if b.owner == mover:
            if not owner_rules:
                return None
            if not owned_bits:
                owned_bits = []
                owned_vals = []
            owned_bits.append(1 << (nl + j))
            owned_vals.append(bv)
    owned = len(owned_bits) > 0
    nh = len(hand)
    hvals: list[int] = []
    held: list[int] = []  # the distinct capture values in hand, ascending
    for c in hand:
        w = pv[c]
        if not w and n and tv1[c] != 0:  # a card of several values (or the table clearer)
            return None if multi is None else generate_multi(table, hand, mover, maxv,
                                                             table_only, building,
                                                             owner_rules, multi)
        hvals.append(w)
        if w:  # insert w into held (a few values: no set, no sort)
            k = len(held)
            i = 0
            while i < k and held[i] < w:
                i += 1
            if i == k:
                held.append(w)
            elif held[i] != w:
                held.insert(i, w)
    subs: list[list[int] | None] = [None] * (maxv + 1)
    uns: list[list[int] | None] = _NO_UNIONS  # allocated when first needed
    moves: list[Move] = []
    for hi in range(nh):
        card = hand[hi]
        v = hvals[hi]
        # ---- captures
        if n:
            if v:
                groups: list[int] = _NONE
                if reach >> v & 1:
                    groups = _subs(subs, vals, pos, v)
                if nb:
                    groups = _with_builds(groups, bvals, nl, v, False)
                caps = groups if len(groups) <= 1 else _sort_masks(_unions(groups)[1:])
                for m in caps:
                    if not owned or _keeps(owned_bits, owned_vals, hvals, hi, m):
                        moves.append(_capture(card, m))
            else:  # a court card: one loose card of its rank
                r = card >> 2
                for i in range(nl):
                    q = table[i]
                    assert isinstance(q, int)
                    if q >> 2 == r and (not owned or _keeps(
                            owned_bits, owned_vals, hvals, hi, 1 << i)):
                        moves.append(_capture(card, 1 << i))
        # ---- builds
        hv = tv1[card]
        if building and n and hv > 0:
            twice = v > 0 and _held_twice(hvals, v)  # another card takes with v too
            for target in held:  # each value, ascending, held by another card of the hand
                if target < hv or (target == v and not twice):
                    continue
                d = target - hv
                hg: list[int] = _ZERO
                if d:
                    hg = _subs(subs, vals, pos, d) if reach >> d & 1 else _NONE
                raises: list[int] = _NONE
                if d and nb:
                    raises = _with_builds(_NONE, bvals, nl, d, True, bsingle)
                if not hg and not raises:
                    continue
                others: list[int] = _NONE
                if table_only and reach >> target & 1:
                    others = _subs(subs, vals, pos, target)
                if nb:
                    others = _with_builds(others, bvals, nl, target, False)
                if not others:
                    if not d and not raises:
                        continue  # the card alone: no build
                    # every build is the hand card's group alone: single builds
                    ms = hg + raises if raises else hg
                    if owned:
                        ms = [m for m in ms if _keeps(owned_bits, owned_vals, hvals, hi, m)]
                    for m in _sort_masks(ms):
                        moves.append(_build(card, m, target, True))
                    continue
                # the unions of the other groups of this value are the same for every hand
                # card: computed once per position (thousands of them on a big table)
                if not uns:
                    uns = [None] * (maxv + 1)
                us_ = uns[target]
                if us_ is None:
                    us_ = _unions(others)
                    uns[target] = us_
                us = us_
                found: dict[int, bool] = {}
                _join(found, hg, us)
                if raises:
                    _join(found, raises, us)
                keep: list[int] = []
                for m in found:
                    if not owned or _keeps(owned_bits, owned_vals, hvals, hi, m):
                        keep.append(m)
                for m in _sort_masks(keep):
                    moves.append(_build(card, m, target, found[m]))
        if not owned:
            moves.append(_TRAILS[card])
    if not moves:  # cannot happen with the retain rule; the general generator decides
        return None
    return moves


def _held_twice(hvals: list[int], v: int) -> bool:
    """Do two cards of the hand capture with value v?"""
    seen = False
    for w in hvals:
        if w == v:
            if seen:
                return True
            seen = True
    return False


def _join(found: dict[int, bool], part: list[int], us: list[int]) -> None:
    """Build masks: each group of ``part`` with each disjoint union of ``us`` (mask -> whether
    some decomposition is the group alone, a single build)."""
    for h in part:
        for u in us:
            if not u & h:
                m = h | u
                if m:
                    found[m] = found.get(m, False) or u == 0


_ZERO: Final[list[int]] = [0]  # shared, never modified
_NONE: Final[list[int]] = []  # shared, never modified
_NO_FLAGS: Final[list[bool]] = []  # shared, never modified
_NO_UNIONS: Final[list[list[int] | None]] = []  # shared, never modified


def _subs(subs: list[list[int] | None], vals: list[int], pos: list[int], target: int
          ) -> list[int]:
    g = subs[target]
    if g is None:
        g = _subsets(vals, pos, target)
        subs[target] = g
    return g


def _with_builds(groups: list[int], bvals: list[int], nl: int, value: int, singles: bool,
                 bsingle: list[bool] | None = None) -> list[int]:
    """``groups`` plus the bits of the builds of ``value`` (only single builds with
    ``singles``); a new list when any is added, else ``groups`` itself."""
    out = groups
    for j in range(len(bvals)):
        if bvals[j] == value and (not singles or (bsingle is not None and bsingle[j])):
            if out is groups:
                out = list(groups)
            out.append(1 << (nl + j))
    return out


def order_by_keys(deck: tuple[int, ...], keys: list[float]) -> list[int]:
    """The cards of ``deck`` sorted by their random ``keys`` (equal keys keep the deck's order):
    a uniform shuffle, which must never change (saved games replay their deals from the seed)."""
    return [deck[i] for i in sorted(range(len(deck)), key=keys.__getitem__)]


def shuffled(deck: tuple[int, ...], random: Callable[[], float]) -> list[int]:
    """The cards of ``deck`` ordered by a key from ``random()`` each, drawn in deck order
    (:func:`order_by_keys`)."""
    return order_by_keys(deck, [random() for _ in deck])


def shuffled_seeded(deck: tuple[int, ...], seed: bytes) -> list[int]:
    """:func:`shuffled` with the ``random()`` of ``random.Random(n)``, ``n`` the integer whose
    big-endian bytes are ``seed`` (``_cgen`` seeds its own copy of the same generator)."""
    return shuffled(deck, _random_module.Random(int.from_bytes(seed, "big")).random)


def play_on_table(table: list[Pile], move: Move, owner: int,
                  taken: list[int]) -> tuple[list[Pile], Build | None]:
    """The table after ``move`` (a trail, capture or build) is played; ``owner``: the owner
    of the build it makes.

    Captured cards (the played card last) are appended to ``taken``. Returns the new table (in
    canonical order) and the new build, if any.
    """
    kind = move.kind
    card = move.card
    if kind == "trail":
        out = list(table)
        i = 0
        n = len(out)
        while i < n:
            p = out[i]
            if not isinstance(p, int) or p > card:  # (a build, or a higher loose card)
                break
            i += 1
        out.insert(i, card)
        return out, None
    piles = move.piles
    keep: list[Pile] = []
    cards: list[int] = []
    k = 0
    np_ = len(piles)
    for i in range(len(table)):
        p = table[i]
        if k < np_ and piles[k] == i:
            k += 1
            if isinstance(p, int):
                cards.append(p)
            else:
                cards.extend(p.cards)
        else:
            keep.append(p)
    cards.append(card)
    if kind == "capture":
        taken.extend(cards)
        return keep, None
    # (one C call: ``Build(...)`` runs the NamedTuple's Python-level ``__new__``)
    new = tuple.__new__(Build, (tuple(cards), move.value or 0, bool(move.single), owner,
                                move.court))
    keep.append(new)
    return keep, new


def play_card(table: list[Pile], hand: list[int], move: Move, owner: int, taken: list[int],
              captured: list[int]) -> list[Pile]:
    """A trail, capture or build played from ``hand``, in one call (what ``State.apply`` does
    with the card): returns the new table, as :func:`play_on_table` makes it (a new build
    last); a capture's cards (the played card last) are appended to ``taken`` (an empty list)
    and to ``captured``; then ``move.card`` leaves ``hand`` (its first copy; ValueError, with
    nothing changed, if there is none, as from ``list.index``).
    """
    card = move.card
    hi = hand.index(card)
    out, _new = play_on_table(table, move, owner, taken)
    if move.kind == _CAPTURE:
        captured.extend(taken)
    last = len(hand) - 1  # remove hand[hi], keeping the order (cheaper than del or pop(i))
    while hi < last:
        hand[hi] = hand[hi + 1]
        hi += 1
    hand.pop()
    return out


class MultiValues:
    """The values of every card under rules where some card has several (an ace worth 1 or
    14, Buckeye's ten of diamonds): what :func:`generate_multi` needs besides the hot path's
    own arguments. ``capture[c]`` / ``table[c]``: the values of card c as a capturer / as a
    loose card or build component (``Rules.capturer_values`` / ``table_values``); ``low[c]``
    its low value (0 for a court card without one); ``clearer`` the table-clearer card or -1.
    """

    def __init__(self, capture: list[list[int]], table: list[list[int]], low: list[int],
                 clearer: int) -> None:
        self.capture = capture
        self.table = table
        self.low = low
        self.clearer = clearer


def _subsets_multi(vals: list[list[int]], pos: list[int], target: int) -> list[int]:
    """Masks of the loose-card subsets that total ``target`` for some choice of each card's
    value (each mask once, in no particular order)."""
    out: list[int] = []
    _subsets_multi_from(vals, pos, 0, 0, target, out)
    if len(out) < 2:
        return out
    seen: set[int] = set()
    uniq: list[int] = []
    for m in out:
        if m not in seen:
            seen.add(m)
            uniq.append(m)
    return uniq


def _subsets_multi_from(vals: list[list[int]], pos: list[int], j: int, mask: int, rest: int,
                        out: list[int]) -> None:
    for k in range(j, len(vals)):
        bit = 1 << pos[k]
        for v in vals[k]:
            if v == rest:
                out.append(mask | bit)
            elif v < rest:
                _subsets_multi_from(vals, pos, k + 1, mask | bit, rest - v, out)


def _answers(hand: list[int], hi: int, values: list[int], capture: list[list[int]]) -> bool:
    """Can the hand without hand[hi] answer for builds of every value in ``values`` at once,
    each value with a card of its own (``movegen.answer_gap`` is None)? Hall's condition on
    the values and the cards that take them."""
    nbrs: list[int] = []
    seen: list[int] = []
    used = 0
    shared = False
    for value in values:
        if value in seen:
            continue
        seen.append(value)
        m = 0
        for j in range(len(hand)):
            if j != hi and value in capture[hand[j]]:
                m |= 1 << j
        if not m:
            return False
        if m & used:
            shared = True
        used |= m
        nbrs.append(m)
    if not shared:
        return True
    k = len(nbrs)
    for sub in range(3, 1 << k):
        size = _popcount(sub)
        if size < 2:
            continue
        cards = 0
        for i in range(k):
            if sub >> i & 1:
                cards |= nbrs[i]
        if _popcount(cards) < size:
            return False
    return True


def generate_multi(table: list[Pile], hand: list[int], mover: int, maxv: int,
                   table_only: bool, building: bool, owner_rules: bool,
                   mv: MultiValues) -> list[Move] | None:
    """:func:`generate_for` for positions with cards of several values: the same list as the
    reference generator (``movegen.generate``), or None where the general generator must
    decide (the table clearer in hand, or owned builds without the default obligations).

    A loose card counts each of its table values in the subset sums; a capturer takes with
    each of its values (with a value other than its low one, loose cards of its rank pair too),
    and its capture sets are merged; a hand card of several table values builds with each, its
    candidates merged by pile set; the retain rule asks that the cards left answer for all the
    mover's builds at once, each value with a card of its own (``_answers``).
    """
    capture = mv.capture
    tvals = mv.table
    low = mv.low
    for c in hand:
        if c == mv.clearer:
            return None
    n = len(table)
    vals: list[list[int]] = []
    pos: list[int] = []
    nl = 0
    while nl < n:
        p = table[nl]
        if not isinstance(p, int):
            break
        tv = tvals[p]
        if tv:
            vals.append(tv)
            pos.append(nl)
        nl += 1
    nb = n - nl
    bvals: list[int] = []
    bsingle: list[bool] = []
    owned_bits: list[int] = []
    owned_vals: list[int] = []
    for j in range(nb):
        b = cast(Build, table[nl + j])
        bvals.append(b.value)
        bsingle.append(b.single)
        if b.owner == mover:
            if not owner_rules:
                return None
            owned_bits.append(1 << (nl + j))
            owned_vals.append(b.value)
    owned = len(owned_bits) > 0
    subs: list[list[int] | None] = [None] * (maxv + 1)
    nh = len(hand)
    moves: list[Move] = []
    for hi in range(nh):
        card = hand[hi]
        # ---- captures
        if n:
            cvs = capture[card]
            if not cvs:  # a court card without a value: one loose card of its rank
                r = card >> 2
                for i in range(nl):
                    q = table[i]
                    assert isinstance(q, int)
                    if q >> 2 == r and (not owned or _answers_left(
                            hand, hi, owned_bits, owned_vals, 1 << i, 0, capture)):
                        moves.append(_capture(card, 1 << i))
            else:
                allm: set[int] = set()
                for v in cvs:
                    groups: list[int] = list(_subs_multi(subs, vals, pos, v))
                    if v != low[card]:  # a high value: loose cards of its rank pair too (G1)
                        r = card >> 2
                        for i in range(nl):
                            q = table[i]
                            assert isinstance(q, int)
                            if q >> 2 == r and (1 << i) not in groups:
                                groups.append(1 << i)
                    for j in range(nb):
                        if bvals[j] == v:
                            groups.append(1 << (nl + j))
                    for m in _unions(groups):
                        if m:
                            allm.add(m)
                for m in _sort_masks(list(allm)):
                    if not owned or _answers_left(hand, hi, owned_bits, owned_vals, m, 0,
                                                  capture):
                        moves.append(_capture(card, m))
        # ---- builds
        comp = tvals[card]
        if building and n and comp:
            hv_min = comp[0]
            for hv in comp:
                if hv < hv_min:
                    hv_min = hv
            holders: list[int] = []
            for j in range(nh):
                if j != hi:
                    for w in capture[hand[j]]:
                        if w >= hv_min and w not in holders:
                            holders.append(w)
            holders.sort()
            for v in holders:
                ul0: list[int] = [0]
                if table_only:
                    ul0 = _unions(_subs_multi(subs, vals, pos, v))
                bgs: list[int] = []
                for j in range(nb):
                    if bvals[j] == v:
                        bgs.append(1 << (nl + j))
                ub0: list[int] = _unions(bgs) if bgs else [0]
                found: dict[int, bool] = {}
                for hv in comp:
                    if hv > v:
                        continue
                    d = v - hv
                    hgroups: list[int] = [0]
                    if d:
                        hgroups = list(_subs_multi(subs, vals, pos, d))
                        for j in range(nb):
                            if bsingle[j] and bvals[j] == d:
                                hgroups.append(1 << (nl + j))
                    for h in hgroups:
                        for bu in ub0:
                            if bu & h:
                                continue
                            hb = h | bu
                            for u in ul0:
                                if u & hb:
                                    continue
                                m = hb | u
                                if m:
                                    found[m] = found.get(m, False) or (bu == 0 and u == 0)
                keep: list[int] = []
                for m in found:
                    if not owned or _answers_left(hand, hi, owned_bits, owned_vals, m, v,
                                                  capture):
                        keep.append(m)
                for m in _sort_masks(keep):
                    moves.append(_build(card, m, v, found[m]))
        if not owned:
            moves.append(_TRAILS[card])
    if not moves:
        return None
    return moves


def _answers_left(hand: list[int], hi: int, owned_bits: list[int], owned_vals: list[int],
                  mask: int, new_value: int, capture: list[list[int]]) -> bool:
    """The retain rule after playing hand[hi] on ``mask``: the builds still owned (and a new
    build of ``new_value``, if not 0) can all be answered for at once."""
    left: list[int] = []
    for k in range(len(owned_bits)):
        if not owned_bits[k] & mask:
            left.append(owned_vals[k])
    if new_value:
        left.append(new_value)
    return not left or _answers(hand, hi, left, capture)


def _subs_multi(subs: list[list[int] | None], vals: list[list[int]], pos: list[int],
                target: int) -> list[int]:
    if target > len(subs) - 1:
        return _NONE
    g = subs[target]
    if g is None:
        g = _subsets_multi(vals, pos, target)
        subs[target] = g
    return g
