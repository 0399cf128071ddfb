"""Plain mode at a server's table, over real SSH: Ann uses ``ssh -t HOST plain`` (lines of
text), Bob the full-screen game (``ssh -t HOST join CODE``). Ann creates the table and starts
it, they chat both ways and play moves in turn, each seeing the other's plays; the hub's own
record (the table's save) says whose turn it is."""

from __future__ import annotations

import re
from pathlib import Path

from serve_support import Server, Tmux, make_key, needs_ssh_tmux, wait_until
from test_serve_tables_e2e import (
    Player,
    join_by_code,
    play_a_move,
    saved_state,
    serve,
    wait_in_log,
)

pytestmark = needs_ssh_tmux

PLAIN_MOVES = r"(?:took|trailed|built|raised)"


def count(pattern: str, text: str) -> int:
    return len(re.findall(pattern, text))


def test_a_plain_player_and_a_full_screen_player_at_one_table(
        tmux: Tmux, tmp_path: Path, servers: list[Server]) -> None:
    server = serve(servers, tmp_path / "data")
    ann = Player(tmux, make_key(tmp_path, "ann"), "Ann")
    bob = Player(tmux, make_key(tmp_path, "bob"), "Bob")
    ann.connect(server.port, "plain")
    ann.wait_for("Casino, plain mode", timeout=30)
    ann.type("create")
    ann.send("Enter")
    ann.wait_for("Your name at the tables")
    ann.type("Ann")
    ann.send("Enter")
    code = ann.wait_match(r"Table ([A-Z]{6}) is yours").group(1)
    join_by_code(bob, server.port, code, seat=1)
    ann.wait_for("Bob joined")
    ann.type("start")
    ann.send("Enter")
    ann.wait_for("The game begins.")
    bob.wait_for("Your hand")

    # chat both ways
    bob.send("/")
    bob.wait_for("Say to the table:")
    bob.type("hello from bob")
    bob.send("Enter")
    ann.wait_for("Bob says: hello from bob")
    ann.type("say hi bob")
    ann.send("Enter")
    wait_in_log(bob, r"Ann: hi bob")

    # four moves, each by whoever the hub says is to move; each side sees the other's
    scratch = tmp_path / "copy"
    for _ in range(4):
        state = saved_state(server.data_dir, scratch)
        moves = len(state.history)
        if state.current_player == 0:  # Ann, in plain mode: a number from the list
            ann.wait_for("Your turn.")
            ann.type("moves")
            ann.send("Enter")
            ann.wait_for("1. ")
            ann.type("1")
            ann.send("Enter")
            ann.wait_match(rf"You {PLAIN_MOVES}")
        else:
            # counted over the pane's history: Ann's list of moves scrolls her screen, so an
            # earlier play of Bob's can leave its top as his new one arrives
            before = count(rf"Bob {PLAIN_MOVES}", ann.tmux.history(ann.pane))
            play_a_move(bob)
            wait_until(lambda b=before: count(rf"Bob {PLAIN_MOVES}",
                                              ann.tmux.history(ann.pane)) > b, 20,
                       "Bob's play told to Ann", detail=ann.screen)
        wait_until(lambda m=moves: len(saved_state(server.data_dir, scratch).history) > m, 20,
                   "the move saved by the hub")

    ann.type("leave")
    ann.send("Enter")
    ann.wait_for("You left the table")
    ann.type("quit")
    ann.send("Enter")
    assert tmux.wait_exit(ann.pane) == 0

    # back later: the menu says where she has a seat, and join takes her back to it
    ann.connect(server.port, "plain")
    ann.wait_for(f"You have a seat at table {code}, round 1: type join {code}", timeout=30)
    ann.type(f"join {code}")
    ann.send("Enter")
    ann.wait_for(f"You are at table {code}, in seat 1, as Ann.")
    ann.type("leave")
    ann.send("Enter")
    ann.wait_for("You left the table")
    ann.type("quit")
    ann.send("Enter")
    assert tmux.wait_exit(ann.pane) == 0
