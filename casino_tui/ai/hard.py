"""Hard, and Hard as it was frozen (``hard-v1``, the arena's yardstick).

Hard is the determinized search of :mod:`casino_tui.ai.search` on deals weighed by what the
other players' plays of this deal say about their hands (:mod:`casino_tui.ai.infer`), using
more of its budget before it settles (``WIDE_STOPPING``). It was the arena's ``hard-wide-infer``
until it was measured the strongest (README, "Towards a stronger Hard"). ``hard-v1`` is the
same search on deals drawn as if every consistent deal were alike, settling sooner
(``V1_STOPPING``): Hard as frozen on 2026-11-25, which never changes.
"""

from __future__ import annotations

from ..engine import SeatView
from .infer import InferringSampler
from .search import V1_STOPPING, WIDE_STOPPING, SearchResult, search


def hard_search(view: SeatView, *, seed: int, budget: float | None,
                iterations: int | None = None) -> SearchResult:
    """Hard's search for ``view.seat`` (``iterations``, when given, fixes the effort).

    Where the players draw a card after each play there is nothing to infer, and the wider
    search alone gains nothing: there Hard searches as ``hard-v1`` does (measured: in ``draw``
    the wider search without inference made -1.33, -2.57 to -0.09, a pair against ``hard-v1``
    over 120 pairs; README, "Hard against Medium, and against hard-v1, in every preset")."""
    stopping = V1_STOPPING if view.rules.draw_mode else WIDE_STOPPING
    return search(view, seed=seed, budget=budget, iterations=iterations,
                  sampler=InferringSampler(view), stopping=stopping)


def hard_v1_search(view: SeatView, *, seed: int, budget: float | None,
                   iterations: int | None = None) -> SearchResult:
    """``hard-v1``'s search: frozen, never changed (tests/data/hard_v1_moves.json)."""
    return search(view, seed=seed, budget=budget, iterations=iterations, stopping=V1_STOPPING)
