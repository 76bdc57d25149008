"""One turn service: every move goes through :func:`pbem.services.turns.play_moves`, a turn
decodes the stored state once, and each board picture an email shows is drawn once per (game,
ply, viewer, language), its size stored with it.

The engine's ``decode`` and ``render_svg`` are wrapped (on every game's class) to count the
calls a turn makes, whoever plays it: the move page, a reply by mail, a computer player, a
timeout's policy, a stand-in.
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

import engine
import pbem
import pbem.i18n
from pbem.admin.actions import replace_player
from pbem.db import Database
from pbem.mail import boards
from pbem.models import BoardImage, GameRecord, GameStatus, MoveSource, OutboxEmail, Player
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, create_game, start_game, submit_move
from pbem.services.turns import play_turn
from tests.support import ClockGames, Mailbox, smallest_options, start_a_game

START = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
LATE = START + timedelta(days=3, minutes=1)  # past the first deadline (3 days per move)


class Calls:
    """How often the wrapped engine method was called, and with which arguments."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def __len__(self) -> int:
        return len(self.calls)

    def during(self, action: Callable[[], Any]) -> int:
        """The calls ``action`` makes."""
        before = len(self.calls)
        action()
        return len(self.calls) - before


def _wrap(monkeypatch: pytest.MonkeyPatch, name: str) -> Calls:
    """Count calls of the engine method ``name`` of every game (each class wrapped once, around
    the method it had before any wrapping, so an inherited one is counted once)."""
    calls = Calls()
    classes = {type(engine.new_game(gid, **smallest_options(gid))) for gid in engine.GAMES}
    originals = {cls: getattr(cls, name) for cls in classes}
    for cls, original in originals.items():
        def counted(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            calls.calls.append((args, kwargs))
            return _original(self, *args, **kwargs)
        monkeypatch.setattr(cls, name, counted)
    return calls


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> Calls:
    return _wrap(monkeypatch, "decode")


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> Calls:
    return _wrap(monkeypatch, "render_svg")


def _row(database: Database, game_pk: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None
    return row


def _random_move(database: Database, game_pk: int, seed: int = 1) -> str:
    game, state = current_state(_row(database, game_pk))
    return str(game.random_move(state, random.Random(seed)))


def _move(database: Database, site: Site, game_pk: int, text: str, when: datetime = START
          ) -> None:
    row = _row(database, game_pk)
    assert row.to_move is not None
    with database.write() as session:
        submit_move(session, when, site, game_id=game_pk, seat=row.to_move, ply=row.ply,
                    text=text)


# -- the state is decoded once per turn ----------------------------------------------------------


def test_a_move_from_the_move_page_decodes_the_state_once(
    sqlite_database: Database, site: Site, decodes: Calls,
) -> None:
    game_pk = start_a_game(sqlite_database, START, site, "mosey", smallest_options("mosey"))
    text = _random_move(sqlite_database, game_pk)
    # The move, its clock, its record, the turn email and its board (drawn here, in the
    # player's language) all use the one position.
    assert decodes.during(lambda: _move(sqlite_database, site, game_pk, text)) == 1
    assert _row(sqlite_database, game_pk).ply == 1


def test_a_turn_of_several_steps_decodes_the_state_once(
    sqlite_database: Database, site: Site, decodes: Calls,
) -> None:
    for _ in range(20):  # a deal whose first take leaves a tile to lay
        game_pk = start_a_game(sqlite_database, START, site, "rifugio", {"players": 2})
        game, state = current_state(_row(sqlite_database, game_pk))
        take = str(game.legal_moves(state)[0])
        after = game.play(state, game.parse_move(take))
        if game.to_move(after) == game.to_move(state) and game.legal_moves(after):
            break
    else:
        pytest.skip("no deal whose take leaves a step to play")
    lay = str(game.legal_moves(after)[0])
    row = _row(sqlite_database, game_pk)
    assert row.to_move is not None

    def turn() -> None:
        with sqlite_database.write() as session:
            play_turn(session, START, site, game_id=game_pk, seat=row.to_move or 0,
                      ply=row.ply, steps=[take, lay])

    assert decodes.during(turn) == 1
    assert _row(sqlite_database, game_pk).ply == row.ply + 2


def test_a_computer_players_move_decodes_the_state_once(
    sqlite_database: Database, site: Site, decodes: Calls,
) -> None:
    from pbem.scheduler.bots import bot_turns, play_one_move
    from pbem.services.computer_games import start_computer_game

    with sqlite_database.write() as session:
        ann = Player(name="Ann", email="ann@example.test", created_at=START)
        session.add(ann)
        session.flush()
        row = start_computer_game(session, START, site, player=ann, game_type="mosey",
                                  options=smallest_options("mosey"), level="easy",
                                  starter="computer")
        game_pk = row.id
    assert game_pk is not None
    [turn] = bot_turns(sqlite_database, game_pk)
    chosen = _random_move(sqlite_database, game_pk)
    # The search is the engine's (in its own process on a site); here it answers at once.
    result = decodes.during(lambda: play_one_move(sqlite_database, START, site, turn,
                                                  lambda search: (chosen, 0.5)))
    assert result == 1 and _row(sqlite_database, game_pk).ply == 1


def test_a_reply_by_mail_decodes_the_state_once_its_receipt_included(
    sqlite_database: Database, mailbox: Mailbox, decodes: Calls,
) -> None:
    from pbem.inbound.service import receive
    from tests.inbound.replies import answer, reply_site

    site = reply_site(sqlite_database)
    game_pk = start_a_game(sqlite_database, START, site, "mosey", smallest_options("mosey"))
    [turn] = [m for m in mailbox.deliver(START) if "Your turn" in str(m["Subject"])]
    raw = answer(turn, _random_move(sqlite_database, game_pk))
    outcome: list[Any] = []
    count = decodes.during(lambda: outcome.append(
        receive(sqlite_database, START, site, raw, recipients=[str(turn["Reply-To"])])))
    assert outcome[0].kind == "played", outcome
    assert count == 1
    with sqlite_database.session() as session:  # the receipt shows the board after the move
        receipt = session.exec(select(OutboxEmail).where(OutboxEmail.kind == "reply_receipt")
                               ).one()
    assert receipt.image_ply == 1


@pytest.mark.parametrize("policy", ["random", "pass"])
def test_a_timed_out_turn_decodes_the_state_once(
    sqlite_clock_games: ClockGames, decodes: Calls, policy: str,
) -> None:
    game_pk = sqlite_clock_games.start("refugia", START, timeout_policy=policy)
    summary: list[Any] = []
    count = decodes.during(lambda: summary.append(sqlite_clock_games.sweep(LATE, bots=False)))
    assert summary[0].timeouts == {policy: 1}
    [move] = sqlite_clock_games.moves(game_pk)
    assert move.source == MoveSource.TIMEOUT
    # The move, the emails about it and the clock notice share the one position.
    assert count == 1


def test_a_stand_ins_random_moves_decode_the_stored_position_each_and_nothing_else_does(
    sqlite_clock_games: ClockGames, decodes: Calls,
) -> None:
    """The one decode a turn cannot share: a random move (a forfeited seat's stand-in, a
    timed-out step) is drawn from the position as stored, as a replay decodes it, so that the
    seed picks the same move whatever order a position played on in memory lists its moves in.
    The turn's first random move uses the turn's one decode; each later one, after a move in
    memory, decodes the stored position again. Nothing else in the turn does."""
    games = sqlite_clock_games
    game_pk = games.start("rifugio", START, options={"players": 3}, timeout_policy="forfeit")

    def stand_ins() -> int:
        return len([m for m in games.moves(game_pk) if m.source == MoveSource.STAND_IN])

    forfeit = decodes.during(lambda: games.sweep(LATE, bots=False))
    assert stand_ins() >= 1 and forfeit == stand_ins()  # a whole turn of its steps
    counts = []
    for seed in range(60):  # the others play on; the stand-in follows them
        if _row(games.database, game_pk).status != GameStatus.ACTIVE:
            break
        before = stand_ins()
        text = _random_move(games.database, game_pk, seed)
        count = decodes.during(lambda text=text: _move(games.database, games.site, game_pk,
                                                       text, LATE))
        counts.append((count, stand_ins() - before))
    assert all(count == 1 + played for count, played in counts), counts
    assert any(played for _, played in counts)


# -- every move goes through one function --------------------------------------------------------


def test_every_move_of_every_source_is_played_by_the_one_turn_function() -> None:
    """``apply_move`` changes a game's state; only :func:`pbem.services.turns.play_moves` calls
    it, so a move from the web, a reply, a bot, a timeout or a stand-in is played one way."""
    callers = []
    for path in Path(pbem.__file__).parent.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and (
                        getattr(node.func, "id", None) == "apply_move"
                        or getattr(node.func, "attr", None) == "apply_move"):
                    callers.append(f"{path.stem}.{function.name}")
    assert sorted(set(callers)) == ["turns.play_moves"]


# -- boards: drawn once per (game, ply, viewer, language), the size stored -----------------------


def _people(languages: list[str]) -> list[PlayerSpec]:
    return [PlayerSpec(f"P{n}", f"p{n}@example.test", language=language)
            for n, language in enumerate(languages)]


def _start(database: Database, site: Site, game_type: str, options: dict[str, object],
           languages: list[str]) -> int:
    with database.write() as session:
        row = create_game(session, START, site, game_type=game_type, options=options,
                          players=_people(languages))
        assert row.id is not None
        start_game(session, START, site, game_id=row.id, force=True)
        return row.id


def _size(message: Any) -> tuple[int, int]:
    html = message.get_body(("html",)).get_content()
    found = re.search(r'<img src="cid:[^"]+" width="(\d+)" height="(\d+)"', html)
    assert found, html
    return int(found[1]), int(found[2])


def _png(message: Any) -> bytes:
    return bytes(list(message.iter_parts())[1].get_content())


def _check_boards(database: Database, game_pk: int, messages: list[Any], renders: Calls,
                  drawn: int) -> None:
    """Each (viewer, language) of the messages' boards drawn once (``drawn`` calls of
    render_svg since the move), each email's picture as big as its stored size says, and the
    same PNG as one drawn afresh from the stored position (the way delivery drew it before)."""
    with database.session() as session:
        emails = {e.to_address: e for e in session.exec(select(OutboxEmail).where(  # the latest
            OutboxEmail.game_id == game_pk, col(OutboxEmail.image_ply).is_not(None))
            .order_by(col(OutboxEmail.id)))}
        images = {(i.ply, i.viewer, i.language, i.over): i for i in session.exec(
            select(BoardImage).where(BoardImage.game_id == game_pk))}
    row = _row(database, game_pk)
    game, state = current_state(row)
    keys = set()
    for message in messages:
        email = emails[message["To"].addresses[0].addr_spec]
        over = (row.status != GameStatus.ACTIVE and email.image_ply == row.ply
                and game.to_move(state) is not None)
        key = (email.image_ply, email.image_viewer, email.image_language)
        image = images[(*key, over)]
        keys.add(key)
        assert _size(message) == (image.width, image.height)
        assert image.png == _png(message) and image.svg is None  # rasterised, then let go
    assert drawn == len(keys)
    # The same pictures drawn afresh from the stored positions, as delivery did before.
    with database.write() as session:
        for image in session.exec(select(BoardImage).where(BoardImage.game_id == game_pk)):
            session.delete(image)
    for message in messages:
        email = emails[message["To"].addresses[0].addr_spec]
        assert email.image_ply is not None and email.image_viewer is not None
        assert boards.board_png(database, game_pk, email.image_ply, email.image_viewer,
                                email.image_language) == _png(message)


def test_a_move_seen_in_two_languages_draws_each_board_once_per_viewer_and_language(
    sqlite_database: Database, site: Site, mailbox: Mailbox, renders: Calls,
) -> None:
    """Rifugio of four (each seat sees its own board): the turn and the two updates a move
    causes, in English and German."""
    game_pk = _start(sqlite_database, site, "rifugio", {"players": 4}, ["en", "de", "en", "de"])
    mailbox.deliver(START)
    seat = _row(sqlite_database, game_pk).to_move
    before = len(renders)
    for seed in range(40):  # a whole turn: its last step tells everybody
        _move(sqlite_database, site, game_pk, _random_move(sqlite_database, game_pk, seed))
        if _row(sqlite_database, game_pk).to_move != seat:
            break
    messages = [m for m in mailbox.deliver(START) if m.get_content_type() == "multipart/related"]
    assert len(messages) == 3
    _check_boards(sqlite_database, game_pk, messages, renders, len(renders) - before)


@pytest.mark.parametrize("languages", [["en", "de"], ["nl", "nl"]])
def test_a_last_move_seen_by_both_players_draws_the_shared_board_once_per_language(
    sqlite_database: Database, site: Site, mailbox: Mailbox, renders: Calls,
    languages: list[str],
) -> None:
    """A game without hidden information ends: both players get the one public picture, drawn
    once for each language they read."""
    game_pk = _start(sqlite_database, site, "mosey", smallest_options("mosey"), languages)
    for seed in range(200):
        row = _row(sqlite_database, game_pk)
        game, state = current_state(row)
        text = str(game.random_move(state, random.Random(seed)))
        if game.outcome(game.play(state, game.parse_move(text))) is not None:
            break
        _move(sqlite_database, site, game_pk, text)
    mailbox.deliver(START)
    before = len(renders)
    _move(sqlite_database, site, game_pk, text)
    assert _row(sqlite_database, game_pk).status == GameStatus.FINISHED
    messages = [m for m in mailbox.deliver(START) if m.get_content_type() == "multipart/related"]
    assert len(messages) == 2
    _check_boards(sqlite_database, game_pk, messages, renders, len(renders) - before)


def test_a_resignation_draws_the_ended_board_once_and_delivery_keeps_to_it(
    sqlite_database: Database, site: Site, mailbox: Mailbox, renders: Calls,
) -> None:
    from pbem.services import resign

    game_pk = _start(sqlite_database, site, "mosey", smallest_options("mosey"), ["en", "en"])
    mailbox.deliver(START)
    before = len(renders)
    with sqlite_database.write() as session:
        resign(session, START, site, game_id=game_pk, seat=0)
    messages = [m for m in mailbox.deliver(START) if m.get_content_type() == "multipart/related"]
    assert len(messages) == 2
    assert [kwargs.get("ending") for _, kwargs in renders.calls[before:]] == [
        engine.Ending.RESIGNATION]
    _check_boards(sqlite_database, game_pk, messages, renders, len(renders) - before)


def test_a_picture_kept_from_before_sizes_were_stored_is_measured_again(
    sqlite_database: Database, site: Site, mailbox: Mailbox,
) -> None:
    """Board pictures rasterised before the upgrade have no size: an email that shows one
    draws it once more to learn it, and keeps that."""
    game_pk = _start(sqlite_database, site, "mosey", smallest_options("mosey"), ["en", "en"])
    first = [m for m in mailbox.deliver(START) if m.get_content_type() == "multipart/related"]
    with sqlite_database.write() as session:
        for image in session.exec(select(BoardImage)):
            image.width = image.height = None
            session.add(image)
    with sqlite_database.write() as session:
        replace_player(session, START, site, game_id=game_pk, seat=1,
                       new_player=PlayerSpec("Quinn", "quinn@example.test"), actor="test")
    [welcome] = [m for m in mailbox.deliver(START) if m.get_content_type() == "multipart/related"]
    with sqlite_database.session() as session:
        [image] = session.exec(select(BoardImage)).all()
    assert _size(welcome) == _size(first[0]) == (image.width, image.height)
    assert _png(welcome) == _png(first[0]) == image.png


def test_boards_are_kept_with_their_size_and_rasterised_once_on_every_backend(
    database: Database, site: Site,
) -> None:
    game_pk = _start(database, site, "mosey", smallest_options("mosey"), ["en", "de"])
    _move(database, site, game_pk, _random_move(database, game_pk))
    with database.session() as session:
        emails = session.exec(select(OutboxEmail).where(
            col(OutboxEmail.image_ply).is_not(None))).all()
        kept = session.exec(select(BoardImage)).all()
    # Drawn, not yet rasterised: one per (ply, viewer, language) the emails show.
    assert {(i.ply, i.viewer, i.language) for i in kept} == {
        (e.image_ply, e.image_viewer, e.image_language) for e in emails}
    assert all(i.svg and i.png is None and i.width and i.height for i in kept)
    for email in emails:
        assert email.image_ply is not None and email.image_viewer is not None
        png = boards.board_png(database, game_pk, email.image_ply, email.image_viewer,
                               email.image_language)
        assert png.startswith(b"\x89PNG")
        size = re.search(r'<img src="cid:board" width="(\d+)" height="(\d+)"', email.html_body)
        assert size
        with database.session() as session:
            image = session.exec(select(BoardImage).where(
                BoardImage.game_id == game_pk, BoardImage.ply == email.image_ply,
                BoardImage.viewer == email.image_viewer,
                BoardImage.language == email.image_language)).one()
        assert (image.png, image.svg) == (png, None)
        assert (int(size[1]), int(size[2])) == (image.width, image.height)


def test_an_email_written_while_a_deliverer_draws_the_same_picture_keeps_the_deliverers(
    database: Database, site: Site, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A deliverer draws a picture no email kept (one written before pictures were kept) just as
    an email that does not lock the game (a reply's answer) draws the same one: the email is
    written with the deliverer's picture. (A move's emails cannot meet this: the game's row lock
    holds the deliverer's insert back until they are written, and SQLite has one writer.)"""
    if database.is_sqlite:
        pytest.skip("SQLite has one writer at a time: the two cannot overlap")
    from pbem.services import notify

    game_pk = _start(database, site, "mosey", smallest_options("mosey"), ["en", "en"])
    real = notify.draw_board

    def meanwhile(*args: Any, **kwargs: Any) -> str:
        with database.write() as other:  # another connection, committed at once
            other.add(BoardImage(game_id=game_pk, ply=0, viewer=-1, language="nl",
                                 png=b"theirs", width=1, height=2))
        return real(*args, **kwargs)

    monkeypatch.setattr(notify, "draw_board", meanwhile)
    with database.write() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None
        game, state = current_state(row)
        board = notify.board_for(session, row, notify.board_ref(game, state, 0, None, None),
                                 pbem.i18n.Reader("nl"))
        assert (board.width, board.height) == (1, 2)
        session.add(OutboxEmail(game_id=game_pk, kind="notice", to_address="x@example.test",
                                subject="s", text_body="t", html_body="h", message_id="m",
                                next_attempt_at=START, created_at=START))  # the rest goes on
    with database.session() as session:
        [image] = session.exec(select(BoardImage).where(BoardImage.language == "nl")).all()
        assert session.exec(select(OutboxEmail).where(OutboxEmail.message_id == "m")).one()
    assert image.png == b"theirs"
