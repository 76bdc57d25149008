"""The pages a player sees: the clickable move page, confirmation, the game page, the record."""

from __future__ import annotations

import html
import json
import random
import re
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from pbem.db import Database
from pbem.models import GameRecord, Move
from pbem.positions import current_state, move_menu
from pbem.services import PlayerSpec, Site, create_game, resign, submit_move
from pbem.web.terms import name_numbered_players, seat_label, seat_names
from tests.support import start_a_game
from tests.web.sessions import open_games_link


def _row(database: Database, game_pk: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None
    return row


def _hrefs(page: str) -> list[str]:
    # Cell links end with "#cell-<label>" so the reloaded page lands on the clicked cell.
    return [html.unescape(h).split("#")[0] for h in re.findall(r'<a href="([^"]+)"', page)]


def _play_random(database: Database, now: datetime, site: Site, game_pk: int, plies: int,
                 rng: random.Random) -> None:
    for _ in range(plies):
        row = _row(database, game_pk)
        game, state = current_state(row)
        if row.to_move is None:
            return
        with database.write() as session:
            submit_move(session, now, site, game_id=game_pk, seat=row.to_move, ply=row.ply,
                        text=str(game.random_move(state, rng)), note=f"note {row.ply}")


def test_clicking_cells_leads_to_the_move(
    game_id: str, client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    """Without JavaScript: each click is a link carrying the cells clicked so far."""
    game_pk = start_a_game(sqlite_database, now, site, game_id)
    rng = random.Random(game_id)
    tried = 0
    for _ in range(6):  # a few positions into the game
        row = _row(sqlite_database, game_pk)
        game, state = current_state(row)
        if row.to_move is None:
            break
        board_moves = [m for m in game.legal_moves(state) if game.move_cells(m)]
        url = site.links.move_url(game_pk, row.to_move, row.ply)
        page = client.get(url)
        assert page.status_code == 200
        firsts = {game.move_cells(m)[0].upper() for m in board_moves}
        clickable = {re.search(r"cells=([^&]+)", h)[1] for h in _hrefs(page.text)  # type: ignore[index]
                     if "cells=" in h}
        assert clickable == firsts
        for button in move_menu(game, state, ()).buttons:
            assert f'value="{html.escape(button)}"' in page.text
        if board_moves:
            target = rng.choice(board_moves)
            cells = [c.upper() for c in game.move_cells(target)]
            current = page
            for n in range(1, len(cells) + 1):
                link = next((h for h in _hrefs(current.text)
                             if h.endswith("cells=" + ".".join(cells[:n]))), None)
                assert link, f"no link for {cells[:n]}"
                current = client.get(link)
                if current.status_code == 302:  # the cells name one move: on to confirm it
                    assert n == len(cells)
                    query = parse_qs(urlparse(current.location).query)
                    assert urlparse(current.location).path.endswith("/confirm")
                    assert query["move"] == [str(target)]
                    break
            else:
                # Several moves share these cells: each is a button.
                assert f'value="{html.escape(str(target))}"' in current.text
            tried += 1
        _play_random(sqlite_database, now, site, game_pk, 1, rng)
    if not tried:
        pytest.skip(f"{game_id} has no board moves in its opening")


def test_typed_illegal_moves_get_the_engines_reason(
    game_id: str, client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, game_id)
    row = _row(sqlite_database, game_pk)
    game, state = current_state(row)
    url = site.links.move_url(game_pk, row.to_move, 0)
    for text in ("Z99-Q1", "no such move"):
        page = client.get(f"{url}/confirm", query_string={"move": text})
        assert page.status_code == 422
        try:
            expected = game.why_illegal(state, game.parse_move(text))
        except engine.IllegalMove as error:
            # The engine's generic "(try e.g. ...)" gives way to moves of this position.
            expected = re.sub(r"\s*\(try\b[^)]*\)", "", str(error))
        assert expected in html.unescape(page.text), expected
        assert 'name="move"' in page.text  # the form is there to try again
    assert _row(sqlite_database, game_pk).ply == 0


def _opens_with_a_number(game_id: str) -> bool:
    game = engine.new_game(game_id)
    return game.move_choices(game.start())[1] is not None


@pytest.mark.parametrize("game_id", [g for g in engine.GAMES if _opens_with_a_number(g)])
def test_number_choices_get_a_number_field(
    game_id: str, client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, game_id)
    row = _row(sqlite_database, game_pk)
    game, state = current_state(row)
    choice = game.number_range(state)
    assert choice is not None
    url = site.links.move_url(game_pk, row.to_move, row.ply)
    page = client.get(url)
    assert (f'type="number" name="number" min="{choice.low}" max="{choice.high}"') in page.text
    too_big = client.get(f"{url}/confirm", query_string={"number": choice.high + 1})
    assert too_big.status_code == 422 and f"from {choice.low} to {choice.high}" in too_big.text
    value = (choice.low + choice.high) // 2
    confirm = client.get(f"{url}/confirm", query_string={"number": value})
    assert confirm.status_code == 200
    expected = str(game.parse_move(str(value)))
    assert f'name="move" value="{html.escape(expected)}"' in confirm.text


def test_the_confirm_page_shows_the_position_after_the_move_and_its_post_commits(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
    csrf: Any,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, any_game)
    row = _row(sqlite_database, game_pk)
    game, state = current_state(row)
    move = game.random_move(state, random.Random(4))
    after = game.play(state, move)
    url = site.links.move_url(game_pk, row.to_move, 0)
    confirm = client.get(f"{url}/confirm", query_string={"move": str(move)})
    assert game.render_svg(after, row.to_move, str(move)) in confirm.text
    done = client.post(f"{url}/confirm", data={"csrf_token": csrf(confirm.text),
                                               "move": str(move), "note": "Your move, <b>!"})
    assert done.status_code in (302, 303)
    with sqlite_database.session() as session:
        made = session.exec(select(Move)).one()
    assert made.notation == str(move) and made.note == "Your move, <b>!"
    public = client.get(site.links.game_url(row.public_id))
    assert "Your move, &lt;b&gt;!" in public.text  # others see the note, escaped


def test_the_game_page_steps_through_positions_and_links_the_record(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, any_game)
    _play_random(sqlite_database, now, site, game_pk, 4, random.Random(9))
    row = _row(sqlite_database, game_pk)
    game = current_state(row)[0]
    with sqlite_database.session() as session:
        moves = session.exec(select(Move).order_by(Move.ply)).all()  # type: ignore[arg-type]
    url = site.links.game_url(row.public_id)
    for ply in range(len(moves) + 1):
        page = client.get(url, query_string={"ply": ply})
        state = game.decode(moves[ply - 1].state_after) if ply else game.decode(row.start_state)
        last = moves[ply - 1].notation if ply else None
        assert game.render_svg(state, None, last) in page.text
    # The page links the same three records as the replay and the archive.
    page = client.get(url).text
    for kind in ("json", "txt", "sgf"):
        assert f'href="/games/{row.public_id}/record.{kind}"' in page
    # The game page's older addresses lead to the same records.
    old = client.get(f"/g/{row.public_id}/record.json")
    assert old.status_code == 308 and old.location.endswith(f"/games/{row.public_id}/record.json")
    record = json.loads(client.get(f"/g/{row.public_id}/record.json", follow_redirects=True).text)
    assert record == client.get(f"/games/{row.public_id}/record.json").get_json()
    assert record["game"] == any_game and record["options"] == row.options
    assert [m["notation"] for m in record["moves"]] == [m.notation for m in moves]
    assert [p["name"] for p in record["players"]] == [
        f"P{n}" for n in range(len(record["players"]))]
    assert record["status"] == row.status and record["winners"] is None
    assert record["seed"] is None and record["seed_commitment"] == row.seed_commitment
    text = client.get(f"/g/{row.public_id}/record.txt", follow_redirects=True)
    assert text.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert text.text == client.get(f"/games/{row.public_id}/record.txt").text
    assert all(f"{n + 1}. P{m.seat}: {m.notation}" in text.text for n, m in enumerate(moves))
    assert client.get("/g/not-a-game").status_code == 404
    assert client.get("/g/not-a-game/record.json", follow_redirects=True).status_code == 404


def test_an_ended_game_says_its_result_not_who_is_to_move(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    """A resignation ends a game whose position the rules did not end: the engine would still
    say "Light to move"; the page says the result instead (at the final position only)."""
    game_pk = start_a_game(sqlite_database, now, site, "mosey", {"order": 4})
    _play_random(sqlite_database, now, site, game_pk, 2, random.Random(4))
    url = site.links.game_url(_row(sqlite_database, game_pk).public_id)
    assert "<p>Light to move.</p>" in client.get(url).text
    with sqlite_database.write() as session:
        resign(session, now, site, game_id=game_pk, seat=0)
    page = client.get(url).text
    assert "<p>Light to move.</p>" not in page
    assert page.count("P0 (Light) resigned; P1 (Dark) won.") == 1
    earlier = client.get(url, query_string={"ply": 1}).text  # an old position still says
    assert "Dark to move. (position after move 1 of 2)" in earlier


@pytest.mark.parametrize(
    "game_id", [g for g, info in engine.GAMES.items() if info.hidden_information])
def test_hidden_information_stays_hidden_on_public_pages(
    game_id: str, client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, game_id)
    _play_random(sqlite_database, now, site, game_pk, 3, random.Random(2))
    row = _row(sqlite_database, game_pk)
    game, state = current_state(row)
    with sqlite_database.session() as session:
        last = session.exec(select(Move).where(Move.ply == row.ply - 1)).one().notation
    public = client.get(site.links.game_url(row.public_id)).text
    # Pages name seats by player and colour ("P0 (Red)"), in the board's title too.
    labels = [seat_label(f"P{n}", name)
              for n, name in enumerate(seat_names(game_id, game.seat_names(state)))]

    def svg(viewer: int | None) -> str:
        return name_numbered_players(game.render_svg(state, viewer, last), labels)

    assert svg(None) in public
    for seat in range(game.num_players):
        own = client.get(site.links.seat_view_url(game_pk, seat)).text
        assert svg(seat) in own
        if svg(seat) != svg(None):
            assert svg(seat) not in public


def test_my_games_page_lists_games_and_saves_preferences(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
    csrf: Any,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, any_game)
    row = _row(sqlite_database, game_pk)
    link = site.links.my_games_url(1)
    assert open_games_link(client, link).status_code == 303
    url = "/account"
    page = client.get(url)
    assert page.status_code == 200 and row.public_id[:6] not in page.text  # named, not a code
    assert f"{html.escape(engine.GAMES[any_game].name)} against P1" in page.text
    bad = client.post(url, data={"csrf_token": csrf(page.text), "time_zone": "Mars/Olympus"})
    assert bad.status_code == 400 and "time zone" in bad.text
    saved = client.post(url, data={"csrf_token": csrf(page.text), "name": "Ann",
                                   "time_zone": "Europe/Paris", "language": "en"})
    assert saved.status_code == 303
    again = client.get(saved.location)
    assert "Saved." in again.text and "<option selected>Europe/Paris</option>" in again.text
    assert 'name="notify_updates" checked' not in again.text


def test_invitation_page_accepts_by_post_only(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
    csrf: Any,
) -> None:
    options = {o.name: o.choices[0] for o in engine.GAMES[any_game].options}
    count = engine.new_game(any_game, **options).num_players
    with sqlite_database.write() as session:
        row = create_game(session, now, site, game_type=any_game, options=options,
                          players=[PlayerSpec(f"P{n}", f"p{n}@example.test") for n in range(count)])
        game_pk = row.id
    assert game_pk is not None
    url = site.links.invite_url(game_pk, 0)
    page = client.get(url)
    assert "Accept" in page.text and "Decline" in page.text
    assert client.post(url, data={"csrf_token": csrf(page.text), "answer": "maybe"}
                       ).status_code == 400
    answer = client.post(url, data={"csrf_token": csrf(page.text), "answer": "accept"})
    assert answer.status_code == 200 and "accepted" in answer.text.lower()
    assert "accepted" in client.get(url).text


def test_dev_mail_shows_caught_messages_with_working_links(
    app: Any, client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
    any_game: str, closed_port: int,
) -> None:
    from pbem.mail.catcher import database_store, start_catcher
    from pbem.mail.outbox import SmtpSettings, deliver_pending

    port = closed_port
    catcher = start_catcher(database_store(sqlite_database), port=port)
    try:
        start_a_game(sqlite_database, now, site, any_game)
        report = deliver_pending(sqlite_database, SmtpSettings("127.0.0.1", port,
                                                               "pbem <p@example.test>"), now)
        assert report.sent > 0
    finally:
        catcher.stop()
    listing = client.get("/dev/mail")
    shown = [h for h in _hrefs(listing.text) if re.fullmatch(r"/dev/mail/\d+", h)]
    assert len(shown) == report.sent
    turn = next(p for p in (client.get(h) for h in shown) if "Your turn:" in p.text)
    assert "multipart/related" in turn.text and "image/png" in turn.text
    image = re.search(r'src=&#34;(/dev/mail/\d+/part/[^&]+)&#34;', turn.text) or re.search(
        r'src=&quot;(/dev/mail/\d+/part/[^&]+)&quot;', turn.text)
    assert image, "the HTML part's cid: image points at the stored part"
    assert client.get(image[1]).data[:4] == b"\x89PNG"
    play = re.search(r"http://localhost(/play/[\w.-]+)", turn.text)
    assert play and client.get(play[1]).status_code == 200


def test_dev_mail_is_not_there_in_production(sqlite_database: Database) -> None:
    from pbem import create_app

    production = create_app({"ENV": "production", "DATABASE": sqlite_database,
                             "SECRET_KEY": "a real secret, long enough to sign links",
                             "BASE_URL": "https://pbem.example"},
                            read_env=False)
    assert production.test_client().get("/dev/mail").status_code == 404


def test_a_clicked_cell_is_highlighted_and_a_second_click_takes_it_back(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "mosey")
    row = _row(sqlite_database, game_pk)
    url = site.links.move_url(game_pk, row.to_move, row.ply)
    page = client.get(url + "?cells=G5")
    assert page.status_code == 200 and "Selected: <strong>G5</strong>" in page.text
    assert 'class="chosen"' in page.text and 'class="target"' in page.text  # drawn as selected
    back = re.search(r'<a href="([^"]*)" aria-label="G5, your [^"]*, chosen" data-cell="G5"',
                     page.text)
    assert back, "the selected stone should be a link"
    again = client.get(html.unescape(back[1]))
    assert again.status_code == 200 and "Selected:" not in again.text
