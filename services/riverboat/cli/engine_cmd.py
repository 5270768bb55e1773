"""``riverboat engine ...``: run scenarios through the rules engine; a bots' demo."""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from riverboat.bots import RandomBot, TightBot
from riverboat.engine.commands import StartHand
from riverboat.engine.events import SeatEntry
from riverboat.engine.game import Hand
from riverboat.engine.options import pacific_options
from riverboat.engine.scenario import run as run_scenario
from riverboat.handlines import render
from riverboat.handtext import money

#: Largest scenario file read (bytes); far above any real hand, small enough to stay safe.
MAX_SCENARIO_BYTES = 4 * 1024 * 1024


def register(groups: Any) -> None:
    """Add the ``engine`` command group."""
    engine = groups.add_parser("engine", help="the rules engine on its own")
    sub = engine.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")
    run = sub.add_parser("run", help="play a scenario file (JSON) and print the result as JSON")
    run.add_argument("file", help="scenario file, or - for standard input")
    run.add_argument("--indent", type=int, default=2, help="JSON indent (0 for one line)")
    run.add_argument("--brief", action="store_true", help="leave out the events (the outcome only)")
    run.set_defaults(handler=cmd_run)
    demo = sub.add_parser("demo", help="bots play a few hands of stud hi/lo; print them")
    demo.add_argument("--hands", type=int, default=3)
    demo.add_argument("--players", type=int, default=5)
    demo.add_argument("--seed", type=int, default=None, help="reproduce a run")
    demo.set_defaults(handler=cmd_demo)


def cmd_run(args: argparse.Namespace) -> int:
    """``riverboat engine run FILE``: exit 0 on success, 2 on an illegal or malformed input."""
    try:
        if args.file == "-":
            text = sys.stdin.read(MAX_SCENARIO_BYTES + 1)
        else:
            with open(args.file, encoding="utf-8") as handle:
                text = handle.read(MAX_SCENARIO_BYTES + 1)
    except OSError as exc:
        print(f"riverboat: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    if len(text) > MAX_SCENARIO_BYTES:
        print(f"riverboat: scenario larger than {MAX_SCENARIO_BYTES} bytes", file=sys.stderr)
        return 2
    try:
        scenario = json.loads(text)
    except json.JSONDecodeError as exc:
        print(f"riverboat: the scenario is not valid JSON: {exc}", file=sys.stderr)
        return 2
    result = run_scenario(scenario)
    shown = _without_events(result) if args.brief else result
    print(json.dumps(shown, indent=args.indent or None))
    if "error" in result:
        print(f"riverboat: {result['error']['reason']}", file=sys.stderr)
        return 2
    return 0


def _without_events(value: Any) -> Any:
    """A scenario result with every ``events`` list left out, at any depth (a table's hands
    too): the outcome, as docs/games.md abridges it."""
    if isinstance(value, dict):
        return {k: _without_events(v) for k, v in value.items() if k != "events"}
    if isinstance(value, list):
        return [_without_events(v) for v in value]
    return value


def cmd_demo(args: argparse.Namespace) -> int:
    """Bots play ``--hands`` hands at one table; stacks carry over, the button moves left."""
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    players = max(2, min(8, args.players))
    names = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"][:players]
    stacks = dict.fromkeys(names, 2000)
    seats = dict(zip(names, range(1, players + 1), strict=True))
    bots = {name: (TightBot(rng) if k % 2 else RandomBot(rng)) for k, name in enumerate(names)}
    options = pacific_options(small_bet=100, big_bet=200, ante=25)
    print(
        f"Riverboat engine demo: seven-card stud hi/lo, {money(options.small_bet)}/"
        f"{money(options.big_bet)}, ante {money(options.ante)}, bring-in "
        f"{money(options.bring_in)} (seed {seed})\n"
    )
    button = players
    for number in range(1, args.hands + 1):
        playing = [n for n in names if stacks[n] > 0]
        if len(playing) < 2:
            print("Only one player has chips left.")
            break
        deck = list(range(52))
        rng.shuffle(deck)
        start = StartHand(
            hand_id=f"demo-{number}",
            variant="seven_card_stud_hi_lo",
            options=options,
            button=button,
            seats=tuple(SeatEntry(seats[n], n, stacks[n]) for n in playing),
            deck=tuple(deck),
        )
        hand = Hand.start(start)
        while not hand.state.finished:
            state = hand.state
            assert state.to_act is not None
            action, to = bots[state.players[state.to_act]].choose(hand.legal())
            hand.act(state.seats[state.to_act], action, to)
        state = hand.state
        for line in render(hand.events):
            print(line)
        print()
        stacks.update(zip(state.players, state.stacks, strict=True))
        button = button % players + 1
    return 0
