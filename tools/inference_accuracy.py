"""How well the inference of casino_tui.ai.infer predicts an opponent's hidden cards.

``python tools/inference_accuracy.py --games 12 --betas 0.5 1 2 4 8``

Plays classic 2-player rounds of ``hard-v1`` against itself (40 sampled deals a move, seeded)
and, at every position in which the player to move has seen the opponent play in this deal (with
cards still to come from the stock), deals the unseen cards 300 times: once with the plain
sampler (every consistent deal alike) and once per ``--beta`` with the inferring one. It prints
the mean natural log of the estimated chance of each card the opponent really holds (higher is
better; the plain sampler is the baseline). A cheap measure, in seconds, of changes to the
inference before they are measured in the arena.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics

from casino_tui.ai import choose_move
from casino_tui.ai.infer import NOISE, InferringSampler
from casino_tui.ai.search import Sampler
from casino_tui.engine import Rules, SeatView, State
from casino_tui.engine.cards import Card

DRAWS = 300


def positions(games: int) -> list[tuple[SeatView, tuple[Card, ...]]]:
    rules = Rules.preset("classic")
    out: list[tuple[SeatView, tuple[Card, ...]]] = []
    for g in range(games):
        st = State(rules, 2, seed=f"inference/{g}")
        k = 0
        while not st.is_round_over:
            seat = st.current_player
            assert seat is not None
            view = st.view(seat)
            truth = tuple(st.hands[1 - seat])
            if view.deal_plays and view.stock_size and truth:
                out.append((view, truth))
            st.apply(choose_move(view, "hard-v1", seed=k, iterations=40))
            k += 1
    return out


def accuracy(data: list[tuple[SeatView, tuple[Card, ...]]], beta: float | None,
             noise: float) -> float:
    scores = []
    for i, (view, truth) in enumerate(data):
        sampler = Sampler(view) if beta is None else InferringSampler(view, beta=beta,
                                                                      noise=noise)
        rng = random.Random(i)
        counts: dict[Card, int] = {}
        for _ in range(DRAWS):
            hands, _stock = sampler.deal(rng)
            for c in hands[1 - view.seat]:
                counts[c] = counts.get(c, 0) + 1
        scores.append(statistics.fmean(math.log((counts.get(c, 0) + 0.5) / (DRAWS + 1))
                                       for c in truth))
    return statistics.fmean(scores)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=12, help="rounds of hard-v1 self-play")
    p.add_argument("--betas", type=float, nargs="+", default=[0.5, 1.0, 2.0, 4.0, 8.0])
    p.add_argument("--noise", type=float, default=NOISE)
    args = p.parse_args()
    data = positions(args.games)
    print(f"{len(data)} positions; mean log chance of the opponent's real cards")
    print(f"  every consistent deal alike: {accuracy(data, None, args.noise):.4f}")
    for beta in args.betas:
        print(f"  weighed, beta {beta:g}, noise {args.noise:g}: "
              f"{accuracy(data, beta, args.noise):.4f}")


if __name__ == "__main__":
    main()
