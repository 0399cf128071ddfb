"""The arena's ``hard-mcts``: a tree search over the plays of the deal (casino_tui.ai.ismcts)."""

from __future__ import annotations

from ai_support import early_position

from casino_tui.ai import choose_move
from casino_tui.ai.ismcts import Node, _descend, ismcts
from casino_tui.ai.values import rule_values
from casino_tui.engine import Move, Rules, State, parse_card, parse_cards

C = parse_card


def test_hard_mcts_is_reproducible_and_searches_every_candidate() -> None:
    st = early_position("5C 3D 9H KS", "2S 6H 10C 4D")
    view = st.view(0)
    first = ismcts(view, seed=4, iterations=30)
    again = ismcts(view, seed=4, iterations=30)
    assert first.move == again.move and first.means == again.means
    assert st.is_legal(first.move)
    # every candidate was tried, and each iteration was counted once at the root
    assert len(first.means) >= 2
    assert first.worlds == 30 * len(first.means)
    picks = {choose_move(view, "hard-mcts", seed=s, iterations=20) for s in range(3)}
    assert all(st.is_legal(m) for m in picks)


def test_hard_mcts_takes_a_sweep_with_big_casino() -> None:
    # 10D takes 6S and 4H: every card on the table, big casino among them
    st = early_position("6S 4H", "10D 3C 7H JS")
    result = ismcts(st.view(0), seed=1, iterations=40)
    assert result.move == Move.capture(C("10D"), (0, 1))
    assert result.means[result.move] == max(result.means.values())


def test_the_tree_gives_the_opponent_the_reply_worst_for_the_seat() -> None:
    # the seat has played; of the opponent's two replies (both tried), the one whose value for
    # the seat is lower is followed, however often each was visited
    st = State.from_position(Rules.preset("classic"), 2, table=parse_cards("5C"),
                             hands=[parse_cards("2S 3S"), parse_cards("5D KH")], to_move=1,
                             dealer=0, stock=parse_cards("4C 4D 4H 4S"), complete=False)
    moves = st.legal_moves()
    take = Move.capture(C("5D"), (0,))
    assert take in moves
    root = Node()
    for m in moves:
        child = root.children[m] = Node()
        child.visits = 10
        child.total = -30.0 if m == take else 10.0  # the seat loses 3 points a visit if 5D takes
        child.avail = 10
    world = st.clone()
    path = _descend(world, root, moves, rule_values(st.rules), my_side=0, c=0.0, width=5)
    assert path.nodes[1] is root.children[take]
    assert world.history[-2:][0] == take  # played in the world, then one new node below it
