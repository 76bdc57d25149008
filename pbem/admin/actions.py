"""What an organiser can do to a game that the players' services do not already offer.

Like every service these run in the caller's transaction and take ``now``; each writes an audit
entry naming the organiser (``actor``) and puts its emails into the outbox.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from engine.text import Text
from pbem.i18n import Reader
from pbem.models import GameRecord, GameStatus, Player, Seat, SeatReplacement, SeatStatus
from pbem.positions import current_state, last_notation
from pbem.services import PlayerSpec, ServiceError, Site, abort_game
from pbem.services.common import (
    GameNotActive,
    audit,
    end_game,
    lock_game,
    players_of,
    seats_of,
    shown_name,
    shown_names,
)
from pbem.services.moves import publish_game_over
from pbem.services.notify import board_ref, enqueue, game_context, subject_line, title_of
from pbem.services.players import player_for
from pbem.services.results import adjudication_sentence, in_words, labels_for
from pbem.services.turn_mail import send_turn_notice


def welcome_new_players(session: Session, now: datetime, players: Sequence[PlayerSpec],
                        language: str) -> list[Player]:
    """Make the players among ``players`` that pbem does not know yet, speaking ``language``
    (the organiser's choice when creating a game); known players keep the language they have.

    Called before the game is created in the same transaction, so the invitations are written
    in each player's language; the game's service then finds these players by their address.
    Computer players are left to the service (they read nothing)."""
    people = {spec.email.lower(): spec for spec in players if spec.bot_level is None}
    known = set(session.exec(select(Player.email).where(col(Player.email).in_(people))).all())
    made = [Player(name=spec.name, email=email, created_at=now, language=language)
            for email, spec in people.items() if email not in known]
    session.add_all(made)
    session.flush()
    return made


def resend_turn_email(session: Session, now: datetime, site: Site, *, game_id: int,
                      actor: str) -> GameRecord:
    """The player to move gets their turn email again (same link: the turn has not changed)."""
    row = lock_game(session, game_id)
    if row.status != GameStatus.ACTIVE or row.to_move is None:
        raise GameNotActive(Text("nobody is to move in this game, so there is no turn email "
                                 "to resend"))
    game, state = current_state(row)
    seats = seats_of(session, game_id)
    send_turn_notice(session, now, site, row, game, state, seats)
    audit(session, now, "turn email resent", game_id=game_id, actor=actor, seat=row.to_move)
    return row


def replace_player(session: Session, now: datetime, site: Site, *, game_id: int, seat: int,
                   new_player: PlayerSpec, actor: str, admin_id: int | None = None) -> Seat:
    """Put ``new_player`` on ``seat``: they get fresh links, and the links the previous player
    was sent stop working (see :mod:`pbem.links`)."""
    row = lock_game(session, game_id)
    if row.status not in (GameStatus.INVITED, GameStatus.ACTIVE):
        raise GameNotActive(Text("this game is over; its players can no longer be changed"))
    seats = seats_of(session, game_id)
    if not 0 <= seat < len(seats):
        raise ServiceError(Text("there is no such seat in this game"))
    mine = seats[seat]
    player = player_for(session, now, new_player)
    assert player.id is not None and row.id is not None
    if player.id == mine.player_id:
        raise ServiceError(Text("that player already has this seat"))
    if any(s.player_id == player.id for s in seats):
        raise ServiceError(Text("%(email)s already plays another seat in this game",
                                email=player.email))
    old_player_id, old_thread = mine.player_id, mine.thread_message_id
    mine.player_id = player.id
    mine.thread_message_id = ""  # the new player's mail starts a thread of its own
    mine.status = SeatStatus.INVITED if row.status == GameStatus.INVITED else SeatStatus.ACCEPTED
    # A substitute plays the seat for themselves, even one its player had left (resigned or
    # forfeited on time) to the computer.
    mine.resigned = mine.forfeited = False
    mine.stand_in = None
    session.add(mine)
    session.add(SeatReplacement(game_id=game_id, seat=seat, old_player_id=old_player_id,
                                new_player_id=player.id, admin_id=admin_id, at=now))
    session.flush()
    audit(session, now, "player replaced", game_id=game_id, player_id=player.id, actor=actor,
          seat=seat, old_player_id=old_player_id, new_email=player.email)
    # Every seat link in the welcome is signed for ``mine.player_id``, the new holder, which
    # the seats table shows others only once this transaction commits.
    _welcome(session, now, site, row, seats, mine)
    _tell_of_replacement(session, now, site, row, seats, mine, old_player_id, old_thread)
    return mine


def _welcome(session: Session, now: datetime, site: Site, row: GameRecord, seats: list[Seat],
             seat: Seat) -> None:
    """The new player's first email, with the rules and the position: an invitation, their
    turn, or a welcome to the running game."""
    assert row.id is not None
    game, state = current_state(row)
    if row.status == GameStatus.ACTIVE and row.to_move == seat.seat:
        send_turn_notice(session, now, site, row, game, state, seats, welcome=True)
        return
    players = players_of(session, seats)
    invited = row.status == GameStatus.INVITED
    board = None if invited else board_ref(
        game, state, row.ply, seat.seat, last_notation(session, row.id),
        game_context(row, game, state, seats, players)["labels"])

    def context(reader: Reader) -> dict[str, object]:
        shared = game_context(row, game, state, seats, players, reader)
        if invited:
            assert row.id is not None
            return {**shared, "seat": seat, "welcome": True,
                    "invite_url": site.links.invite_url(row.id, seat.seat,
                                                        holder=seat.player_id)}
        return {**shared, "seat": seat, "event": "welcome",
                "text_board": shared["text_board_for"](seat.seat),
                "describe": in_words(game.describe(state, seat.seat), shared["names"],
                                     shared["labels"], reader)}

    def subject(reader: Reader) -> str:
        title = title_of(row, shown_names(seats, players, reader), seat.seat, reader)
        event = reader.gettext("Invitation:") if invited else reader.gettext("Welcome:")
        return subject_line(event, title)

    enqueue(session, now, site, row=row, seat=seat, player=players[seat.player_id],
            kind="invitation" if invited else "notice", subject=subject, board=board,
            context=context)


def _tell_of_replacement(session: Session, now: datetime, site: Site, row: GameRecord,
                         seats: list[Seat], mine: Seat, old_player_id: int,
                         old_thread: str) -> None:
    """The replaced player learns that the seat is no longer theirs (in their old thread, with
    no seat links: those are dead now), and the other players who their new opponent is."""
    assert row.id is not None
    game, state = current_state(row)
    players = players_of(session, seats)
    old = session.get(Player, old_player_id)
    assert old is not None
    def names(reader: Reader) -> list[str]:  # a computer's name in the reader's language
        return shown_names(seats, players, reader)

    def context(reader: Reader, seat: Seat | None, **extra: object) -> dict[str, object]:
        return {**game_context(row, game, state, seats, players, reader), "seat": seat, **extra}

    enqueue(session, now, site, row=row, seat=None, player=old, kind="notice",
            subject=lambda reader: subject_line(reader.gettext("You were replaced:"),
                                                title_of(row, names(reader), mine.seat, reader)),
            thread=old_thread,
            context=lambda reader: context(reader, None, event="replaced",
                                           seat_number=mine.seat,
                                           substitute_name=names(reader)[mine.seat]))
    for seat in seats:
        if seat.seat != mine.seat and seat.status != SeatStatus.DECLINED:
            def subject(reader: Reader, seat: Seat = seat) -> str:
                return subject_line(
                    reader.gettext("%(substitute)s replaces %(old)s:",
                                   substitute=names(reader)[mine.seat],
                                   old=shown_name(old, reader)),
                    title_of(row, names(reader), seat.seat, reader))

            def seat_context(reader: Reader, seat: Seat = seat) -> dict[str, Any]:
                return context(
                    reader, seat, event="substitute", replaced_name=shown_name(old, reader),
                    substitute_label=game_context(row, game, state, seats, players,
                                                  reader)["labels"][mine.seat])

            enqueue(session, now, site, row=row, seat=seat, player=players[seat.player_id],
                    kind="notice", subject=subject, context=seat_context)


def adjudicate(session: Session, now: datetime, site: Site, *, game_id: int,
               winners: Sequence[int], reason: str, actor: str) -> GameRecord:
    """End a running game with the organiser's result: ``winners`` are seats (none: a draw).
    A rated game becomes unrated first (the audit entry says ``unrated``): ratings count
    results that were played."""
    row = lock_game(session, game_id)
    if row.status != GameStatus.ACTIVE:
        raise GameNotActive(Text("only a running game can be adjudicated"))
    seats = seats_of(session, game_id)
    if any(not 0 <= w < len(seats) for w in winners) or len(set(winners)) != len(winners):
        raise ServiceError(Text("choose the winners among the game's seats"))
    game, state = current_state(row)
    players = players_of(session, seats)
    labels = labels_for(game, state, [players[s.player_id].name for s in seats])
    # The organiser's result is not a played one: it never counts for ratings.
    was_rated, row.rated = row.rated, False
    end_game(session, row, now, winners=list(winners),
             result=adjudication_sentence(labels, winners, reason))
    session.add(row)
    audit(session, now, "game adjudicated", game_id=game_id, actor=actor, winners=list(winners),
          reason=reason, **({"unrated": True} if was_rated else {}))
    publish_game_over(session, now, site, row, game, state, seats)
    return row


def abort(session: Session, now: datetime, site: Site, *, game_id: int, reason: str,
          actor: str) -> GameRecord:
    row = abort_game(session, now, site, game_id=game_id, reason=reason)
    audit(session, now, "abort requested", game_id=game_id, actor=actor, reason=reason)
    return row
