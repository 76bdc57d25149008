"""What players see in their mail: subjects that say what happened, results as sentences with
names, a text board in the plain-text part, HTML that fits a phone, and notices about replaced
players and declined invitations."""

from __future__ import annotations

import html
import random
import re
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlmodel import col, select

import engine
from pbem.admin import actions
from pbem.db import Database
from pbem.models import GameRecord, OutboxEmail
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, create_game, resign, respond_to_invitation, submit_move
from pbem.services.notify import subject_line, text_board
from pbem.services.results import labels_for, result_sentence
from tests.support import ClockGames, start_a_game

PEOPLE = ["Alice", "Bob", "Cy", "Dee", "Eve"]
LONG_RUN = 40  # characters without a break that a 360 px screen cannot show


def _people(count: int) -> list[PlayerSpec]:
    return [PlayerSpec(name, f"{name.lower()}@example.test") for name in PEOPLE[:count]]


def _start(database: Database, now: datetime, site: Site, game_id: str,
           options: dict[str, object] | None = None) -> int:
    options = options if options is not None else {
        o.name: o.choices[0] for o in engine.GAMES[game_id].options}
    count = engine.new_game(game_id, **options).num_players
    return start_a_game(database, now, site, game_id, options, players=_people(count))


def _row(database: Database, game_pk: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None
    return row


def _mail(database: Database, game_pk: int, kind: str | None = None,
          to: str | None = None) -> list[OutboxEmail]:
    with database.session() as session:
        query = select(OutboxEmail).where(OutboxEmail.game_id == game_pk)
        if kind:
            query = query.where(OutboxEmail.kind == kind)
        if to:
            query = query.where(OutboxEmail.to_address == to)
        return list(session.exec(query.order_by(col(OutboxEmail.id))))


def _address(name: str) -> str:
    return f"{name.lower()}@example.test"


def _jump(database: Database, game_pk: int, seed: int, *, plies: int | None = None) -> Any:
    """Put the game at a real position of a random game: ``plies`` moves on, or one move before
    its end; returns the move that comes next there."""
    row = _row(database, game_pk)
    game, state = current_state(row)
    rng = random.Random(seed)
    history, moves = [state], []
    while game.outcome(history[-1]) is None and (plies is None or len(history) <= plies + 1):
        moves.append(game.random_move(history[-1], rng))
        history.append(game.play(history[-1], moves[-1]))
    target, move = history[-2], moves[-1]  # the random game's own next move
    with database.write() as session:
        stored = session.get(GameRecord, game_pk)
        assert stored is not None
        stored.state = game.encode(target)
        stored.to_move = game.to_move(target)
        session.add(stored)
    return move


def _play(database: Database, now: datetime, site: Site, game_pk: int, move: Any) -> None:
    row = _row(database, game_pk)
    assert row.id is not None and row.to_move is not None
    with database.write() as session:
        submit_move(session, now, site, game_id=row.id, seat=row.to_move, ply=row.ply,
                    text=str(move))


def _play_to_turn_mail(database: Database, now: datetime, site: Site, game_pk: int,
                       move: Any) -> OutboxEmail:
    """Play ``move``, then random moves, until a turn email goes out (a turn of several steps
    sends none until it ends); returns that email."""
    before = len(_mail(database, game_pk, "turn"))
    for step in range(200):
        game, state = current_state(_row(database, game_pk))
        if str(move) == "pass":  # two passes end some games: play on instead
            move = next((m for m in game.legal_moves(state) if str(m) != "pass"), move)
        _play(database, now, site, game_pk, move)
        turns = _mail(database, game_pk, "turn")
        if len(turns) > before:
            return turns[-1]
        game, state = current_state(_row(database, game_pk))
        move = game.random_move(state, random.Random(step))
    raise AssertionError("no turn email in 200 moves")


def _html_text(body: str) -> str:
    """What an HTML email shows as text: no tags, no style, entities read."""
    body = re.sub(r"<(style|head)\b.*?</\1>", " ", body, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def _long_runs(body: str) -> list[str]:
    return [run for run in _html_text(body).split() if len(run) > LONG_RUN]


def _one_line(subject: str) -> bool:
    return not re.search(r"[\x00-\x1f\x7f\u2028\u2029]", subject)


# -- results and the game-over email ----------------------------------------------------------


def test_game_over_mail_tells_each_player_the_result_in_words(
    sqlite_database: Database, now: datetime, site: Site, game_id: str,
) -> None:
    game_pk = _start(sqlite_database, now, site, game_id)
    _play(sqlite_database, now, site, game_pk, _jump(sqlite_database, game_pk, seed=3))
    row = _row(sqlite_database, game_pk)
    assert row.status == "finished"
    game, state = current_state(row)
    names = PEOPLE[:game.num_players]
    labels = labels_for(game, state, names)
    assert row.result == result_sentence(game, state, labels)
    winners = row.winners or []
    for seat, name in enumerate(names):
        mail = _mail(sqlite_database, game_pk, "game_over", _address(name))
        assert len(mail) == 1
        email = mail[0]
        others = [n for n in names if n != name]
        assert others[0] in email.subject and f"({row.public_id[:6]})" in email.subject
        if not winners:
            assert email.subject.startswith("Game over: a draw in ")
        elif seat in winners:
            assert email.subject.startswith(("Game over: you won ", "Game over: you share"))
            assert "You won" in email.text_body or "You share the win" in email.text_body
        elif len(names) == 2:
            assert email.subject.startswith("Game over: you lost ")
            assert "You lost" in email.text_body
        else:
            assert email.subject.startswith(f"Game over: {names[winners[0]]}")
        assert _one_line(email.subject)
        assert row.result in email.text_body and row.result in _html_text(email.html_body)
        # The plain-text part carries the final position as this seat sees it.
        assert text_board(game, state, seat, labels_for(game, state, names)) in email.text_body
        assert _long_runs(email.html_body) == []
        assert row.seed_commitment[:12] not in email.html_body + email.text_body


@pytest.mark.parametrize("game_id", list(engine.GAMES))
@pytest.mark.parametrize("seed", [1, 2, 5])
def test_results_read_as_sentences_with_names(game_id: str, seed: int) -> None:
    game = engine.new_game(game_id)
    state = game.start(f"seed{seed}")
    rng = random.Random(seed)
    while game.outcome(state) is None:
        state = game.play(state, game.random_move(state, rng))
    outcome = game.outcome(state)
    assert outcome is not None
    names = PEOPLE[:game.num_players]
    labels = labels_for(game, state, names)
    sentence = result_sentence(game, state, labels)
    assert sentence.endswith(".") and "\n" not in sentence
    if outcome.winners:
        winners = " and ".join(labels[w] for w in outcome.winners)
        assert sentence.startswith(winners)
    else:
        assert " drew" in sentence
    for seat_name in game.seat_names(state):
        # A colour only ever appears as a player's label, "Alice (Light)"; "Player 1" never.
        assert not re.search(rf"(?<!\(){re.escape(seat_name)}\b", sentence), sentence


def test_mosey_result_names_winner_colour_and_reason() -> None:
    game = engine.new_game("mosey")
    state = game.start("seed1")
    rng = random.Random(1)
    while game.outcome(state) is None:
        state = game.play(state, game.random_move(state, rng))
    labels = labels_for(game, state, ["Alice", "Bob"])
    assert labels == ["Alice (Light)", "Bob (Dark)"]
    assert result_sentence(game, state, labels) == (
        "Alice (Light) won: Bob (Dark) has no move; in Mosey the last player to move wins.")


def test_a_scored_result_gives_the_score() -> None:
    game = engine.new_game("stigmergy")
    state = game.start("seed1")
    rng = random.Random(1)
    while game.outcome(state) is None:
        state = game.play(state, game.random_move(state, rng))
    labels = labels_for(game, state, ["Alice", "Bob"])
    assert result_sentence(game, state, labels).startswith("Alice (White) won 212-78.5: ")


def test_resigning_names_the_player_and_colour(
    sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = _start(sqlite_database, now, site, "mosey")
    with sqlite_database.write() as session:
        resign(session, now, site, game_id=game_pk, seat=1)
    row = _row(sqlite_database, game_pk)
    assert row.result == "Bob (Dark) resigned; Alice (Light) won."
    subjects = {e.to_address: e.subject for e in _mail(sqlite_database, game_pk, "game_over")}
    assert subjects[_address("Alice")].startswith("Game over: you won Mosey vs Bob (")
    assert subjects[_address("Bob")].startswith("Game over: you lost Mosey vs Alice (")


def test_an_adjudicated_draw(sqlite_database: Database, now: datetime, site: Site) -> None:
    game_pk = _start(sqlite_database, now, site, "mosey")
    with sqlite_database.write() as session:
        actions.adjudicate(session, now, site, game_id=game_pk, winners=[], reason="agreed draw",
                           actor="boss@example.test")
    assert _row(sqlite_database, game_pk).result == (
        "Adjudicated by the organiser: a draw. Agreed draw.")
    for email in _mail(sqlite_database, game_pk, "game_over"):
        assert email.subject.startswith("Game over: a draw in Mosey vs ")
        assert "ended in a draw" in email.text_body


# -- subjects and threads ---------------------------------------------------------------------


def test_subjects_say_what_happened_and_threads_stay(
    sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = _start(sqlite_database, now, site, "mosey")
    row = _row(sqlite_database, game_pk)
    tag = f"({row.public_id[:6]})"
    first = row.to_move or 0
    mover, waiter = PEOPLE[first], PEOPLE[1 - first]
    invitations = {e.to_address: e for e in _mail(sqlite_database, game_pk, "invitation")}
    assert invitations[_address("Alice")].subject == f"Invitation: Mosey vs Bob {tag}"
    assert invitations[_address("Bob")].subject == f"Invitation: Mosey vs Alice {tag}"
    turn = _mail(sqlite_database, game_pk, "turn")
    assert [e.subject for e in turn] == [f"Your turn: Mosey vs {waiter} {tag}"]
    started = _mail(sqlite_database, game_pk, "notice")
    assert [e.subject for e in started] == [f"Game started: Mosey vs {mover} {tag}"]
    _play(sqlite_database, now, site, game_pk, _jump(sqlite_database, game_pk, seed=4, plies=0))
    assert _mail(sqlite_database, game_pk, "turn")[-1].subject == (
        f"Your turn: Mosey vs {mover} {tag}")
    for email in _mail(sqlite_database, game_pk):
        assert _one_line(email.subject)
        assert email.in_reply_to == invitations[email.to_address].message_id or \
            email.kind == "invitation"
        assert _long_runs(email.html_body) == []
        assert "Player 1" not in email.text_body and "Seat 2" not in email.text_body


def test_a_subject_is_one_line_whatever_the_names() -> None:
    subject = subject_line("Your turn:", "Mosey vs Eve\r\nBcc: x\u2028y\tz (abcdef)")
    assert subject == "Your turn: Mosey vs Eve Bcc: x y z (abcdef)"


def test_updates_say_who_moved(sqlite_database: Database, now: datetime, site: Site) -> None:
    game_pk = _start(sqlite_database, now, site, "rifugio", {"players": 3})
    for step in range(60):
        before = _row(sqlite_database, game_pk)
        game, state = current_state(before)
        _play(sqlite_database, now, site, game_pk, game.random_move(state, random.Random(step)))
        if _mail(sqlite_database, game_pk, "update"):
            break
    update = _mail(sqlite_database, game_pk, "update")[0]
    mover = PEOPLE[before.to_move or 0]
    reader = next(n for n in PEOPLE[:3] if _address(n) == update.to_address)
    others = " and ".join(n for n in PEOPLE[:3] if n != reader)
    assert update.subject.startswith(f"{mover} moved: Rifugio vs {others} (")
    after = _row(sqlite_database, game_pk)
    game, state = current_state(after)
    seat = PEOPLE.index(reader)
    assert text_board(game, state, seat, labels_for(game, state, PEOPLE[:3])) in update.text_body


def test_reminder_and_clock_subjects(sqlite_clock_games: ClockGames, now: datetime) -> None:
    game_pk = sqlite_clock_games.start("mosey", now, per_move=timedelta(days=3),
                                       timeout_policy="random")
    row = sqlite_clock_games.game(game_pk)
    tag = f"({row.public_id[:6]})"
    late, other = row.to_move, 1 - row.to_move
    deadline = sqlite_clock_games.clock(game_pk).deadline
    sqlite_clock_games.sweep(deadline - timedelta(hours=2) + timedelta(minutes=1))
    reminders = sqlite_clock_games.emails("reminder")
    assert [e.subject for e in reminders] == [
        f"Reminder: 2 hours left in Mosey vs Player {other} {tag}"]
    assert "in about 2 hours" in reminders[0].text_body
    sqlite_clock_games.sweep(deadline + timedelta(minutes=1))
    notices = {e.to_address: e.subject for e in sqlite_clock_games.emails("clock")}
    assert notices[f"p{late}@example.test"] == (
        f"You ran out of time, the server moved: Mosey vs Player {other} {tag}")
    assert notices[f"p{other}@example.test"] == (
        f"Player {late} ran out of time, the server moved: Mosey vs Player {late} {tag}")


# -- text boards --------------------------------------------------------------------------------


def test_turn_mail_carries_the_text_board(
    sqlite_database: Database, now: datetime, site: Site, game_id: str,
) -> None:
    game_pk = _start(sqlite_database, now, site, game_id)
    turn = _play_to_turn_mail(sqlite_database, now, site, game_pk,
                              _jump(sqlite_database, game_pk, seed=7, plies=6))
    game, state = current_state(_row(sqlite_database, game_pk))
    seat = PEOPLE.index(next(n for n in PEOPLE if _address(n) == turn.to_address))
    board = text_board(game, state, seat, labels_for(game, state, PEOPLE[:game.num_players]))
    assert board in turn.text_body
    if not any(name.startswith("Player ") for name in game.seat_names(state)):
        assert game.render_text(state, seat) in turn.text_body  # the engine's own diagram


def test_a_rifugio_text_board_shows_only_the_seats_own_cards(
    sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = _start(sqlite_database, now, site, "rifugio", {"players": 3})
    turn = _play_to_turn_mail(sqlite_database, now, site, game_pk,
                              _jump(sqlite_database, game_pk, seed=1, plies=40))
    row = _row(sqlite_database, game_pk)
    game, state = current_state(row)
    seat = row.to_move
    assert turn.to_address == _address(PEOPLE[seat])
    names = PEOPLE[:3]
    mine = text_board(game, state, seat, labels_for(game, state, names))
    assert mine in turn.text_body and "Player 1" not in mine
    for other in (s for s in range(3) if s != seat):
        theirs = text_board(game, state, other, labels_for(game, state, names))
        assert theirs != mine and theirs not in turn.text_body
    assert text_board(game, state, None, labels_for(game, state, names)) not in turn.text_body
    # Nobody is "Player 1" in mail, not even in the picture's alt text.
    assert "Player " not in turn.text_body + turn.html_body
    assert _long_runs(turn.html_body) == []


# -- replaced players and declined invitations --------------------------------------------------


def test_replacing_a_player_tells_them_and_the_others(
    sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = _start(sqlite_database, now, site, "mosey")
    row = _row(sqlite_database, game_pk)
    waiting = 1 - (row.to_move or 0)
    old, stays = PEOPLE[waiting], PEOPLE[1 - waiting]
    thread = _mail(sqlite_database, game_pk, "invitation", _address(old))[0].message_id
    with sqlite_database.write() as session:
        actions.replace_player(session, now, site, game_id=game_pk, seat=waiting,
                               new_player=PlayerSpec("Cat", "cat@example.test"), actor="boss")
    tag = f"({row.public_id[:6]})"
    gone = _mail(sqlite_database, game_pk, "notice", _address(old))[-1]
    assert gone.subject == f"You were replaced: Mosey vs {stays} {tag}"
    assert gone.in_reply_to == thread and "no longer play" in gone.text_body
    assert not re.search(r"/(play|seat|invite|resign)/", gone.text_body + gone.html_body)
    colour = engine.new_game("mosey").seat_names(current_state(row)[1])[waiting]
    told = _mail(sqlite_database, game_pk, "notice", _address(stays))[-1]
    assert told.subject == f"Cat replaces {old}: Mosey vs Cat {tag}"
    assert f"Cat ({colour})" in told.text_body
    welcome = _mail(sqlite_database, game_pk, "notice", "cat@example.test")
    assert [e.subject for e in welcome] == [f"Welcome: Mosey vs {stays} {tag}"]
    game, state = current_state(row)
    assert game.info.summary.split("\n")[0] in welcome[0].text_body
    names = [PEOPLE[0], "Cat"] if waiting == 1 else ["Cat", PEOPLE[1]]
    assert text_board(game, state, waiting, labels_for(game, state, names)) in welcome[0].text_body
    assert "/seat/" in welcome[0].text_body
    assert all(_long_runs(e.html_body) == [] for e in _mail(sqlite_database, game_pk))


def test_a_substitute_to_move_is_welcomed_with_the_turn(
    sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = _start(sqlite_database, now, site, "mosey")
    seat = _row(sqlite_database, game_pk).to_move or 0
    with sqlite_database.write() as session:
        actions.replace_player(session, now, site, game_id=game_pk, seat=seat,
                               new_player=PlayerSpec("Cat", "cat@example.test"), actor="boss")
    turn = _mail(sqlite_database, game_pk, "turn", "cat@example.test")
    assert len(turn) == 1 and turn[0].subject.startswith("Welcome, your turn: Mosey vs ")
    assert "Welcome to this game of Mosey" in turn[0].text_body
    assert "/play/" in turn[0].text_body


def test_a_decline_tells_the_organiser_what_the_dashboard_offers(
    sqlite_database: Database, now: datetime, site: Site,
) -> None:
    from pbem.admin.game_actions import ACTIONS

    with sqlite_database.write() as session:
        row = create_game(session, now, site, game_type="mosey", players=_people(2),
                          organiser=PlayerSpec("Olga", "olga@example.test"))
        assert row.id is not None
        game_pk = row.id
    with sqlite_database.write() as session:
        respond_to_invitation(session, now, site, game_id=game_pk, seat=1, accept=False)
    row = _row(sqlite_database, game_pk)
    alert = _mail(sqlite_database, game_pk, to="olga@example.test")
    assert len(alert) == 1
    tag = f"({row.public_id[:6]})"
    assert alert[0].subject == f"[organiser] Bob declined: Mosey: Alice vs Bob {tag}"
    assert f"/admin/games/{game_pk}" in alert[0].text_body
    # What the email promises is what the dashboard can do to a game still being set up.
    assert "replace the player" in alert[0].text_body and "abort the game" in alert[0].text_body
    for name in ("replace", "abort"):
        assert not ACTIONS[name].needs_running
    told = _mail(sqlite_database, game_pk, "notice", _address("Alice"))
    assert told[0].subject.startswith("Bob declined: Mosey vs Bob (")
    assert "start it anyway" not in told[0].text_body
    assert all(_long_runs(e.html_body) == [] for e in _mail(sqlite_database, game_pk))
