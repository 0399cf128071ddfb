"""Information-set Monte Carlo tree search over the rest of the deal (the arena's
``hard-mcts``, an experiment measured against ``hard-v1``).

Where the flat search (:func:`~casino_tui.ai.search.search`) plays one candidate and hands the
rest of the deal to the playout policy, this search grows a tree over the plays of the deal,
the seat's own later plays included (single-observer ISMCTS, Cowling, Powley and Whitehouse,
2012). Every iteration deals the unseen cards into a world (the sampler's), walks down the tree
choosing among the plays that exist in that world by UCB (each child counts the iterations it
was available in), adds one new node, plays on with the playout policy to the end of the deal
(of the round in the one before last) and backs the value up. Opponents choose the move worst
for the seat; beyond the root only the playout policy's best few moves are searched. The root
move is the one visited most; the search stops early once no other can catch up in the time
left. The same candidates, last-deal solver and time limits as the flat search.
"""

from __future__ import annotations

import math
import random
import time

from ..engine import Move, SeatView, State
from .search import (
    Sampler,
    SearchResult,
    claim_if_it_wins,
    in_deal,
    playout,
    policy_scores,
    prepare,
    utility,
)
from .values import RuleValues

UCB_C = 1.5  # exploration, in round points
WIDTH = 5  # moves searched at a node below the root (the playout policy's best)


class Node:
    """Statistics of one play in the tree (values are the searching seat's)."""

    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[Move, Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 1


def ismcts(view: SeatView, *, seed: int, budget: float | None = 1.0,
           iterations: int | None = None, sampler: Sampler | None = None,
           c: float = UCB_C, width: int = WIDTH) -> SearchResult:
    """The move for ``view.seat``; ``iterations``: the number of iterations for each candidate
    move (a fixed effort, reproducible) instead of the time ``budget``."""
    setup = prepare(view, seed=seed, budget=budget, iterations=iterations, sampler=sampler)
    if isinstance(setup, SearchResult):
        return setup
    rng, cands, rv, deadline = setup.rng, setup.cand_moves, setup.rv, setup.deadline
    if iterations is not None:
        limit = iterations * len(cands)
    else:
        limit = 200 * len(cands) if deadline is None else 10**9
    root = Node()
    done = 0
    while done < limit:
        if deadline is not None and done and not done & 63:
            now = time.perf_counter()
            if now >= deadline:
                break
            if done >= 256:  # stop when the most visited move cannot be overtaken in time
                left = (deadline - now) * done / (now - setup.start)
                visits = sorted((ch.visits for ch in root.children.values()), reverse=True)
                if len(visits) > 1 and visits[0] - visits[1] > left:
                    break
        st = setup.sampler.sample(rng)
        path = _descend(st, root, cands, rv, setup.my_side, c, width)
        if in_deal(st, -1 if setup.to_round_end else path.deal, path.round_no):
            value = playout(st, rv, random.Random(rng.getrandbits(48)), setup.my_side, 0.1,
                            setup.max_plies, setup.to_round_end)
        else:
            value = utility(st, rv, setup.my_side)
        for node in path.nodes:
            node.visits += 1
            node.total += value
        done += 1
    means = {m: ch.total / ch.visits for m, ch in root.children.items() if ch.visits}
    best = max(cands, key=lambda m: (root.children[m].visits if m in root.children else -1,
                                     means.get(m, -math.inf)))
    return SearchResult(best, setup.ranked, means, done, False)


class _Path:
    __slots__ = ("deal", "nodes", "round_no")

    def __init__(self, st: State, root: Node) -> None:
        self.deal = st.deal_no
        self.round_no = st.round_no
        self.nodes = [root]


def _descend(st: State, root: Node, cands: list[Move], rv: RuleValues, my_side: int,
             c: float, width: int) -> _Path:
    """Walk down the tree in world ``st`` (playing the moves on it), adding one node."""
    path = _Path(st, root)
    node = root
    options = cands
    while True:
        if node is not root:
            if not in_deal(st, path.deal, path.round_no) or claim_if_it_wins(st, rv):
                break  # the tree stays within this deal
            legal = [m for m in st.legal_moves() if m.kind != "claim"]
            if len(legal) > width:
                scores = policy_scores(st, legal, rv)
                order = sorted(range(len(legal)), key=lambda i: -scores[i])[:width]
                options = [legal[i] for i in sorted(order)]
            else:
                options = legal
            if not options:
                break
        new = None
        for m in options:
            child = node.children.get(m)
            if child is None:
                if new is None:
                    new = m
            else:
                child.avail += 1
        if new is not None:
            child = node.children[new] = Node()
            st.apply(new, validate=False)
            path.nodes.append(child)
            break
        sign = 1.0 if st.side_of[st.to_move] == my_side else -1.0
        best = options[0]
        best_u = -math.inf
        for m in options:
            child = node.children[m]
            u = sign * child.total / child.visits + c * math.sqrt(
                math.log(child.avail) / child.visits)
            if u > best_u:
                best_u = u
                best = m
        node = node.children[best]
        st.apply(best, validate=False)
        path.nodes.append(node)
    return path
