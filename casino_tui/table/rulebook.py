"""The rules of a preset in a player's words, written from its rule options: the sections a
rules screen shows (the full-screen game's, with styles; plain mode's, spoken).

Everything here is read from the Rules object, so the summary always matches what the engine
enforces; the wording is for players, not for engineers. Cards are in the engine's notation
(``10♦`` with ``symbols``, else ``10D``).
"""

from __future__ import annotations

from casino_tui.engine import Rules, card_str, parse_card

SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def _pts(n: int) -> str:
    return f"{n} point" + ("" if n == 1 else "s")


def _goal(r: Rules, num_players: int | None) -> list[str]:
    if r.game_end == "count_out":
        return [f"Points are counted out one item at a time in a fixed order; the first side "
                f"to reach {r.target} wins, even in the middle of the count."]
    if r.game_end == "claim":
        return [f"Call the game out (key c) at the start of your turn when your side has "
                f"{r.target}: the points you have certainly won are counted. Right, you win; "
                f"wrong, you lose.",
                "If nobody claims and both sides pass the target, it rises by 11."
                if r.claim_unclaimed_both_out == "raise_target_by_11"
                else "If nobody claims, the highest total at the target wins."]
    if r.game_end == "fixed_rounds":
        per = 2 if r.fixed_rounds == "2x_players" else 1
        n = f"{num_players * per} rounds" if num_players else f"{per} round(s) per player"
        return [f"The game lasts {n} (each player deals {per}x); the highest total wins, "
                f"ties are broken by extra rounds."]
    return [f"Points are added up after each round. The first side at {r.target} or more "
            f"wins; if two sides are there, the higher total wins, and a tie means another "
            f"round."]


def _deal(r: Rules, symbols: bool) -> list[str]:
    deck = {"52": "A full pack of 52 cards",
            "49_five_player": "52 cards less the 2♥ 2♦ 2♣" if symbols
            else "52 cards less the 2H 2D 2C",
            "40_no_courts": "40 cards (no jacks, queens or kings)"}[r.deck]
    lines = [f"{deck}. Each player gets {r.hand_size} cards and {r.initial_table_cards} go "
             f"face up on the table."]
    if r.draw_mode:
        lines.append("After every play you draw a card from the stock, so your hand stays full "
                     "until the stock runs out.")
    else:
        lines.append(f"When every hand is empty, {r.hand_size} more cards each (none to the "
                     f"table) until the pack is used up; the last deal is announced.")
    if r.last_deal_extra_cards:
        lines.append(f"The last deal gives {r.last_deal_extra_cards} extra card(s) each.")
    if r.initial_pairs_to_first_player:
        lines.append("Pairs (or more) of one rank dealt to the table go at once to the first "
                     "player; clearing the table that way is a sweep.")
    return lines


def _capture(r: Rules, symbols: bool, pluck_key: str) -> list[str]:
    lines = ["Capture: take table cards of your card's rank (pairing), loose cards that add up "
             "to its value (combining), and builds of its value, several groups at once; each "
             "card counts in one group only."]
    if r.court_values == "royal":
        lines.append("Jacks count 11, queens 12, kings 13.")
    else:
        how = {"one": "one card of the same rank at a time",
               "all": "all the cards of their rank at once",
               "one_or_all_three": "one card of their rank, or all three when the other three "
                                   "are on the table",
               "any": "any number of cards of their rank"}[r.court_capture]
        lines.append(f"Jacks, queens and kings have no number: they take {how}.")
    highs = []
    if r.ace_high_value:
        highs.append(f"aces 1 or {r.ace_high_value}")
    if r.big_casino_alt_value:
        highs.append(f"{card_str(r.big_casino, symbols)} 10 or {r.big_casino_alt_value}")
    if r.little_casino_alt_value:
        highs.append(f"{card_str(r.little_casino, symbols)} 2 or {r.little_casino_alt_value}")
    if highs:
        where = (" (the high value only for the card you play or keep in hand)"
                 if r.high_value_scope == "capturer_only" else "")
        lines.append("High cards: " + ", ".join(highs) + where + ".")
    if r.table_clearer_card:
        lines.append(f"The {card_str(parse_card(r.table_clearer_card), symbols)} may instead take "
                     f"everything on the table, builds included.")
    if r.single_build_as_card:
        lines.append("A single build may be combined with loose cards like one card.")
    if r.capture_extent == "inclusion_maximal":
        lines.append("When you capture, you must take every group your card can.")
    lines.append({
        "none": "Trail: lay a card face up. You may trail even a card that could capture.",
        "no_trail_of_capturing_card": "Trail: lay a card face up, but never one that could "
                                      "capture.",
        "strict": "Trail: lay a card face up, but only when no capture is possible.",
    }[r.compulsory_capture])
    return lines


def _builds(r: Rules) -> list[str]:
    if not r.building:
        return ["There is no building in this game."]
    lines = ["Build: play a card onto table cards to announce a total you can take later with "
             "a card you hold. A single build (one total) may be raised by anyone; adding "
             "another group of the same value makes it multiple, which can never change."]
    if not r.raise_own_build:
        lines.append("You may not raise a build you own.")
    if not r.table_only_groups_in_builds:
        lines.append("Loose table cards that already make the total may not be added.")
    if r.same_value_builds == "must_merge":
        lines.append("Builds of the same value must be merged.")
    if r.max_builds_per_player:
        lines.append("You may own only one build at a time.")
    if r.court_builds != "none":
        lines.append("Courts can be built naturally: three of a rank stacked for the fourth.")
    duty = {
        "none": "Owning a build does not stop you trailing.",
        "variant1": "While you own a build you may not trail: capture, or build again.",
        "variant2": "While you own a build you must take it or add to it.",
        "variant3": "While you own a build you must take it, add to it, start a new one or raise "
                    "an opponent's single build; the owner is who last set the value.",
    }[r.owner_restriction]
    lines.append(duty)
    if r.owner_must_keep_capture_card == "penalty_2":
        lines.append("Keep a card that can take your build: breaking that duty gives 2 points "
                     "to each other side at once.")
    elif r.owner_must_keep_capture_card:
        lines.append("Always keep a card that can take the build you own.")
    return lines


def _extras(r: Rules, pluck_key: str) -> list[str]:
    lines = []
    if r.pluck:
        lines.append("Pluck: once a deal, before or after your play, move one loose table card "
                     f"that is not a point card into your pile ({pluck_key}). Not the only card on "
                     "the "
                     "table, and not the card you just played.")
    lines.append("Cards left on the table at the end of a round go to the last player who "
                 "captured.")
    if r.sweep_points:
        s = f"A capture that clears the table is a sweep: {_pts(r.sweep_points)}"
        if r.score_timing != "end_of_round":
            s += ", scored at once; reaching the target that way wins the game on the spot"
        s += "."
        if r.final_play_sweep == "not_counted":
            s += " Clearing the table with the very last play is not a sweep."
        if r.sweeps_cancel:
            s += " Sweeps of different sides cancel each other."
        lines.append(s)
    else:
        lines.append("Sweeps (clearing the table) score nothing.")
    return lines


def _scoring(r: Rules, symbols: bool) -> list[str]:
    items: list[str] = []
    if r.diamond_scoring:
        items += ["Most cards: 1", "Most diamonds: 1",
                  f"{'7♦' if symbols else '7D'}: 1",
                  "Each set of four 7s, four 6s or four aces: 2"]
        return items
    if r.cards_points:
        s = f"Most cards: {r.cards_points}"
        if r.majority_rule == "absolute_majority":
            s += " (only with more than half of them)"
        if r.cards_tie_break == "most_spades":
            s += "; a tie goes to the side with more spades"
        items.append(s)
    suit = SUIT_WORDS[r.majority_suit]
    if r.spade_scoring == "pagat24":
        items.append("Every spade: 1, the J♠ 2" if symbols else "Every spade: 1, the JS 2")
    elif r.majority_suit_points:
        s = f"Most {suit}: {r.majority_suit_points}"
        if r.majority_rule == "absolute_majority":
            s += " (only with more than half of them)"
        items.append(s)
        if r.spade_scoring == "seed002_25":
            items.append("Every spade: 1, the jack of spades 2")
        elif r.spade_scoring == "hoyle26":
            items.append("Every spade: 1; the ace, jack and two of spades 2")
    if r.big_casino_points:
        items.append(f"Big Casino {card_str(r.big_casino, symbols)}: {r.big_casino_points}")
    if r.little_casino_points and r.spade_scoring != "hoyle26":
        items.append(f"Little Casino {card_str(r.little_casino, symbols)}: "
                     f"{r.little_casino_points}")
    if r.ace_points:
        items.append(f"Each ace: {r.ace_points}")
    if r.last_capture_points:
        items.append(f"Last capture of the round: {r.last_capture_points}")
    if r.all_eleven_rule == "bonus_point":
        items.append("Taking all eleven base points: 1 more")
    elif r.all_eleven_rule == "win_if_first_round":
        items.append("Taking all eleven base points in the first round wins the game")
    elif r.all_eleven_rule == "instant_win":
        items.append("Taking all eleven base points wins the game")
    items.append("Ties for \"most\" score nothing")
    return items


def rules_sections(rules: Rules, *, symbols: bool, num_players: int | None = None,
                   pluck_key: str = "key p") -> list[tuple[str, list[str]]]:
    """The summary of ``rules``: (heading, sentences) in order, after :func:`rules_intro`.
    ``pluck_key``: how the player plucks (a key, or a command)."""
    return [
        ("Goal", _goal(rules, num_players)),
        ("The deal", _deal(rules, symbols)),
        ("Your turn: play one card", _capture(rules, symbols, pluck_key) + _builds(rules)),
        ("Plucks, sweeps and the last cards", _extras(rules, pluck_key)),
        ("Scoring each round", _scoring(rules, symbols)),
    ]


def rules_intro(rules: Rules) -> list[str]:
    """The lines under the preset's title: what it is, and for how many players."""
    counts = ", ".join(map(str, rules.player_counts))
    partners = (" Four players play as two partnerships, partners facing each other."
                if rules.partnerships_for_4 and 4 in rules.player_counts else "")
    return [rules.describe(), f"For {counts} players.{partners}"]
