"""The core publishes what happens and the features subscribe (pbem.services.events,
pbem.features): the core alone loads no feature, each process connects them where it starts, in
the order that keeps a game's end and what follows from it in one transaction."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime

from sqlmodel import select

from pbem.db import Database
from pbem.features import connect
from pbem.models import GameRecord
from pbem.ratings.tables import RatingChange
from pbem.services import Site, resign
from pbem.services.events import Dispatcher, GameFinished, GameOverEmail, TurnStarted
from tests.support import ALICE_BOB, start_a_game, two_player_game

FEATURES = "import sys; print(sorted(m for m in sys.modules if m.startswith(('pbem.ratings', " \
           "'pbem.tournaments', 'pbem.challenges', 'pbem.features'))))"


def test_the_core_loads_no_feature() -> None:
    done = subprocess.run([sys.executable, "-c", "import pbem.services, pbem.services.turns; "
                           + FEATURES], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_features_subscribe_in_order_once() -> None:
    events = connect(connect(Dispatcher()))
    # The game's own emails first: each player reads the game over before what follows from it.
    assert [f"{h.__module__}.{h.__name__}" for h in events.handlers(GameFinished)] == [
        "pbem.services.turn_mail.on_game_finished", "pbem.ratings.service.on_game_finished",
        "pbem.tournaments.service.on_game_finished"]
    assert [f"{h.__module__}.{h.__name__}" for h in events.handlers(TurnStarted)] == [
        "pbem.services.turn_mail.on_turn_started"]
    assert [h.__module__ for h in events.handlers(GameOverEmail)] == ["pbem.challenges.service"]


def test_the_command_connects_the_features() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from pbem.cli import main; from pbem.services.events import "
         "EVENTS, GameFinished\ntry:\n    main(['db', '--help'])\nexcept SystemExit:\n    pass\n"
         "print(len(EVENTS.handlers(GameFinished)), file=__import__('sys').stderr)"],
        capture_output=True, text=True)
    assert done.stderr.strip().splitlines()[-1] == "3", done.stderr


def test_a_game_that_ends_is_rated_in_the_same_transaction(
        sqlite_database: Database, now: datetime, site: Site) -> None:
    game_id = start_a_game(sqlite_database, now, site, two_player_game(), players=ALICE_BOB,
                           rated=True)
    with sqlite_database.write() as session:
        resign(session, now, site, game_id=game_id, seat=0)
        assert session.get(GameRecord, game_id) is not None
        # Before the commit: the rating was written by the subscriber, in this transaction.
        assert len(session.exec(select(RatingChange)).all()) == 2
