"""The features built on the core of the service, connected to the events it publishes.

The core (:mod:`pbem.services`) never imports a feature; it publishes what happens
(:mod:`pbem.services.events`) and the features react: the emails about a turn and a game's end
(:mod:`pbem.services.turn_mail`), the players' ratings and a tournament's rounds when a game
ends, the rematch button in the game-over email, the messages to a player's other channels
beside their emails, the conditional moves a player left for the opponent's next move, the
``say:`` lines of a reply in the game's conversation, and whether an email goes out at all
(the player's mail settings). :func:`connect` is called
where a process starts (the app factory, the ``pbem`` command, the tests' conftest), before any
service runs; calling it again changes nothing.

>>> from pbem.services.events import GameFinished
>>> [handler.__module__ for handler in connect().handlers(GameFinished)]
['pbem.services.turn_mail', 'pbem.ratings.service', 'pbem.tournaments.service']
"""

from __future__ import annotations

from pbem.challenges import service as challenges
from pbem.channels import messages as channels
from pbem.chat import replies as chat
from pbem.conditional import service as conditional
from pbem.notifications import policy as notifications
from pbem.ratings import service as ratings
from pbem.services import turn_mail
from pbem.services.events import (
    EVENTS,
    Dispatcher,
    EmailQueued,
    GameFinished,
    GameOverEmail,
    ReplySaid,
    SeatEmail,
    StandingMove,
    TurnStarted,
)
from pbem.tournaments import service as tournaments


def connect(events: Dispatcher = EVENTS) -> Dispatcher:
    """Subscribe the features to ``events``. The order counts: a game's own emails are written
    first, so each player gets the game over before what follows from it; its ratings are
    updated before its tournament reads the results (and pairs the next round, whose emails
    follow)."""
    events.subscribe(TurnStarted, turn_mail.on_turn_started)
    events.subscribe(GameFinished, turn_mail.on_game_finished)
    events.subscribe(GameFinished, ratings.on_game_finished)
    events.subscribe(GameFinished, tournaments.on_game_finished)
    events.subscribe(GameOverEmail, challenges.rematch_link)
    events.subscribe(EmailQueued, channels.on_email_queued)
    events.subscribe(StandingMove, conditional.on_standing_move)
    events.subscribe(SeatEmail, conditional.on_seat_email)
    events.subscribe(ReplySaid, chat.on_reply_said)
    # Whether each email goes out at all: the one place the players' mail settings are read.
    events.subscribe(EmailQueued, notifications.on_email_queued)
    return events
