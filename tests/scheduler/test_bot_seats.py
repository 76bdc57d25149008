"""Computer players in the service: bot seats, their moves in the sweep, no mail to bots.

Each game here is Mosey with its smallest options and the bot at ``easy`` (50 playouts a move),
so a whole game takes about a second. Most tests run on SQLite and PostgreSQL.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlmodel import col, select

from engine import new_game as engine_game
from engine.bots import Bot
from pbem.cli import main
from pbem.db import Database
from pbem.models import AuditEntry, GameRecord, GameStatus, MoveSource, OutboxEmail, Player, Seat
from pbem.positions import current_state, moves_of
from pbem.scheduler import sweep
from pbem.scheduler.bots import LOSS_NOTE, WIN_NOTE, bot_seed, note_for
from pbem.scheduler.search_process import BotSearch, bot_for
from pbem.services import (
    PlayerSpec,
    ServiceError,
    Site,
    create_game,
    parse_player,
    respond_to_invitation,
    submit_move,
)
from tests.support import smallest_options

NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
ANN = PlayerSpec("Ann", "ann@example.test")
OLGA = PlayerSpec("Olga", "olga@example.test")


def new_game(database: Database, site: Site, players: list[PlayerSpec]) -> int:
    with database.write() as session:
        row = create_game(session, NOW, site, game_type="mosey", players=players,
                          options=smallest_options("mosey"), organiser=OLGA)
        assert row.id is not None
        return row.id


def game_row(database: Database, game_id: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_id)
        assert row is not None
        return row


def outbox(database: Database) -> list[OutboxEmail]:
    with database.session() as session:
        return list(session.exec(select(OutboxEmail).order_by(col(OutboxEmail.id))))


def bot_addresses(database: Database) -> set[str]:
    with database.session() as session:
        return {p.email for p in session.exec(select(Player).where(
            col(Player.bot_level).is_not(None)))}


def test_parse_player_knows_bots_and_keeps_peoples_checks() -> None:
    assert parse_player("bot") == PlayerSpec("Computer (normal)",
                                             "bot-normal@bots.pbem.invalid", "normal")
    assert parse_player("bot:Strong").bot_level == "strong"
    assert parse_player("Ann <ANN@example.test>") == PlayerSpec("Ann", "ann@example.test")
    with pytest.raises(ServiceError):
        parse_player("bot:genius")
    with pytest.raises(ServiceError):  # people's addresses are checked as before
        parse_player("Eve <eve@bots.pbem.invalid>")


def test_a_person_plays_a_bot_to_the_end(database: Database, site: Site) -> None:
    game_id = new_game(database, site, [ANN, parse_player("bot:easy")])
    with database.session() as session:
        seats = list(session.exec(select(Seat).where(Seat.game_id == game_id)
                                  .order_by(col(Seat.seat))))
    assert [s.status for s in seats] == ["invited", "accepted"]  # the bot accepts at once
    assert game_row(database, game_id).status == GameStatus.INVITED
    with database.write() as session:
        respond_to_invitation(session, NOW, site, game_id=game_id, seat=0, accept=True)
    rng = random.Random(3)
    for _ in range(500):
        row = game_row(database, game_id)
        if row.status != GameStatus.ACTIVE:
            break
        if row.to_move == 0:
            game, state = current_state(row)
            with database.write() as session:
                submit_move(session, NOW, site, game_id=game_id, seat=0, ply=row.ply,
                            text=str(game.random_move(state, rng)))
        else:
            summary = sweep(database, NOW, site)
            assert summary.bot_moves >= 1 and not summary.errors
    assert game_row(database, game_id).status == GameStatus.FINISHED
    with database.session() as session:
        moves = moves_of(session, game_id)
    bot_moves = [m for m in moves if m.seat == 1]
    assert bot_moves and all(m.source == MoveSource.BOT for m in bot_moves)
    assert all(m.note in ("", WIN_NOTE, LOSS_NOTE) for m in bot_moves)
    emails = outbox(database)
    assert not {e.to_address for e in emails} & bot_addresses(database)
    ann = [e.kind for e in emails if e.to_address == ANN.email]
    assert "invitation" in ann and "turn" in ann and "game_over" in ann


def test_bots_play_each_other_to_the_end_in_sweeps(database: Database, site: Site) -> None:
    game_id = new_game(database, site, [parse_player("bot:easy"), parse_player("bot:easy")])
    assert game_row(database, game_id).status == GameStatus.ACTIVE  # nobody to wait for
    total = 0
    for _ in range(5):
        summary = sweep(database, NOW, site)
        total += summary.bot_moves
        if game_row(database, game_id).status != GameStatus.ACTIVE:
            break
    row = game_row(database, game_id)
    assert row.status == GameStatus.FINISHED and total == row.ply
    assert sweep(database, NOW, site).bot_moves == 0
    assert {e.to_address for e in outbox(database)} <= {OLGA.email}  # only the organiser's


def test_strong_thinks_for_the_sites_seconds_or_plays_fixed_playouts(
    database: Database, site: Site, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dataclasses import replace

    from pbem.scheduler.bots import bot_turns, choose
    from pbem.scheduler.search_process import PLAYOUTS

    budgets: list[tuple[int | None, float | None]] = []
    choose_move = Bot.choose

    def spy(self: Bot, game: Any, state: Any, seat: int) -> Any:
        budgets.append((self.playouts, self.seconds))
        return choose_move(replace(self, playouts=20, seconds=None), game, state, seat)

    monkeypatch.setattr(Bot, "choose", spy)
    game_id = new_game(database, site, [parse_player("bot:strong"), ANN])
    with database.write() as session:
        respond_to_invitation(session, NOW, site, game_id=game_id, seat=1, accept=True)
    turn = bot_turns(database, game_id)[0]
    assert choose(database, turn, 2.5) is not None
    assert choose(database, turn, 0.0) is not None
    assert budgets == [(None, 2.5), (PLAYOUTS["strong"], None)]


@pytest.mark.parametrize(("value", "ok"), [("5", True), ("0", True), ("0.5", True),
                                           ("20", True), ("21", False), ("-1", False),
                                           ("soon", False), ("nan", False)])
def test_the_strong_seconds_setting_is_checked(value: str, ok: bool) -> None:
    from pbem.config import ConfigError, check_config, load_config
    from pbem.services.common import site_from_config

    config = load_config({"PBEM_BOT_STRONG_SECONDS": value}, read_dotenv=False)
    if not ok:
        with pytest.raises(ConfigError, match="PBEM_BOT_STRONG_SECONDS"):
            check_config(config)
        return
    check_config(config)
    assert site_from_config(Database("sqlite://"), config).strong_seconds == float(value)


def test_a_person_waiting_for_the_computer_comes_before_a_game_between_computers(
    database: Database, site: Site, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import pbem.scheduler.bots as bots

    computers = new_game(database, site, [parse_player("bot:easy"), parse_player("bot:easy")])
    person = new_game(database, site, [parse_player("bot:easy"), ANN])  # a later game
    with database.write() as session:
        respond_to_invitation(session, NOW, site, game_id=person, seat=1, accept=True)
    order: list[int] = []
    play_turn = bots.play_turn

    def noting(database: Database, now: datetime, site: Site, turn: Any, run: Any,
               **moment: Any) -> bool:
        order.append(turn.game_id)
        return play_turn(database, now, site, turn, run, **moment)

    monkeypatch.setattr(bots, "play_turn", noting)
    monkeypatch.setattr(bots, "MAX_MOVES_PER_GAME", 6)
    summary = sweep(database, NOW, site)
    assert order[:2] == [computers, person]  # one move each before the computers' second
    assert order.count(person) == 1 and game_row(database, person).to_move == 1  # Ann's turn
    assert order.count(computers) == 6  # then the computers rest until the next sweep
    assert summary.bot_moves == 7 and not summary.errors


def test_past_its_time_the_bot_pass_only_makes_first_moves(
    database: Database, site: Site,
) -> None:
    from pbem.scheduler.bots import PASS_SECONDS, BotResult, play_bots

    computers = new_game(database, site, [parse_player("bot:easy"), parse_player("bot:easy")])
    person = new_game(database, site, [parse_player("bot:easy"), ANN])
    with database.write() as session:
        respond_to_invitation(session, NOW, site, game_id=person, seat=1, accept=True)
    ticks = iter([0.0, *[PASS_SECONDS + 1] * 50])  # the pass is over after its start
    results: list[BotResult] = []
    play_bots(database, NOW, site, results.append, clock=lambda: next(ticks))
    assert sum(r.moves for r in results) == 2  # each game its first move, no more
    assert game_row(database, person).to_move == 1 and game_row(database, computers).ply == 1


def test_a_crashing_bot_leaves_the_game_and_alerts_once(
    database: Database, site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = new_game(database, site, [parse_player("bot:easy"), ANN])
    with database.write() as session:
        respond_to_invitation(session, NOW, site, game_id=game_id, seat=1, accept=True)
    before = game_row(database, game_id)

    def broken(self: Bot, game: Any, state: Any, seat: int) -> Any:
        raise RuntimeError("out of ideas")

    monkeypatch.setattr(Bot, "choose", broken)
    first, second = sweep(database, NOW, site), sweep(database, NOW, site)
    assert first.bot_moves == second.bot_moves == 0
    assert len(first.errors) == len(second.errors) == 1 and "out of ideas" in first.errors[0]
    after = game_row(database, game_id)
    assert (after.ply, after.state, after.to_move) == (before.ply, before.state, before.to_move)
    alerts = [e for e in outbox(database) if e.kind == "clock"]
    assert [e.to_address for e in alerts] == [OLGA.email]
    with database.session() as session:
        assert len(list(session.exec(select(AuditEntry).where(
            AuditEntry.game_id == game_id, AuditEntry.action == "bot failed")))) == 1


def test_create_game_command_takes_a_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         ) -> None:
    monkeypatch.chdir(tmp_path)
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    env = {"PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": "cli-secret"}
    runner = CliRunner()
    assert runner.invoke(main, ["db", "upgrade"], env=env).exit_code == 0
    made = runner.invoke(main, ["create-game", "mosey", "--player", "Ann <ann@example.test>",
                                "--player", "bot:easy"], env=env)
    assert made.exit_code == 0, made.output
    database = Database(url)
    with database.session() as session:
        players = {s.seat: session.get(Player, s.player_id) for s in session.exec(select(Seat))}
        assert players[0] is not None and players[0].bot_level is None
        assert players[1] is not None and players[1].bot_level == "easy"
        mails = {e.to_address for e in session.exec(select(OutboxEmail))}
    database.dispose()
    assert mails == {"ann@example.test"}
    swept = runner.invoke(main, ["sweep"], env=env)
    assert swept.exit_code == 0 and "0 bot moves" in swept.output


def test_notes_and_seeds() -> None:
    assert (note_for(0.9), note_for(0.5), note_for(0.1)) == (WIN_NOTE, "", LOSS_NOTE)
    assert bot_seed("abc", 3) == bot_seed("abc", 3) != bot_seed("abc", 4)


def test_an_easy_computer_never_promises_a_win_it_then_loses() -> None:
    """Easy searches 50 playouts a move, so a move's mean can rest on a few lucky ones: before
    the confidence was drawn towards even, easy said "I expect to win" in games it lost."""
    options = smallest_options("mosey")
    game = engine_game("mosey", **options)
    wrong: list[tuple[int, str]] = []
    for number in range(4):
        easy_seat = number % 2
        state, notes = game.start(), []
        while (seat := game.to_move(state)) is not None:
            level = "easy" if seat == easy_seat else "normal"
            bot = bot_for(BotSearch("mosey", options, None, seat, level, number * 500 + len(notes)))
            move, confidence = bot.choose(game, state, seat)
            if seat == easy_seat:
                notes.append(note_for(confidence))
            state = game.play(state, move)
        outcome = game.outcome(state)
        assert outcome is not None
        promise = LOSS_NOTE if easy_seat in outcome.winners else WIN_NOTE
        wrong += [(number, promise)] * notes.count(promise)
    assert wrong == []
