"""What the sweep does to one due game: a reminder, or the game's timeout policy, and the emails.

:func:`handle_due_game` is one unit of work, run in its own short transaction: it locks the game,
re-checks that it is still at the ply the sweep saw and still due, and records what it did in the
same transaction as the emails (a reminder marked sent, a timeout move played). So a sweep that runs
twice, or again after a crash, finds nothing left to do for work already done.

The policies (:data:`~pbem.clock.deadlines.POLICIES`):

- ``pass``: the server passes for the player where a pass is legal, else plays a random move;
- ``random``: a random legal move, seeded by the game's seed and the ply (reproducible);
- ``forfeit``: the player loses; with three or more players a stand-in plays their seat randomly
  to the end, so the others can finish;
- ``grace``: once per turn, the clock gets the turn's time again; after that, pass or random;
- ``hold``: the game waits and the organiser is alerted by email; extending the deadline (or
  adjudicating) releases it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

from pbem.clock.controls import format_duration, reminder_times
from pbem.clock.deadlines import (
    POLICY_LABELS,
    SECOND,
    default_timeout_policy,
    refresh_due,
    reminder_offsets,
    set_deadline,
)
from pbem.models import Game, GameStatus, MoveSource, Player, Seat
from pbem.positions import current_state
from pbem.services.common import Site, audit, end_game, lock_game, players_of, seats_of
from pbem.services.moves import (
    apply_move,
    play_automatic_moves,
    seeded_rng,
    send_game_over,
    send_move_emails,
)
from pbem.services.notify import enqueue, game_context, subject_line, subject_of, title_of
from pbem.services.results import forfeit_sentence, labels_for
from pbem.templating import local_time

MAX_STEPS = 100  # steps of one turn the server plays for a timed-out player; far above any game


def _context(session: Session, row: Game) -> tuple[list[Seat], dict[int, Player], dict[str, Any]]:
    assert row.id is not None
    seats = seats_of(session, row.id)
    players = players_of(session, seats)
    game, state = current_state(row)
    return seats, players, game_context(row, game, state, seats, players)


# What a clock notice's subject says first, by event; "{who}" is the seat the clock ran out for.
CLOCK_EVENTS = {
    "extended": "Deadline extended:",
    "paused": "Game paused:",
    "resumed": "Game resumed:",
    "hold": "{who} ran out of time, the game waits:",
    "grace": "{who} ran out of time, extra time once:",
    "timeout": "{who} ran out of time, the server moved:",
    "forfeit": "{who} ran out of time and forfeits:",
}


def clock_event(event: str, who: str) -> str:
    """The start of a clock notice's subject: "Bob ran out of time, the game waits:"."""
    return CLOCK_EVENTS.get(event, "Clock:").format(who=who)


def clock_notice(
    session: Session, now: datetime, site: Site, row: Game, event: str, text: str,
    *, seats: Sequence[int] | None = None, about: int | None = None,
) -> None:
    """An essential email to every seat (or ``seats``): what happened to the clock, and why.
    ``about`` is the seat whose clock ran out: the subject names them, or says "You"."""
    all_seats, players, context = _context(session, row)
    names = context["player_names"]
    for seat in all_seats:
        if seats is None or seat.seat in seats:
            who = "You" if about == seat.seat else (names[about] if about is not None
                                                    else "A player")
            enqueue(session, now, site, row=row, seat=seat, player=players[seat.player_id],
                    kind="clock",
                    subject=subject_line(clock_event(event, who),
                                         title_of(row, names, seat.seat)),
                    context={**context, "seat": seat, "event": event, "text": text})


def alert_organiser(session: Session, now: datetime, site: Site, row: Game, text: str, *,
                    event: str = "hold", headline: str = "Needs your attention:") -> bool:
    """Email the game's organiser and the site's alert addresses; False if there is nobody.
    The email links to the game on the dashboard, where what ``text`` offers is done."""
    from pbem.services.games import PlayerSpec, player_for  # games imports this package

    recipients = [session.get(Player, row.organiser_id)] if row.organiser_id else []
    recipients += [player_for(session, now, PlayerSpec("Organiser", address))
                   for address in site.alert_emails]
    unique = {p.id: p for p in recipients if p is not None}
    if not unique:
        return False
    _, _, context = _context(session, row)
    subject = subject_line(f"[organiser] {headline}", subject_of(row, context["player_names"]))
    dashboard = f"{site.links.base_url}/admin/games/{row.id}"
    for organiser in unique.values():
        enqueue(session, now, site, row=row, seat=None, player=organiser, kind="clock",
                subject=subject, context={**context, "seat": None, "event": event,
                                          "text": text, "dashboard_url": dashboard})
    return True


def handle_due_game(session: Session, now: datetime, site: Site, game_id: int, ply: int) -> str:
    """One unit of the sweep: what it did ("reminder", a policy name, or "skipped")."""
    row = lock_game(session, game_id)
    if row.status != GameStatus.ACTIVE or row.paused_at is not None or row.held_since is not None:
        if row.next_due_at is not None:  # ended or stopped by a path that left it indexed
            refresh_due(row)
            session.add(row)
        return "skipped"
    if row.ply != ply or row.next_due_at is None or row.next_due_at > now:
        return "skipped"  # done by an earlier sweep, or the player moved meanwhile
    if row.deadline is not None and row.deadline <= now:
        return apply_timeout(session, now, site, row)
    return send_due_reminder(session, now, site, row)


def send_due_reminder(session: Session, now: datetime, site: Site, row: Game) -> str:
    """Send the turn's due reminder; reminders missed while the scheduler was down are not sent
    one after the other: only the latest, and all count as sent."""
    assert row.deadline is not None and row.turn_started_at is not None
    sent = set(row.reminders_sent or [])
    due = [r for r in reminder_times(row.deadline, row.turn_started_at, reminder_offsets(row))
           if r.at <= now and r.before // SECOND not in sent]
    if due:
        row.reminders_sent = sorted(sent | {r.before // SECOND for r in due})
        seats, players, context = _context(session, row)
        seat = seats[row.to_move or 0]
        assert row.id is not None
        left = _rounded(row.deadline - now)
        policy = row.timeout_policy or default_timeout_policy(row.game_type)
        spoken = spoken_duration(left)
        enqueue(session, now, site, row=row, seat=seat, player=players[seat.player_id],
                kind="reminder",
                subject=subject_line(f"Reminder: {spoken} left in",
                                     title_of(row, context["player_names"], seat.seat)),
                context={**context, "seat": seat, "before": format_duration(left),
                         "time_left": spoken,
                         "policy_text": POLICY_LABELS[policy],
                         "move_url": site.links.move_url(row.id, seat.seat, row.ply,
                                                             holder=seat.player_id)})
        audit(session, now, "reminder sent", game_id=row.id, seat=seat.seat, ply=row.ply,
              before=format_duration(due[-1].before))
    refresh_due(row)
    session.add(row)
    return "reminder" if due else "skipped"


def spoken_duration(length: timedelta) -> str:
    """``"1 day 2 hours"``, ``"30 minutes"``: a duration as a person says it (the two largest
    units are enough for "about")."""
    minutes = max(int(length.total_seconds() // 60), 0)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [f"{n} {unit}{'' if n == 1 else 's'}"
             for n, unit in ((days, "day"), (hours, "hour"), (minutes, "minute")) if n]
    return " ".join(parts[:2]) or "no time"


def _rounded(left: timedelta) -> timedelta:
    """Whole hours above an hour (a reminder swept a minute late still says "24h"), else minutes."""
    unit = timedelta(hours=1) if left >= timedelta(hours=1) else timedelta(minutes=1)
    return max(round(left / unit) * unit, timedelta(0))


def apply_timeout(session: Session, now: datetime, site: Site, row: Game) -> str:
    """The clock of the seat to move ran out: apply the game's policy; returns its name."""
    assert row.id is not None and row.to_move is not None and row.deadline is not None
    policy = row.timeout_policy or default_timeout_policy(row.game_type)
    seats, _, context = _context(session, row)
    seat = row.to_move
    who = context["labels"][seat]
    why = f"{who} did not move in time: the deadline was {local_time(row.deadline)}."
    audit(session, now, "timeout", game_id=row.id, seat=seat, ply=row.ply, policy=policy)
    if policy == "hold":
        row.held_since = now
        refresh_due(row)
        session.add(row)
        told = alert_organiser(session, now, site, row, f"{why} This game's timeout policy is "
                               "'hold': it waits for you to decide. Extend the deadline, or "
                               "adjudicate the game, from the dashboard.")
        clock_notice(session, now, site, row, "hold", f"{why} The game now waits for the "
                     f"organiser to decide{'' if told else ' (no organiser is set to tell)'}.",
                     about=seat)
        return policy
    if policy == "grace" and not row.grace_used:
        length = timedelta(seconds=row.turn_bank_seconds or 0)
        row.grace_used = True
        row.turn_started_at = row.deadline
        set_deadline(session, row)
        session.add(row)
        clock_notice(session, now, site, row, "grace",
                     f"{why} Under this game's timeout policy (grace), the turn gets"
                     f" {format_duration(length)} more, once; after that the server will pass or"
                     " play a random move for them.", about=seat)
        return "grace"
    if policy == "forfeit":
        return _forfeit(session, now, site, row, seats, why)
    played = []
    for _ in range(MAX_STEPS):  # a turn of several steps is finished the same way
        move, how = _stand_in_move(row, policy)
        apply_move(session, now, row, move, source=MoveSource.TIMEOUT,
                   note=f"timed out: the server {how}")
        played.append(str(move))
        if row.status != GameStatus.ACTIVE or row.to_move != seat:
            break
    automatic = play_automatic_moves(session, now, row)
    send_move_emails(session, now, site, row, mover=seat, automatic=bool(automatic))
    clock_notice(session, now, site, row, "timeout",
                 f"{why} Under this game's timeout policy ({policy}), the server {how}: "
                 f"{', '.join(played)}.", about=seat)
    return policy


def _stand_in_move(row: Game, policy: str) -> tuple[Any, str]:
    """A pass where the policy wants one and the rules allow it, else a seeded random move."""
    game, state = current_state(row)
    legal = game.legal_moves(state)
    if policy in ("pass", "grace") and any(str(m) == "pass" for m in legal):
        return next(m for m in legal if str(m) == "pass"), "passed for them"
    return game.random_move(state, seeded_rng(row)), "played a random legal move for them"


def _forfeit(session: Session, now: datetime, site: Site, row: Game, seats: list[Seat],
             why: str) -> str:
    assert row.to_move is not None
    loser = seats[row.to_move]
    loser.forfeited = True
    session.add(loser)
    game, state = current_state(row)
    players = players_of(session, seats)
    labels = labels_for(game, state, [players[s.player_id].name for s in seats])
    if len(seats) <= 2:
        winners = [s.seat for s in seats if s.seat != loser.seat and not s.resigned]
        end_game(row, now, result=forfeit_sentence(labels, loser.seat, winners), winners=winners)
        session.add(row)
        clock_notice(session, now, site, row, "forfeit",
                     f"{why} Under this game's timeout policy (forfeit), they lose the game.",
                     about=loser.seat)
        send_game_over(session, now, site, row, game, state, seats)
        return "forfeit"
    clock_notice(session, now, site, row, "forfeit",
                 f"{why} Under this game's timeout policy (forfeit), they are out of the game; a"
                 " stand-in plays random moves for their seat to the end so the others can"
                 " finish.", about=loser.seat)
    automatic = play_automatic_moves(session, now, row)
    send_move_emails(session, now, site, row, mover=loser.seat, automatic=bool(automatic))
    return "forfeit"
