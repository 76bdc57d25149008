"""What the sweep does to one due game: a reminder, or the game's timeout policy, and the emails.

:func:`handle_due_game` is one unit of work, run in its own short transaction: it locks the game,
re-checks that it is still at the ply the sweep saw and still due, and records what it did in the
same transaction as the emails (a reminder marked sent, a timeout move played). So a sweep that runs
twice, or again after a crash, finds nothing left to do for work already done.

The policies (:data:`~pbem.clock.deadlines.POLICIES`):

- ``pass``: the server passes for the player where a pass is legal, else plays a random move;
- ``random``: a random legal move, seeded by the game's seed and the ply (reproducible);
- ``forfeit``: the player loses; while two or more others (a person among them) are still in
  play, a stand-in plays their seat randomly to the end, so the others can finish (``forfeit-bot``:
  the computer does);
- ``grace``: once per turn, the clock gets the turn's time again; after that, pass or random;
- ``hold``: the game waits and the organiser is alerted by email; extending the deadline (or
  adjudicating) releases it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

from engine.text import N_
from pbem.clock.controls import format_duration, reminder_times
from pbem.clock.deadlines import (
    SECOND,
    clock_of,
    default_timeout_policy,
    policy_label,
    refresh_due,
    reminder_offsets,
    set_deadline,
)
from pbem.clock.wording import describe_duration, short_duration
from pbem.i18n import ENGLISH, Reader, supported
from pbem.models import GameRecord, GameStatus, MoveSource, Player, Seat
from pbem.services.common import (
    Site,
    audit,
    end_game,
    lock_game,
    others_in_play,
    players_of,
    plays_on,
    seats_of,
)
from pbem.services.events import MovePlayed
from pbem.services.moves import Position, publish_game_over, seeded_rng
from pbem.services.notify import enqueue, game_context, subject_line, subject_of, title_of
from pbem.services.players import PlayerSpec, player_for
from pbem.services.results import forfeit_sentence, labels_for
from pbem.services.turns import Step, Steps, play_moves

# Words for one reader: a clock notice's text, an alert's text or headline, made in the
# recipient's language (a plain str is the same for everybody).
Words = str | Callable[[Reader], str]


def _words(words: Words, reader: Reader) -> str:
    return words(reader) if callable(words) else words

MAX_STEPS = 100  # steps of one turn the server plays for a timed-out player; far above any game


def _context(session: Session, row: GameRecord, position: Position
             ) -> tuple[list[Seat], dict[int, Player], dict[str, Any]]:
    assert row.id is not None
    seats = seats_of(session, row.id)
    players = players_of(session, seats)
    return seats, players, game_context(row, position.game, position.state, seats, players)


def _context_in(row: GameRecord, seats: list[Seat], players: dict[int, Player],
                position: Position) -> Callable[[Reader], dict[str, Any]]:
    """The game's email context in a reader's language (made once per language)."""
    made: dict[Reader, dict[str, Any]] = {}

    def context(reader: Reader) -> dict[str, Any]:
        if reader not in made:
            made[reader] = game_context(row, position.game, position.state, seats, players,
                                        reader)
        return made[reader]

    return context


# What a clock notice's subject says first, by event; "{who}" is the seat the clock ran out for.
CLOCK_EVENTS = {
    "extended": N_("Deadline extended:"),
    "paused": N_("Game paused:"),
    "resumed": N_("Game resumed:"),
    "hold": N_("%(who)s ran out of time, the game waits:"),
    "grace": N_("%(who)s ran out of time, extra time once:"),
    "timeout": N_("%(who)s ran out of time, the server moved:"),
    "forfeit": N_("%(who)s ran out of time and forfeits:"),
    "resigned": N_("%(who)s resigned:"),  # a game of three or more goes on (resignation)
}
# The same when it is the reader's own clock (English says "You" in both).
OWN_CLOCK_EVENTS = {
    "hold": N_("You ran out of time, the game waits:"),
    "grace": N_("You ran out of time, extra time once:"),
    "timeout": N_("You ran out of time, the server moved:"),
    "forfeit": N_("You ran out of time and forfeit:"),
    "resigned": N_("You resigned:"),
}


def clock_event(event: str, who: str | None, reader: Reader = ENGLISH) -> str:
    """The start of a clock notice's subject: "Bob ran out of time, the game waits:"; ``who``
    None for the reader's own clock ("You ran out of time, ...")."""
    if who is None and event in OWN_CLOCK_EVENTS:
        if event == "forfeit" and reader.language == "en":  # as English always said it
            return reader.gettext(CLOCK_EVENTS[event], who="You")
        return reader.gettext(OWN_CLOCK_EVENTS[event])
    return reader.gettext(CLOCK_EVENTS.get(event, N_("Clock:")), who=who or "")


def clock_notice(
    session: Session, now: datetime, site: Site, row: GameRecord, event: str, text: Words,
    *, seats: Sequence[int] | None = None, about: int | None = None,
    position: Position | None = None,
) -> None:
    """An essential email to every seat (or ``seats``): what happened to the clock, and why
    (``text``, or a function writing it for a reader). ``about`` is the seat whose clock ran
    out: the subject names them, or says "You". ``position``: the row's, if decoded already."""
    position = position or Position.of(row)
    all_seats, players, _ = _context(session, row, position)
    context = _context_in(row, all_seats, players, position)
    for seat in all_seats:
        if seats is None or seat.seat in seats:

            def subject(reader: Reader, number: int = seat.seat) -> str:
                names = context(reader)["player_names"]
                who = (None if about == number else names[about] if about is not None
                       else reader.gettext("A player"))
                return subject_line(clock_event(event, who, reader),
                                    title_of(row, names, number, reader))

            def seat_context(reader: Reader, seat: Seat = seat) -> dict[str, Any]:
                return {**context(reader), "seat": seat, "event": event,
                        "text": _words(text, reader)}

            enqueue(session, now, site, row=row, seat=seat, player=players[seat.player_id],
                    kind="clock", subject=subject, context=seat_context)


NEEDS_ATTENTION = N_("Needs your attention:")
log = logging.getLogger(__name__)


def alert_recipients(session: Session, now: datetime, site: Site, row: GameRecord
                     ) -> list[tuple[Player, Reader]]:
    """Who is told when ``row`` needs an organiser's decision, each with the language to tell
    them in: the game's organiser (their own language) and every address of PBEM_ALERT_EMAILS
    (the site's language), once each. So a game made without an organiser (``pbem create-game``
    without ``--organiser``, say) still reaches the site's operators.

    The one rule for every alert (bounce, hold, decline, a computer player's failure): they
    all go through :func:`alert_organiser`."""
    organiser = session.get(Player, row.organiser_id) if row.organiser_id else None
    alerted = [player_for(session, now, PlayerSpec("Organiser", address))
               for address in site.alert_emails]
    unique: dict[int | None, tuple[Player, Reader]] = {}
    if organiser is not None:
        unique[organiser.id] = (organiser, site.reader_for(organiser))
    for player in alerted:
        unique.setdefault(player.id, (player, Reader(supported(site.default_language),
                                                    player.time_zone or "UTC")))
    return list(unique.values())


def alert_organiser(session: Session, now: datetime, site: Site, row: GameRecord, text: Words, *,
                    event: str = "hold", headline: Words = NEEDS_ATTENTION,
                    position: Position | None = None) -> bool:
    """Email :func:`alert_recipients`; False if there is nobody (logged: the operator should
    set PBEM_ALERT_EMAILS). The email links to the game on the dashboard, where what ``text``
    offers is done. ``position``: the row's, if decoded already."""
    unique = alert_recipients(session, now, site, row)
    if not unique:
        log.warning("game %s needs an organiser (%s) but has none, and PBEM_ALERT_EMAILS is "
                    "empty: nobody was told", row.id, event)
        return False
    position = position or Position.of(row)
    seats, players, english = _context(session, row, position)
    context = _context_in(row, seats, players, position)
    names = english["player_names"]
    dashboard = f"{site.links.base_url}/admin/games/{row.id}"

    def subject(reader: Reader) -> str:
        said = reader.gettext(headline) if isinstance(headline, str) else headline(reader)
        return subject_line(reader.gettext("[organiser] %(headline)s", headline=said),
                            subject_of(row, names, reader))

    for recipient, reader in unique:
        enqueue(session, now, site, row=row, seat=None, player=recipient, kind="clock",
                subject=subject, reader=reader,
                context=lambda reader: {**context(reader), "seat": None, "event": event,
                                        "text": _words(text, reader),
                                        "dashboard_url": dashboard})
    return True


def handle_due_game(session: Session, now: datetime, site: Site, game_id: int, ply: int) -> str:
    """One unit of the sweep: what it did ("reminder", a policy name, or "skipped")."""
    row = lock_game(session, game_id)
    clock = clock_of(session, game_id)
    if (row.status != GameStatus.ACTIVE or clock.paused_at is not None
            or clock.held_since is not None):
        if clock.next_due_at is not None:  # ended or stopped by a path that left it indexed
            refresh_due(session, row)
            session.add(row)
        return "skipped"
    if row.ply != ply or clock.next_due_at is None or clock.next_due_at > now:
        return "skipped"  # done by an earlier sweep, or the player moved meanwhile
    if clock.deadline is not None and clock.deadline <= now:
        return apply_timeout(session, now, site, row)
    return send_due_reminder(session, now, site, row)


def send_due_reminder(session: Session, now: datetime, site: Site, row: GameRecord) -> str:
    """Send the turn's due reminder; reminders missed while the scheduler was down are not sent
    one after the other: only the latest, and all count as sent."""
    clock = clock_of(session, row.id)
    assert clock.deadline is not None and clock.turn_started_at is not None
    sent = set(clock.reminders_sent or [])
    due = [r for r in reminder_times(clock.deadline, clock.turn_started_at,
                                     reminder_offsets(clock))
           if r.at <= now and r.before // SECOND not in sent]
    if due:
        clock.reminders_sent = sorted(sent | {r.before // SECOND for r in due})
        position = Position.of(row)
        seats, players, english = _context(session, row, position)
        context = _context_in(row, seats, players, position)
        seat = seats[row.to_move or 0]
        assert row.id is not None
        left = _rounded(clock.deadline - now)
        policy = clock.timeout_policy or default_timeout_policy(row.game_type)
        names = english["player_names"]
        move_url = site.links.move_url(row.id, seat.seat, row.ply, holder=seat.player_id)
        enqueue(session, now, site, row=row, seat=seat, player=players[seat.player_id],
                kind="reminder",
                subject=lambda reader: subject_line(
                    reader.gettext("Reminder: %(left)s left in",
                                   left=spoken_duration(left, reader)),
                    title_of(row, names, seat.seat, reader)),
                context=lambda reader: {
                    **context(reader), "seat": seat, "before": format_duration(left),
                    "time_left": spoken_duration(left, reader),
                    "policy_text": reader.gettext(policy_label(policy, len(seats))),
                    "move_url": move_url})
        audit(session, now, "reminder sent", game_id=row.id, seat=seat.seat, ply=row.ply,
              before=format_duration(due[-1].before))
    refresh_due(session, row)
    session.add(row)
    return "reminder" if due else "skipped"


def spoken_duration(length: timedelta, reader: Reader = ENGLISH) -> str:
    """``"1 day 2 hours"``, ``"30 minutes"``: a duration as a person says it (the two largest
    units are enough for "about")."""
    return describe_duration(length, reader, units=2)


def _rounded(left: timedelta) -> timedelta:
    """Whole hours above an hour (a reminder swept a minute late still says "24h"), else minutes."""
    unit = timedelta(hours=1) if left >= timedelta(hours=1) else timedelta(minutes=1)
    return max(round(left / unit) * unit, timedelta(0))


def apply_timeout(session: Session, now: datetime, site: Site, row: GameRecord) -> str:
    """The clock of the seat to move ran out: apply the game's policy; returns its name."""
    assert row.id is not None
    clock = clock_of(session, row.id)
    assert row.to_move is not None and clock.deadline is not None
    policy = clock.timeout_policy or default_timeout_policy(row.game_type)
    position = Position.of(row)  # decoded once: the turn, its emails and the notices share it
    seats, players, _ = _context(session, row, position)
    context = _context_in(row, seats, players, position)
    seat = row.to_move
    deadline = clock.deadline
    if seats[seat].stand_in:
        return "skipped"  # the computer already has this turn: the sweep's bot pass plays it

    def why(reader: Reader) -> str:
        return reader.gettext("%(player)s did not move in time: the deadline was %(deadline)s.",
                              player=context(reader)["labels"][seat],
                              deadline=reader.when(deadline))
    audit(session, now, "timeout", game_id=row.id, seat=seat, ply=row.ply, policy=policy)
    if policy == "hold":
        clock.held_since = now
        refresh_due(session, row)
        session.add(row)
        told = alert_organiser(session, now, site, row, lambda reader: " ".join((
            why(reader), reader.gettext(
                "This game's timeout policy is 'hold': it waits for you to decide. Extend the "
                "deadline, or adjudicate the game, from the dashboard."))), position=position)
        waits = (N_("The game now waits for the organiser to decide.") if told else
                 N_("The game now waits for the organiser to decide (no organiser is set to "
                    "tell)."))
        clock_notice(session, now, site, row, "hold",
                     lambda reader: " ".join((why(reader), reader.gettext(waits))), about=seat,
                     position=position)
        return policy
    if policy == "grace" and not clock.grace_used:
        length = timedelta(seconds=clock.turn_bank_seconds or 0)
        clock.grace_used = True
        clock.turn_started_at = clock.deadline
        set_deadline(session, row)
        session.add(row)
        clock_notice(session, now, site, row, "grace", lambda reader: " ".join((
            why(reader), reader.gettext(
                "Under this game's timeout policy (grace), the turn gets %(length)s more, once; "
                "after that the server will pass or play a random move for them.",
                length=short_duration(length, reader)))), about=seat, position=position)
        return "grace"
    if policy == "bot":
        seats[seat].stand_in = "turn"
        session.add(seats[seat])
        clock_notice(session, now, site, row, "timeout", lambda reader: " ".join((
            why(reader), reader.gettext(
                "Under this game's timeout policy (bot), the computer plays this turn for them; "
                "they play on from their next turn."))), about=seat, position=position)
        return "bot"
    if policy in ("forfeit", "forfeit-bot"):
        return _forfeit(session, now, site, row, seats, why, position,
                        computer=policy == "forfeit-bot")
    events = play_moves(session, now, site, row, _timed_out(policy, seat), position=position)
    mine = [event.move for event in events
            if isinstance(event, MovePlayed) and event.move.source == MoveSource.TIMEOUT]
    played = [move.notation for move in mine]
    passed = mine[-1].note == TIMED_OUT_PASS
    did = (N_("Under this game's timeout policy (%(policy)s), the server passed for them: "
              "%(moves)s.") if passed else
           N_("Under this game's timeout policy (%(policy)s), the server played a random legal "
              "move for them: %(moves)s."))
    clock_notice(session, now, site, row, "timeout", lambda reader: " ".join((
        why(reader), reader.gettext(did, policy=policy, moves=", ".join(played)))), about=seat,
        position=position)
    return policy


# The notes on the moves the server plays for a player whose clock ran out (shown in each
# reader's language: pbem.services.notify.SERVER_NOTES).
TIMED_OUT_PASS = N_("timed out: the server passed for them")
TIMED_OUT_RANDOM = N_("timed out: the server played a random legal move for them")


def _timed_out(policy: str, seat: int) -> Steps:
    """The steps the server plays for ``seat``, whose clock ran out, until its turn passes on
    (a turn of several steps is finished the same way): a pass where the policy wants one and
    the rules allow it, else a random move seeded by the game's seed and the ply."""
    steps = iter(range(MAX_STEPS))

    def step(row: GameRecord, position: Position) -> Step | None:
        if row.status != GameStatus.ACTIVE or row.to_move != seat or next(steps, None) is None:
            return None
        game = position.game
        legal = game.legal_moves(position.state)
        if policy in ("pass", "grace") and any(str(m) == "pass" for m in legal):
            return Step(next(m for m in legal if str(m) == "pass"), MoveSource.TIMEOUT,
                        TIMED_OUT_PASS)
        return Step(game.random_move(position.as_stored(row), seeded_rng(row)),
                    MoveSource.TIMEOUT, TIMED_OUT_RANDOM)

    return step


def _forfeit(session: Session, now: datetime, site: Site, row: GameRecord, seats: list[Seat],
             why: Callable[[Reader], str], position: Position, *, computer: bool = False) -> str:
    assert row.to_move is not None
    loser = seats[row.to_move]
    loser.forfeited = True
    session.add(loser)
    game, state = position.game, position.state
    players = players_of(session, seats)
    labels = labels_for(game, state, [players[s.player_id].name for s in seats])
    others = others_in_play(seats, loser.seat)
    if not plays_on(others, players):  # two seats, or the last person but one in play
        winners = [s.seat for s in others]
        end_game(session, row, now, result=forfeit_sentence(labels, loser.seat, winners),
                 winners=winners)
        session.add(row)
        clock_notice(session, now, site, row, "forfeit", lambda reader: " ".join((
            why(reader), reader.gettext(
                "Under this game's timeout policy (forfeit), they lose the game."))),
            about=loser.seat, position=position)
        publish_game_over(session, now, site, row, game, state, seats)
        return "forfeit"
    if computer:  # the sweep's bot pass plays the seat from now on
        loser.stand_in = "game"
        session.add(loser)
    stand_in = (N_("Under this game's timeout policy (forfeit-bot), they are out of the game; the "
                   "computer plays their seat to the end so the others can finish.") if computer
                else N_("Under this game's timeout policy (forfeit), they are out of the game; a "
                        "stand-in plays random moves for their seat to the end so the others "
                        "can finish."))
    clock_notice(session, now, site, row, "forfeit",
                 lambda reader: " ".join((why(reader), reader.gettext(stand_in))),
                 about=loser.seat, position=position)
    play_moves(session, now, site, row, position=position)  # the stand-in's moves, if any
    return "forfeit"
