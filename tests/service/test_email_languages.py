"""Every email is written for its recipient: one move mails an English, a Dutch, a German and an
Italian player, each in their own language and time zone.

The expectations come from the catalogs (``Reader(language).gettext`` of the messages the emails
use), so they hold whatever the translators write; :func:`test_translations_reach_the_emails`
checks that the words are then really not English.
"""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import col, select

import engine
from pbem.clock.controls import Fischer, PerMove
from pbem.clock.wording import describe_control, describe_duration
from pbem.db import Database
from pbem.i18n import Reader
from pbem.links import Links
from pbem.models import GameRecord, OutboxEmail, Player
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, create_game, resign, start_game, submit_move
from pbem.services.results import labels_for, resignation_sentence
from tests.support import BASE_URL, MAIL_FROM, SECRET, ClockGames, clock_in

GAME = "rifugio"  # the catalogue's game for four players
NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)  # a Monday
# name, address, language, time zone: every player somewhere else.
PEOPLE = [
    ("Ann", "ann@example.test", "en", "UTC"),
    ("Bram", "bram@example.test", "nl", "Europe/Amsterdam"),
    ("Carla", "carla@example.test", "de", "America/New_York"),
    ("Dario", "dario@example.test", "it", "Asia/Tokyo"),
]
LANGUAGE = {address: (language, zone) for _, address, language, zone in PEOPLE}
_VALUE = "\x00{}\x00"


def shape(reader: Reader, message: str, /, **known: str) -> re.Pattern[str]:
    """A pattern for ``message`` as ``reader`` reads it: the translation's own words exactly,
    the ``known`` values exactly, other placeholders anything."""
    names = re.findall(r"%\((\w+)\)[sd]", message)
    text = reader.gettext(message, **{name: _VALUE.format(name) for name in names})
    parts = re.split("\x00(\\w+)\x00", text)
    pattern = "".join(re.escape(part) if number % 2 == 0 else
                      re.escape(known[part]) if part in known else ".+?"
                      for number, part in enumerate(parts))
    return re.compile(pattern)


def says(reader: Reader, message: str, text: str, /, **known: str) -> bool:
    return shape(reader, message, **known).search(text) is not None


def _players(database: Database) -> None:
    with database.write() as session:
        for name, address, language, zone in PEOPLE:
            session.add(Player(name=name, email=address, language=language, time_zone=zone,
                               created_at=NOW))


def _start(database: Database, site: Site, **create: Any) -> int:
    _players(database)
    with database.write() as session:
        row = create_game(session, NOW, site, game_type=GAME, options={"players": 4},
                          players=[PlayerSpec(name, address) for name, address, *_ in PEOPLE],
                          **create)
        assert row.id is not None
        start_game(session, NOW, site, game_id=row.id, force=True)
        return row.id


def _emails(database: Database, after: int = 0, kind: str | None = None) -> list[OutboxEmail]:
    query = select(OutboxEmail).where(col(OutboxEmail.id) > after)
    if kind:
        query = query.where(OutboxEmail.kind == kind)
    with database.session() as session:
        return list(session.exec(query.order_by(col(OutboxEmail.id))))


def _last_id(database: Database) -> int:
    return max((e.id or 0 for e in _emails(database)), default=0)


def _game(database: Database, game_id: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_id)
    assert row is not None
    return row


def _move(database: Database, site: Site, game_id: int) -> tuple[str, int]:
    """Play the turn of whoever is to move (a turn may take several steps): their name, and
    the id of the last email before the turn's end."""
    rng = random.Random(7)
    seat = _game(database, game_id).to_move
    assert seat is not None
    for _ in range(50):
        row = _game(database, game_id)
        if row.to_move != seat:
            break
        game, state = current_state(row)
        move = rng.choice(game.legal_moves(state))
        before = _last_id(database)
        with database.write() as session:
            submit_move(session, NOW + timedelta(hours=1), site, game_id=game_id, seat=seat,
                        ply=row.ply, text=str(move))
    return PEOPLE[seat][0], before


def _reader(email: OutboxEmail) -> Reader:
    return Reader(*LANGUAGE[email.to_address])


def _name(email: OutboxEmail) -> str:
    return next(name for name, address, *_ in PEOPLE if address == email.to_address)


@pytest.fixture
def site() -> Site:
    return Site(Links(SECRET, BASE_URL), MAIL_FROM)


def test_a_move_mails_each_player_in_their_language_and_time_zone(
        sqlite_database: Database, site: Site) -> None:
    game_id = _start(sqlite_database, site)
    mover, before = _move(sqlite_database, site, game_id)
    clock = clock_in(sqlite_database, game_id)
    emails = _emails(sqlite_database, before)
    assert {e.kind for e in emails} == {"turn", "update"}
    assert len(emails) == 3  # everyone but the mover
    game_name = engine.GAMES[GAME].name
    for email in emails:
        reader = _reader(email)
        name = reader.gettext(game_name)
        deadline = reader.when(clock.deadline)
        assert f'<html lang="{reader.language}">' in email.html_body
        assert says(reader, "Hello %(name)s,", email.text_body, name=_name(email))
        assert says(reader, "Hello %(name)s,", email.html_body, name=_name(email))
        assert says(reader, "%(game)s vs %(others)s (%(id)s)", email.subject, game=name)
        # The board's alt text names the game and the last move in the reader's language.
        alt = re.search(r'alt="([^"]*)"', email.html_body)
        assert alt is not None
        assert says(reader, "The %(game)s board. %(position)s Last move: %(move)s.",
                    alt[1].replace("&#39;", "'").replace("&amp;", "&"), game=name)
        assert says(reader, "Moves since your last turn:", email.text_body)
        if email.kind == "turn":
            assert email.subject.startswith(reader.gettext("Your turn:"))
            assert says(reader, "It is your turn in %(game)s.", email.text_body, game=name)
            assert says(reader, "Deadline: %(deadline)s", email.text_body, deadline=deadline)
            assert says(reader, "Make your move", email.html_body)
        else:
            assert email.subject.startswith(reader.gettext("%(player)s moved:", player=mover))
            assert says(reader, "News from %(game)s.", email.text_body, game=name)
            assert says(reader, "Their deadline: %(deadline)s", email.text_body,
                        deadline=deadline)
            assert says(reader, "You will get another email when it is your turn.",
                        email.html_body)
        # The deadline is on the recipient's own clock (Tokyo is nine hours ahead of UTC).
        assert deadline in email.text_body
        local = clock.deadline.astimezone(ZoneInfo(reader.time_zone))
        assert f"{local:%H:%M} ({local.tzname()})" in deadline
        if reader.time_zone == "Asia/Tokyo":
            assert clock.deadline.hour == 13 and "22:00 (JST)" in deadline


def test_translations_reach_the_emails(sqlite_database: Database, site: Site) -> None:
    """Once the catalogs are translated, a Dutch, German or Italian player reads no English in
    the words that matter most: the subject's event, the greeting and the deadline's line."""
    game_id = _start(sqlite_database, site)
    mover, before = _move(sqlite_database, site, game_id)
    for email in _emails(sqlite_database, before):
        reader = _reader(email)
        if reader.language == "en":
            continue
        english = "Your turn:" if email.kind == "turn" else f"{mover} moved:"
        assert not email.subject.startswith(english), (reader.language, email.subject)
        assert f"Hello {_name(email)}," not in email.text_body
        assert "Deadline: " not in email.text_body
        assert "Moves since your last turn:" not in email.html_body
        assert engine.GAMES[GAME].summary not in email.text_body


def test_english_emails_are_as_they_were_but_the_date(sqlite_database: Database,
                                                       site: Site) -> None:
    game_id = _start(sqlite_database, site)
    row = _game(sqlite_database, game_id)
    tag = row.public_id[:6]
    turns = _emails(sqlite_database, kind="turn")
    assert [e.to_address for e in turns] == ["ann@example.test"]
    turn = turns[0]
    assert turn.subject == f"Your turn: Rifugio vs Bram, Carla and Dario ({tag})"
    text = turn.text_body
    # The first turn says the game has started: its player gets no other email about it.
    assert text.startswith("Hello Ann,\n\nThe game of Rifugio has started, and it is your "
                           "turn.\n")
    # The one change: dates come from Reader.when (three days per move from Monday noon).
    assert "\nDeadline: Thursday, March 6, 2025, 12:00 (UTC)\n" in text
    assert "\n\nMake your move: http://localhost/" in text
    assert ("\n(The link opens a page with the board; nothing is played until you confirm "
            "there.)\nTo resign: http://localhost/") in text
    assert "\n--\nGame page: http://localhost/g/" in text
    assert "\nYour games and mail settings: http://localhost/me/" in text
    html = turn.html_body
    assert '<html lang="en">' in html
    assert ("<p>The game of Rifugio has started, and it is <strong>your turn</strong>.</p>"
            in html)
    assert "<p>Deadline: <strong>Thursday, March 6, 2025, 12:00 (UTC)</strong></p>" in html
    assert 'alt="The Rifugio board. ' in html
    invitations = _emails(sqlite_database, kind="invitation")
    ann = next(e for e in invitations if e.to_address == "ann@example.test")
    assert ann.subject == f"Invitation: Rifugio vs Bram, Carla and Dario ({tag})"
    # The options in words, as the challenge form says them (stored as "players 4").
    assert "You are invited to play Rifugio (Players 4).\n\n" in ann.text_body
    assert ("\nPlayers:\n  Ann (Red) (you)\n  Bram (Blue)\n  Carla (Yellow)\n  Dario (Purple)\n"
            in ann.text_body)  # the colours the board draws them in
    notices = _emails(sqlite_database, kind="notice")
    assert {e.to_address for e in notices} == {"bram@example.test", "carla@example.test",
                                               "dario@example.test"}


def test_resignations_and_game_over_say_so_in_each_language(sqlite_database: Database,
                                                            site: Site) -> None:
    """Four players: Bram and Carla resign and the game goes on (each is told, in their own
    language, that the computer plays the seat); Dario's resignation leaves only Ann in play, so
    the game ends and everyone gets the result in their language."""
    from pbem.services.resignation import PLAYS_ON

    game_id = _start(sqlite_database, site)
    names = [name for name, *_ in PEOPLE]
    for seat in (1, 2):
        before = _last_id(sqlite_database)
        with sqlite_database.write() as session:
            resign(session, NOW, site, game_id=game_id, seat=seat)
        assert _game(sqlite_database, game_id).status == "active"
        notices = _emails(sqlite_database, before, kind="clock")
        assert len(notices) == 4
        row = _game(sqlite_database, game_id)
        game, state = current_state(row)
        for email in notices:
            reader = _reader(email)
            plays_on = reader.gettext(PLAYS_ON, player=labels_for(game, state, names, reader)[seat])
            assert " ".join(plays_on.split()) in " ".join(email.text_body.split())
    before = _last_id(sqlite_database)
    with sqlite_database.write() as session:
        resign(session, NOW, site, game_id=game_id, seat=3)
    row = _game(sqlite_database, game_id)
    assert row.status == "finished" and row.winners == [0]
    game, state = current_state(row)
    emails = _emails(sqlite_database, before, kind="game_over")
    assert len(emails) == 4
    for email in emails:
        reader = _reader(email)
        sentence = resignation_sentence(labels_for(game, state, names, reader), 3, [0], reader)
        assert sentence in email.text_body
        assert sentence in email.html_body
        if email.to_address == "ann@example.test":
            assert email.subject.startswith(reader.gettext("Game over: you won"))
        else:
            assert email.subject.startswith(reader.gettext("Game over: %(winners)s won",
                                                           winners="Ann"))
            assert says(reader, "You lost this game of %(game)s.", email.text_body,
                        game=reader.gettext(engine.GAMES[GAME].name))
    # The game row keeps the English sentence (pages translate it their own way).
    assert row.result == resignation_sentence(labels_for(game, state, names), 3, [0])


def test_clock_mail_and_organiser_alerts_follow_the_reader(sqlite_database: Database) -> None:
    """A timeout under "hold": the players' notices are each in their language; the alert
    address has no language of its own and gets the site's (PBEM_DEFAULT_LANGUAGE)."""
    site = Site(Links(SECRET, BASE_URL), MAIL_FROM, ("alerts@example.test",),
                default_language="nl")
    game_id = _start(sqlite_database, site, per_move=timedelta(days=1), timeout_policy="hold")
    deadline = clock_in(sqlite_database, game_id).deadline
    assert deadline is not None
    games = ClockGames(sqlite_database, site)
    before = _last_id(sqlite_database)
    games.sweep(deadline - timedelta(hours=2) + timedelta(minutes=1))
    reminders = _emails(sqlite_database, before, kind="reminder")
    assert [e.to_address for e in reminders] == ["ann@example.test"]
    english = Reader()
    assert reminders[0].subject.startswith("Reminder: 2 hours left in Rifugio vs ")
    assert says(english, "If the clock runs out: %(policy)s.", reminders[0].text_body,
                policy="the game waits and the organisers are alerted")
    before = _last_id(sqlite_database)
    games.sweep(deadline + timedelta(minutes=1))
    clock = _emails(sqlite_database, before, kind="clock")
    alerts = [e for e in clock if e.to_address == "alerts@example.test"]
    assert len(alerts) == 1
    dutch = Reader("nl")
    headline = dutch.gettext("[organiser] %(headline)s",
                             headline=dutch.gettext("Needs your attention:"))
    assert alerts[0].subject.startswith(headline)
    assert says(dutch, "%(player)s did not move in time: the deadline was %(deadline)s.",
                alerts[0].text_body, deadline=dutch.when(deadline))
    notices = [e for e in clock if e.to_address != "alerts@example.test"]
    assert len(notices) == 4
    for email in notices:
        reader = _reader(email)
        assert says(reader, "%(player)s did not move in time: the deadline was %(deadline)s.",
                    email.text_body, deadline=reader.when(deadline))
        assert says(reader, "The game now waits for the organiser to decide.", email.text_body)
        if email.to_address == "ann@example.test":
            assert email.subject.startswith(
                reader.gettext("%(who)s ran out of time, the game waits:", who="You"))
        else:
            assert email.subject.startswith(reader.gettext(
                "%(who)s ran out of time, the game waits:", who="Ann"))


@pytest.mark.parametrize("language", ["en", "nl", "de", "it"])
def test_time_controls_and_durations_in_words(language: str) -> None:
    reader = Reader(language)
    three_days = reader.ngettext("%(count)d day", "%(count)d days", 3)
    assert describe_control(PerMove(timedelta(days=3)), reader) == reader.gettext(
        "%(time)s per move", time=three_days)
    assert describe_duration(timedelta(days=1, hours=2, minutes=5), reader, units=2) == (
        reader.ngettext("%(count)d day", "%(count)d days", 1) + " "
        + reader.ngettext("%(count)d hour", "%(count)d hours", 2))
    fischer = describe_control(Fischer(weekends_off=True), reader)
    assert reader.ngettext("%(count)d day", "%(count)d days", 4) in fischer
    if language == "en":
        assert describe_control(PerMove(timedelta(days=3))) == "3 days per move"
        assert fischer == "2 days to start, plus 1 day per move, at most 4 days; weekends off"
