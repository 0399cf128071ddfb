"""Tables over SSH end to end (issue 12): real ``ssh`` clients in tmux against a real
``casino-tui serve``. People create and join tables with the keys a person uses, play whole
rounds against each other, drop and come back, see the server restart, watch, chat, and try to
play for someone else. Each screen is checked against the hub's own record of the game: the
table's save in DATA/tables/games (the save format, written after every move)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from serve_support import (
    Key,
    Server,
    Tmux,
    a_person_reacts,
    hand_cards,
    make_key,
    needs_ssh_tmux,
    ssh_argv,
    wait_until,
)

from casino_tui.app.cardfmt import CardPainter
from casino_tui.engine import Card, State
from casino_tui.serve.server import TABLES_DIR

pytestmark = needs_ssh_tmux

WIDTH, HEIGHT = 120, 40  # wide enough that no log line or move is cut
TITLE_WITH_TABLES = "play with people here"  # the title's Tables entry: the hub is reached
YOUR_TURN = "✓ Your turn"
MOVE_VERBS = "trailed|took|raised|added|built|plucked|did not pluck"
CARD = r"(?:10|[2-9AJQK])[♠♥♦♣]"
NO_MOVE = "has no legal move here"
SUMMARY = re.compile(r"Round \d+ summary")
PAINTER = CardPainter()


# ---------------------------------------------------------------------- fixtures
# For a table of people only: no computer moves, so no pool of computer players to start and
# warm (processes of its own, about 0.6 CPU-s of a server's start).
PEOPLE_ONLY = ("--computers", "0")


def serve(servers: list[Server], data: Path, *args: str) -> Server:
    server = Server(data, "--rate-limit", "0", *args, log_name=f"server{len(servers)}.log")
    servers.append(server)
    return server


# ---------------------------------------------------------------------- what a screen shows
def box_lines(screen: str, title: str) -> list[str]:
    """The inside of the box titled ``title`` (``╭─ Log``), line by line."""
    lines = screen.splitlines()
    for i, line in enumerate(lines):
        col = line.find(f"╭─ {title}")
        if col == -1:
            continue
        end = line.find("╮", col)
        inside = []
        for row in lines[i + 1:]:
            if row[col:col + 1] == "╰":
                break
            inside.append(row[col + 1:end].strip())
        return inside
    return []


def log_entries(screen: str) -> list[str]:
    """The lines of the game's log, oldest first (as far as the box shows them)."""
    return [line for line in box_lines(screen, "Log") if line]


def wait_in_log(player: Player, pattern: str) -> str:
    """Until the log shows ``pattern``: the game's screen then. The log panel shows one line
    per entry, cut at its width; an entry it cuts is read in full in the whole log (``l``,
    then Esc back to the table), as a person would."""
    def in_panel() -> str | None:
        screen = player.screen()
        return screen if re.search(pattern, " ".join(log_entries(screen))) else None

    def in_full_log() -> bool:
        player.send("l")
        time.sleep(0.8)
        text = " ".join(player.screen().split())
        player.send("Escape")
        time.sleep(0.5)
        return re.search(pattern, text) is not None

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            screen = wait_until(in_panel, 3, "the panel")
        except AssertionError:
            if in_full_log():
                return player.screen()
            continue
        assert isinstance(screen, str)
        return screen
    raise AssertionError(f"timed out waiting for {pattern!r} in {player.name}'s log\n"
                         f"{player.screen()}")


def move_line(screen: str) -> str:
    """The line under the hand: the previewed move, or why there is none, or who is waited
    for."""
    lines = screen.splitlines()
    for i, line in enumerate(lines):
        if "Your hand" in line or "'s hand" in line:
            for row in lines[i + 1:]:
                if row.startswith("╰"):
                    index = lines.index(row)
                    return lines[index + 1] if index + 1 < len(lines) else ""
    return ""


def last_play(screen: str, name: str) -> str | None:
    """The latest play of ``name`` that the table box recalls (``Ann took 9♠ with 9♥``, after
    what came before or after it such as ``New deal (2 of 6) · ``)."""
    found = re.search(rf"▸ [^│]*?({re.escape(name)} (?:{MOVE_VERBS})[^│·]*)", screen)
    return found.group(1).strip() if found else None


def without_score(screen: str) -> str:
    """The screen without the score box (whose rows name 10♦ and 2♠ whoever holds them)."""
    lines = screen.splitlines()
    out = []
    col = None
    for line in lines:
        if col is None and "╭─ Score" in line:
            col = line.index("╭─ Score")
            out.append(line[:col])
            continue
        if col is not None:
            out.append(line[:col])
            if line[col:col + 1] == "╰":
                col = -1  # done: the lines below are whole again
            continue
        out.append(line)
    return "\n".join(out)


def cards_shown(screen: str) -> set[str]:
    """Every card drawn on the screen outside the score box."""
    return set(re.findall(CARD, without_score(screen)))


def labels(cards: Iterable[Card]) -> list[str]:
    """Cards as the screens draw them, sorted as :meth:`Player.hand` sorts them."""
    return sorted(PAINTER.label(c) for c in cards)


# ---------------------------------------------------------------------- the hub's record
def saved_state(data: Path, scratch: Path) -> State:
    """The game of the server's one table as it saved it last (read from a copy: the hub's
    folder is never touched)."""
    from casino_tui.saves import SaveStore, games_dir

    files = [p for p in games_dir(data / TABLES_DIR).glob("*.json") if not p.name.startswith(".")]
    assert len(files) == 1, files
    scratch.mkdir(exist_ok=True)
    copy = scratch / files[0].name
    copy.write_bytes(files[0].read_bytes())
    return SaveStore(scratch).load(copy, read_only=True).state


# ---------------------------------------------------------------------- people at terminals
@dataclass
class Player:
    """A person at a terminal: ``ssh`` in a tmux window of its own."""

    tmux: Tmux
    key: Key
    name: str
    seat: int | None = None
    panes: int = 0
    recalled: str | None = field(default=None, repr=False)  # the last play of another seen

    @property
    def pane(self) -> str:
        return f"{self.name.lower()}{self.panes}"

    def connect(self, port: int, *command: str) -> None:
        self.panes += 1
        self.tmux.start(self.pane, ssh_argv(port, self.key, "-t", command=command),
                        WIDTH, HEIGHT)

    def screen(self) -> str:
        return self.tmux.screen(self.pane)

    def wait_for(self, text: str, timeout: float = 20) -> str:
        return self.tmux.wait_for(self.pane, text, timeout)

    def wait_match(self, pattern: str, timeout: float = 20) -> re.Match[str]:
        return self.tmux.wait_match(self.pane, pattern, timeout)

    def wait_gone(self, text: str, timeout: float = 10) -> str:
        return self.tmux.wait_gone(self.pane, text, timeout)

    def send(self, *keys: str) -> None:
        self.tmux.send(self.pane, *keys)

    def type(self, text: str) -> None:
        self.tmux.send(self.pane, "-l", text)

    def hand(self) -> list[str]:
        return sorted(hand_cards(self.screen()))

    def name_once(self) -> None:
        """The display name, asked the first time the player goes to the tables."""
        self.wait_for("Your display name")
        self.type(self.name)
        self.send("Enter")

    def to_tables(self, port: int | None) -> None:
        """Connect (unless ``port`` is None: connected already), go to the tables (naming
        oneself) and wait for the list."""
        if port is not None:
            self.connect(port)
        self.wait_for(TITLE_WITH_TABLES, timeout=30)
        self.send("t")
        self.name_once()
        self.wait_for(f"You are {self.name} at these tables")


def create_table(ann: Player, port: int, players: int = 2) -> str:
    """Ann connects, creates a public classic table for ``players`` and waits at it: its
    code."""
    ann.to_tables(port)
    ann.send("n")
    ann.wait_for("New table")
    if players != 2:
        ann.send("Down")  # from Preset to Players
        for _ in range(players - 2):
            ann.send("Right")
        ann.wait_match(rf"Players\s+◂\s+{players}\s+▸")
    ann.send("Enter")
    code = ann.wait_match(r"say “([a-z]{2}-[a-z]{2}-[a-z]{2})”").group(1)
    ann.seat = 0
    return code.replace("-", "").upper()


def join_by_code(bob: Player, port: int, code: str, seat: int) -> None:
    """Bob comes straight from his shell: ``ssh -t HOST join CODE``."""
    bob.connect(port, "join", code)
    bob.name_once()
    bob.wait_match(rf"Seat {seat + 1}\s+{re.escape(bob.name)}\s+person \(you\)")
    bob.seat = seat


def start(ann: Player, *others: Player) -> None:
    for other in others:
        assert other.seat is not None
        ann.wait_match(rf"Seat {other.seat + 1}\s+{re.escape(other.name)}\s+person")
    ann.send("s")
    for p in (ann, *others):
        p.wait_for("Your hand")


def two_at_a_table(tmux: Tmux, tmp_path: Path, server: Server) -> tuple[Player, Player, str]:
    ann = Player(tmux, make_key(tmp_path, "ann"), "Ann")
    bob = Player(tmux, make_key(tmp_path, "bob"), "Bob")
    code = create_table(ann, server.port)
    join_by_code(bob, server.port, code, seat=1)
    start(ann, bob)
    return ann, bob, code


# ---------------------------------------------------------------------- playing
def whose_turn(players: list[Player]) -> Player | None:
    """The person to move, once every screen agrees (theirs says it is their turn, everyone
    else's that they wait for them: a screen may lag behind a move); None when the round is
    over."""
    def find() -> Player | str | None:
        screens = [p.screen() for p in players]
        if any(SUMMARY.search(screen) for screen in screens):
            return "over"
        turns = [p for p, screen in zip(players, screens, strict=True) if YOUR_TURN in screen]
        if len(turns) != 1:
            return None
        mover = turns[0]
        waiting = f"Waiting for {mover.name}"
        if all(waiting in screen for p, screen in zip(players, screens, strict=True)
               if p is not mover):
            return mover
        return None

    found = wait_until(find, 20, "someone's turn on every screen",
                       detail=lambda: "\n".join(p.screen() for p in players))
    return found if isinstance(found, Player) else None


def play_a_move(mover: Player) -> None:
    """The previewed move (Enter); when the card under the cursor has none, the first of the
    list of all moves (m, Enter), as a person does."""
    screen = mover.wait_for(YOUR_TURN)
    if NO_MOVE in move_line(screen):
        mover.send("m")
        mover.wait_for("All legal moves")
    mover.send("Enter")


def wait_other_sees(other: Player, mover: Player, held: list[str]) -> str:
    """Until the other person's table recalls a new play of ``mover``, made with one of the
    cards mover held: the play."""
    candidate: list[str | None] = [None]

    def seen() -> str | None:
        screen = other.screen()
        if SUMMARY.search(screen):
            return "summary"  # the round's last play: its summary covers the table
        play = last_play(screen, mover.name)
        if play is None or play == other.recalled or re.search("[─│╭╮╰╯]", play):
            return None
        # the same text in two captures in a row: not a frame caught half written ("Ann
        # trailed K" before its suit), as a busy machine's terminal can show for a moment
        if play != candidate[0]:
            candidate[0] = play
            return None
        return play

    play = wait_until(seen, 15, f"{mover.name}'s play on {other.name}'s screen",
                      detail=other.screen)
    assert isinstance(play, str)
    if play == "summary":
        return play
    other.recalled = play
    assert set(re.findall(CARD, play)) & set(held), (play, held)
    return play


def check_hands(players: list[Player], data: Path, scratch: Path) -> State:
    """Each person's screen shows their own hand as the hub has it (someone watching: none),
    and no card of any other hand or of the stock anywhere."""
    def matching() -> State | None:
        state = saved_state(data, scratch)
        for p in players:
            if p.seat is not None and p.hand() != labels(state.hands[p.seat]):
                return None
        return state

    def detail() -> str:
        state = saved_state(data, scratch)
        return f"saved hands {[labels(h) for h in state.hands]} after {len(state.history)} " \
            "moves\n" + "\n".join(p.screen() for p in players)

    state = wait_until(matching, 10, "the hands the hub saved on the screens", detail=detail)
    assert isinstance(state, State)
    for p in players:
        hidden = {PAINTER.label(c) for c in state.stock}
        for seat, hand in enumerate(state.hands):
            if seat != p.seat:
                hidden |= {PAINTER.label(c) for c in hand}
        screen = p.screen()
        if p.seat is None:
            assert "Your hand" not in screen and "· watching" in screen, screen
        shown = cards_shown(screen)
        assert not shown & hidden, (p.name, shown & hidden, screen)
    return state


def play_turns(players: list[Player], data: Path, scratch: Path, moves: int) -> int:
    """Up to ``moves`` moves of the people (stopping at the round's end), each checked on every
    screen; the number played."""
    played = 0
    while played < moves:
        mover = whose_turn(players)
        if mover is None:
            break
        others = [p for p in players if p is not mover]
        check_hands(players, data, scratch)
        held = mover.hand()
        play_a_move(mover)
        played += 1
        plays = {wait_other_sees(other, mover, held) for other in others if other.seat is not None}
        for watcher in (p for p in others if p.seat is None):
            for play in plays - {"summary"}:
                wait_in_log(watcher, re.escape(play))
    return played


def wait_summary(player: Player, round_no: int = 1) -> str:
    """Until the round's summary is drawn whole (its title, its totals and its keys: a screen
    may arrive in parts): the screen."""
    found = player.wait_match(rf"Round {round_no} summary(?s:.)*Round total\s+\d+\s+\d+"
                              r"(?s:.)*Enter: (?:next round|see the result)")
    return found.string


# ====================================================================== the tests
def test_two_people_play_at_a_table(tmux: Tmux, tmp_path: Path, servers: list[Server]) -> None:
    """Ann creates a table (naming herself, n, Enter) and reads its code; Bob joins from his
    shell with ``ssh -t HOST join CODE``; Ann starts; they play a deal and into the next with
    the keys, each screen showing its own hand only, the other's moves as they happen and who
    is waited for.
    (A whole round at a table, to the summary on both screens and the next round's deal, is
    played in test_serve_web_e2e.py by an SSH player and a browser player, every screen checked
    the same way: the browser runs the same app, so two SSH players would repeat it.)"""
    server = serve(servers, tmp_path / "data", *PEOPLE_ONLY)
    ann, bob, code = two_at_a_table(tmux, tmp_path, server)
    assert re.fullmatch(r"[A-Z]{6}", code)
    scratch = tmp_path / "copy"
    # a deal's eight moves and the first of the next deal
    played = play_turns([ann, bob], server.data_dir, scratch, moves=9)
    state = saved_state(server.data_dir, scratch)
    assert played == 9 == len(state.history), (played, len(state.history))
    for p in (ann, bob):
        p.wait_match(r"Round 1 · Deal 2 of 6")
    check_hands([ann, bob], server.data_dir, scratch)


def test_a_partnership_table_of_two_people_and_two_computers(tmux: Tmux, tmp_path: Path,
                                                             servers: list[Server]) -> None:
    """Four players in two partnerships: Ann creates the table for four, Bob sits at it from
    the list of tables (Enter), Ann starts and computers play the two seats still open. Both
    people play; both screens show every move of the computers."""
    server = serve(servers, tmp_path / "data")
    ann = Player(tmux, make_key(tmp_path, "ann"), "Ann")
    bob = Player(tmux, make_key(tmp_path, "bob"), "Bob")
    create_table(ann, server.port, players=4)
    ann.wait_for("Seat 4  open")
    bob.to_tables(server.port)
    bob.wait_match(r"by Ann · Ann, open, open, open")
    bob.send("Enter")
    bob.wait_match(r"Seat 2\s+Bob\s+person \(you\)")
    bob.seat = 1
    start(ann, bob)
    scratch = tmp_path / "copy"
    state = saved_state(server.data_dir, scratch)
    assert state.num_players == 4 and state.sides == [[0, 2], [1, 3]]
    # Bob · person, then the computers (North · medium, East · medium) over the table.
    found = ann.wait_match(r"╭─ Bob · person ─+╮╭─ (\w+) · (?!person)\w+ ─+╮"
                           r"╭─ (\w+) · (?!person)\w+ ─")
    screen, computers = found.string, list(found.groups())
    assert re.search(rf"Ann\+{computers[0]}\s+Bob\+{computers[1]}", screen), screen
    play_turns([ann, bob], server.data_dir, scratch, moves=4)
    mover = whose_turn([ann, bob])  # the computers have played up to a person's turn
    assert mover is not None
    state = check_hands([ann, bob], server.data_dir, scratch)
    assert len(state.history) >= 6  # in turn: the computers played between

    def computer_plays() -> list[list[str]] | None:
        logs = [log_entries(p.screen()) for p in (ann, bob)]
        plays = [[e for e in log if re.match(rf"(?:{'|'.join(computers)}) (?:{MOVE_VERBS})", e)]
                 for log in logs]
        return plays if plays[0] == plays[1] else None

    plays = wait_until(computer_plays, 10, "the computers' plays on both screens",
                       detail=lambda: ann.screen() + bob.screen())
    assert isinstance(plays, list)
    for name in computers:
        assert any(e.startswith(f"{name} ") for e in plays[0]), (name, plays)


def kill_client(player: Player) -> None:
    """The player's ssh client dies at once (no goodbye to the server): SIGKILL."""
    os.kill(player.tmux.client_pid(player.pane), signal.SIGKILL)
    player.tmux.wait_exit(player.pane)


def back_at_the_table(player: Player, port: int, hand: list[str]) -> None:
    """The player connects again with the same key and is at once back at their seat, with
    the same hand; then, as a person would, reacts to it (keys quicker than that are taken
    for keys typed at the title: ``TableGameScreen.TYPEAHEAD_GRACE``)."""
    player.connect(port)
    player.wait_for("Your hand", timeout=30)
    wait_until(lambda: player.hand() == hand, 10, f"{player.name}'s hand {hand}",
               detail=player.screen)
    a_person_reacts()


def test_a_client_killed_mid_turn_comes_back_to_the_same_position(
        tmux: Tmux, tmp_path: Path, servers: list[Server]) -> None:
    server = serve(servers, tmp_path / "data", *PEOPLE_ONLY)
    ann, bob, _ = two_at_a_table(tmux, tmp_path, server)
    scratch = tmp_path / "copy"
    play_turns([ann, bob], server.data_dir, scratch, moves=2)
    mover = whose_turn([ann, bob])
    assert mover is not None
    other = bob if mover is ann else ann
    before = check_hands([ann, bob], server.data_dir, scratch)
    hand = mover.hand()
    kill_client(mover)
    # The other person sees that the mover is away, and for how long.
    other.wait_match(rf"Waiting for {mover.name} \(away \d+s\)")
    server.wait_log(rf"session \d+ end: player {re.escape(mover.key.fingerprint)}")
    back_at_the_table(mover, server.port, hand)
    mover.wait_for(YOUR_TURN)
    screen = other.wait_match(rf"Waiting for {mover.name}\s*│").string
    assert f"{mover.name} is back" in "\n".join(log_entries(screen))
    after = check_hands([ann, bob], server.data_dir, scratch)
    assert after.history == before.history
    # Play goes on from there.
    assert play_turns([ann, bob], server.data_dir, scratch, moves=2) == 2
    assert len(saved_state(server.data_dir, scratch).history) == len(before.history) + 2


def test_the_server_restarts_mid_game_and_both_players_continue(
        tmux: Tmux, tmp_path: Path, servers: list[Server]) -> None:
    server = serve(servers, tmp_path / "data", *PEOPLE_ONLY)
    ann, bob, code = two_at_a_table(tmux, tmp_path, server)
    scratch = tmp_path / "copy"
    play_turns([ann, bob], server.data_dir, scratch, moves=3)
    before = check_hands([ann, bob], server.data_dir, scratch)
    hands = {p.name: p.hand() for p in (ann, bob)}
    mover = whose_turn([ann, bob])
    assert server.stop() == 0  # SIGTERM: every game is hung up, the table stays saved
    for p in (ann, bob):
        p.tmux.wait_exit(p.pane)
    again = serve(servers, server.data_dir, "--port", str(server.port), *PEOPLE_ONLY)
    assert again.port == server.port
    again.wait_log(r"tables: 1 restored")
    for p in (ann, bob):
        back_at_the_table(p, again.port, hands[p.name])
        p.wait_for(f"Back at the table {code}")
    assert mover is not None
    mover.wait_for(YOUR_TURN)
    after = check_hands([ann, bob], again.data_dir, scratch)
    assert after.history == before.history and after.to_move == before.to_move
    assert play_turns([ann, bob], again.data_dir, scratch, moves=2) == 2


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def test_a_spectator_sees_no_hand_chat_is_literal_and_no_one_plays_for_another(
        tmux: Tmux, tmp_path: Path, servers: list[Server]) -> None:
    """Cara watches Ann and Bob's public table from the list (w): she sees no hidden card and
    every move. Chat with markup and escape sequences shows literally on every screen, typed
    (Ann's ``/``) or sent over the table channel. Cara's keys play nothing, and her session's
    own access to the hub (its secret, from her game's environment) cannot move a seat that is
    not hers."""
    from casino_tui.table.controller import MoveRefused
    from casino_tui.table.hub import Person
    from casino_tui.table.remote import hub_from_environment

    # Cara's game's environment is read from /proc/PID/environ, which shows what a process was
    # started with: for a game forked from the fork server, the fork server's.
    server = serve(servers, tmp_path / "data", "--no-fork-server", *PEOPLE_ONLY)
    cara = Player(tmux, make_key(tmp_path, "cara"), "Cara")
    cara.connect(server.port)  # her game starts meanwhile
    ann, bob, code = two_at_a_table(tmux, tmp_path, server)
    cara.to_tables(None)
    cara.wait_match(rf"{code}\s+Standard Cassino · 2 players · to 21\s+· playing")
    cara.send("w")
    cara.wait_for("· watching")
    everyone = [ann, bob, cara]
    scratch = tmp_path / "copy"
    play_turns(everyone, server.data_dir, scratch, moves=3)

    # Cara's keys play nothing for the seat to move.
    before = check_hands(everyone, server.data_dir, scratch)
    mover = whose_turn([ann, bob])
    assert mover is not None
    cara.send("Enter")
    cara.wait_for("✗ you are watching this table: you have no cards to play")
    cara.send("m")
    assert YOUR_TURN in mover.screen()

    # Chat typed with markup and an escape sequence: shown as typed, nothing of it applied.
    ann.send("/")
    ann.wait_for("Say to the table:")
    ann.type("[bold]x[/] [red]y[/red] ")
    # ESC with what follows it in one write, as a terminal sends a sequence: sent apart, a
    # loaded host could let the app's wait for the rest of a sequence pass, and a lone
    # Escape closes the chat line.
    ann.send("-H", *(f"{byte:02x}" for byte in b"\x1b[2J z"))
    ann.send("Enter")
    # (The terminal's ESC starts a key sequence for the app, which takes what follows as
    # text or as a key it does not know: either way no escape character is in the line.)
    typed = r"Ann: \[bold\]x\[/\] \[red\]y\[/red\] (?:\[2J )?z"
    for p in everyone:
        screen = wait_in_log(p, typed)
        assert "Round 1 · Deal" in screen and "╭─ Table" in screen  # the screen not cleared

    # Cara's session reaches the hub with its secret, as her game does (a client of her own
    # making): she is refused every seat, whoever she says she is; her chat's escape
    # characters stay text.
    pid = server.session_pid(cara.key)
    attack = "\x1b[2J\x1b[31mred\x1b[0m [b]b[/b]\x07"

    async def third_person() -> tuple[int, str]:
        hub = await hub_from_environment(environ(pid))
        assert hub is not None
        try:
            cara_person = Person(hub.player, "Cara")
            [table] = await hub.list_tables(cara_person)
            assert table.your_seat is None
            move = before.legal_moves()[0]
            for claimed in (cara_person, Person(player_id_of(ann), "Ann"),
                            Person(player_id_of(bob), "Bob")):
                for seat in range(2):
                    with pytest.raises(MoveRefused, match="not your seat"):
                        await hub.submit_move(table.table_id, claimed, seat, move)
            await hub.chat(table.table_id, cara_person, attack)
            return len((await hub.snapshot(table.table_id, cara_person)).seats), table.code
        finally:
            await hub.close()

    # The channel keeps one connection per session: while her game is stopped it does not
    # take the channel back (it does when it goes on).
    os.kill(pid, signal.SIGSTOP)
    try:
        seats, seen_code = asyncio.run(asyncio.wait_for(third_person(), 30))
    finally:
        os.kill(pid, signal.SIGCONT)
    assert seats == 2 and seen_code == code
    shown = "Cara: " + attack.replace("\x1b", "�").replace("\x07", "�")
    for p in everyone:
        screen = wait_in_log(p, re.escape(shown).replace(r"\ ", r"\s+"))
        assert "Round 1 · Deal" in screen and "╭─ Table" in screen  # nothing cleared
    after = check_hands(everyone, server.data_dir, scratch)
    assert after.history == before.history and after.to_move == before.to_move
    assert YOUR_TURN in mover.screen()
    # And the game goes on, Cara still watching every move.
    assert play_turns(everyone, server.data_dir, scratch, moves=2) == 2


def player_id_of(player: Player) -> str:
    from casino_tui.serve.players import player_id

    return player_id(player.key.fingerprint)
