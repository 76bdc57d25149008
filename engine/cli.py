"""The terminal front end: play a game at a prompt, or draw a position to a PNG or SVG file.

    python -m engine list
    python -m engine play mosey --order 4            # two people at one keyboard
    python -m engine play refugia --vs random        # you against a random mover
    python -m engine play mosey --vs bot:normal      # you against the search (docs/bots.md)
    python -m engine render mosey --moves "G5xF4 B2xD2" -o board.png

Game options are given as ``--name value`` (``--order 5``, ``--board 4-5``, ``--komi none``).
Moves for ``render`` are separated by spaces, or by ``;`` when a move has spaces of its own.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

from engine.base import AnyGame, IllegalMove
from engine.bots import DEFAULT_LEVEL, LEVELS, Bot
from engine.registry import GAMES, new_game

HELP = "Type a move, '?' for the legal moves, 'quit' to stop."
OPPONENTS = ("human", "random", "bot", *(f"bot:{level}" for level in LEVELS))


def split_moves(text: str) -> list[str]:
    """``"G5xF4 B2xD2"`` or ``"take 2; lay 0,1 r0"`` -> one string per move."""
    parts = text.split(";") if ";" in text else text.split()
    return [p.strip() for p in parts if p.strip()]


def _options(extra: Sequence[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    items = list(extra)
    while items:
        key = items.pop(0)
        if not key.startswith("--") or not items:
            raise SystemExit(f"options go as --name value, not {key!r}")
        options[key[2:].replace("-", "_")] = items.pop(0)
    return options


def _list_moves(game: AnyGame, state: Any) -> str:
    moves, numbers = game.move_choices(state)
    parts = [str(move) for move in moves]
    if numbers is not None:
        parts.insert(0, f"a whole number from {numbers.low} to {numbers.high} ({numbers.name})")
    return ", ".join(parts)


def play(
    game: AnyGame,
    *,
    seed: int | None,
    computer_seats: set[int],
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    bot: Bot | None = None,
) -> Any:
    """Play one game at the prompt; returns the final state (or the state when the player quit).

    The computer seats play ``bot``'s moves, or random ones without a bot.
    """
    rng = random.Random(seed)
    state = game.start(seed=seed)
    write(f"{game.info.name}. {HELP}")
    while (seat := game.to_move(state)) is not None:
        viewer = seat if game.info.hidden_information else None
        write("")
        write(game.render_text(state, viewer=viewer))
        name = game.seat_names(state)[seat]
        if seat in computer_seats:
            if bot is None:
                move = game.random_move(state, rng)
            else:
                move, confidence = bot.choose(game, state, seat)
            write(f"{name} (computer) plays {move}")
            if bot is not None:
                write(f"{name} thinks its chances are {confidence:.0%}.")
            state = game.play(state, move)
            continue
        try:
            text = read(f"{name}> ").strip()
        except EOFError:
            return state
        if text.lower() in {"quit", "exit", "q"}:
            return state
        if text in {"?", "help", "moves"}:
            write(f"Legal moves: {_list_moves(game, state)}")
            continue
        try:
            state = game.play(state, text, seat=seat)
        except IllegalMove as error:
            write(f"Not played: {error}. {HELP}")
    write("")
    write(game.render_text(state))
    write(game.describe(state))
    return state


def render(game: AnyGame, moves: Sequence[str], *, seed: int | None, viewer: int | None,
           output: str, scale: float) -> None:
    state, last = game.start(seed=seed), None
    for number, text in enumerate(moves, start=1):
        try:
            state = game.play(state, text)
        except IllegalMove as error:
            raise SystemExit(f"move {number} ({text}): {error}") from None
        last = text
    svg = game.render_svg(state, viewer=viewer, last_move=last)
    if output.endswith(".svg"):
        with open(output, "w", encoding="utf-8") as file:
            file.write(svg)
        return
    from engine.png import svg_to_png  # CairoSVG loads only when a PNG is wanted

    with open(output, "wb") as file:
        file.write(svg_to_png(svg, scale=scale))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="the games and their options")
    p_play = commands.add_parser("play", help="play at the prompt")
    p_play.add_argument("game")
    p_play.add_argument("--vs", choices=OPPONENTS, default="human",
                        help="who plays the other seats (default: another human); bot is "
                             f"bot:{DEFAULT_LEVEL}")
    p_play.add_argument("--bot-playouts", type=int, default=None,
                        help="the bot's playouts per move (deterministic for a seed)")
    p_play.add_argument("--bot-seconds", type=float, default=None,
                        help="the bot's time per move (bot:strong: 5 by default)")
    p_play.add_argument("--seed", type=int, default=None)
    p_render = commands.add_parser("render", help="write a position as PNG or SVG")
    p_render.add_argument("game")
    p_render.add_argument("--moves", default="", help="the moves from the start")
    p_render.add_argument("--seed", type=int, default=None)
    p_render.add_argument("--viewer", type=int, default=None, help="draw what this seat sees")
    p_render.add_argument("--scale", type=float, default=2.0, help="PNG pixels per SVG unit")
    p_render.add_argument("-o", "--output", required=True, help="board.png or board.svg")
    args, extra = parser.parse_known_args(argv)

    if args.command == "list":
        for gid, info in GAMES.items():
            opts = "; ".join(f"--{o.name} {'|'.join(map(str, o.choices))} (default {o.default})"
                             for o in info.options)
            print(f"{gid:15} {info.name:22} {info.min_players}-{info.max_players} players  {opts}")
        return 0
    try:
        game = new_game(args.game, **_options(extra))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.command == "play":
        computers = set(range(1, game.num_players)) if args.vs != "human" else set()
        bot = None
        if args.vs.startswith("bot"):
            level = args.vs.partition(":")[2] or DEFAULT_LEVEL
            try:
                bot = Bot.at(level, seed=args.seed or 0, playouts=args.bot_playouts,
                             seconds=args.bot_seconds)
            except ValueError as error:
                print(f"error: {error}", file=sys.stderr)
                return 2
        play(game, seed=args.seed, computer_seats=computers, bot=bot)
    else:
        render(game, split_moves(args.moves), seed=args.seed, viewer=args.viewer,
               output=args.output, scale=args.scale)
        print(f"wrote {args.output}")
    return 0
