"""Learn the value of a position at the end of a deal (classic, two players) from self-play.

Plays rounds of classic with the playout policy of Hard's search on both sides (as its
playouts play them), records every position where a deal has just ended and the round goes
on, with what the round finally gave each side, and fits a ridge regression of the round's
final point difference on the features of :mod:`casino_tui.ai.deal_value` (public facts only:
what each side has taken, the table left, who leads the next deal, who took last). It prints
the fit against the playouts' own value (``pending_points``) on rounds held out, and with
``--out`` writes the weights (the file ``casino_tui/ai/deal_value.json`` ships).

    python tools/learn_deal_value.py --rounds 40000 --seed 1 --out casino_tui/ai/deal_value.json
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from casino_tui.ai.deal_value import FEATURES, features
from casino_tui.ai.search import policy_move
from casino_tui.ai.values import rule_values
from casino_tui.engine import Rules, State
from casino_tui.engine.state import Phase

EPS = 0.1  # the playouts' share of random moves


def play_round(rules: Rules, seed: str, rng: random.Random) -> list[tuple[list[float], float]]:
    """(features for side 0, final round difference side 0 minus side 1) at every deal end,
    and the same from side 1's side."""
    rv = rule_values(rules)
    st = State(rules, 2, seed=seed)
    points: list[tuple[list[float], list[float]]] = []
    deal = st.deal_no
    while st.phase is Phase.PLAY:
        st.apply(policy_move(st, rv, rng, EPS), validate=False)
        if st.phase is Phase.PLAY and st.deal_no != deal:
            deal = st.deal_no
            points.append((features(st, rv, 0), features(st, rv, 1)))
    diff = float(st.scores[0] - st.scores[1])
    out = []
    for f0, f1 in points:
        out.append((f0, diff))
        out.append((f1, -diff))
    return out


def ridge(xs: list[list[float]], ys: list[float], lam: float) -> list[float]:
    """Least squares with an L2 penalty ``lam`` (not on the first, constant feature)."""
    k = len(xs[0])
    a = [[0.0] * k for _ in range(k)]
    b = [0.0] * k
    for x, y in zip(xs, ys, strict=True):
        for i in range(k):
            xi = x[i]
            if xi == 0.0:
                continue
            b[i] += xi * y
            row = a[i]
            for j in range(k):
                row[j] += xi * x[j]
    for i in range(1, k):
        a[i][i] += lam
    # Gaussian elimination with partial pivoting
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        piv = m[c][c]
        if abs(piv) < 1e-12:
            continue
        for r in range(k):
            if r != c and m[r][c]:
                f = m[r][c] / piv
                m[r] = [u - f * v for u, v in zip(m[r], m[c], strict=True)]
    return [m[i][k] / m[i][i] if abs(m[i][i]) > 1e-12 else 0.0 for i in range(k)]


def mse(pred: list[float], ys: list[float]) -> float:
    return sum((p - y) ** 2 for p, y in zip(pred, ys, strict=True)) / len(ys)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=40000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--holdout", type=float, default=0.2, help="share of rounds held out")
    p.add_argument("--lam", type=float, default=1.0, help="ridge penalty")
    p.add_argument("--out", type=Path, help="write the weights to this JSON file")
    ns = p.parse_args(argv)
    rules = Rules.preset("classic")
    rng = random.Random(f"learn/{ns.seed}")
    t0 = time.perf_counter()
    train: list[tuple[list[float], float]] = []
    test: list[tuple[list[float], float]] = []
    cut = int(ns.rounds * (1 - ns.holdout))
    for r in range(ns.rounds):
        (train if r < cut else test).extend(play_round(rules, f"learn/{ns.seed}/{r}", rng))
    played = time.perf_counter() - t0
    xs = [x for x, _ in train]
    ys = [y for _, y in train]
    w = ridge(xs, ys, ns.lam)
    tx = [x for x, _ in test]
    ty = [y for _, y in test]
    base = FEATURES.index("pending")
    learned = mse([sum(a * b for a, b in zip(w, x, strict=True)) for x in tx], ty)
    baseline = mse([x[base] for x in tx], ty)
    print(f"{ns.rounds} rounds played in {played:.1f} s: {len(train)} positions to fit, "
          f"{len(test)} held out")
    print(f"held-out mean squared error of the final round difference: pending_points "
          f"{baseline:.3f}, learned {learned:.3f} ({100 * (1 - learned / baseline):.1f}% less)")
    for name, v in zip(FEATURES, w, strict=True):
        print(f"  {name:>16} {v:+.4f}")
    if ns.out is not None:
        doc = {"rules": "classic", "players": 2, "features": list(FEATURES),
               "weights": [round(v, 6) for v in w],
               "made_by": f"python tools/learn_deal_value.py --rounds {ns.rounds} "
                          f"--seed {ns.seed} --lam {ns.lam:g}",
               "held_out_mse": {"pending_points": round(baseline, 4),
                                "learned": round(learned, 4)}}
        ns.out.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {ns.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
