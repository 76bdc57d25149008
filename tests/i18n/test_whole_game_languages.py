"""A whole game in Dutch, German and Italian: everything the players read is in their language.

Two players who chose the language are invited, accept through the emailed links, and play a
game to its end by following each turn email's link, opening the confirm page and confirming;
one of them also tries an illegal move. Every email (subject, text and HTML part, the board's alt
text) and every page they see is kept, and then checked twice: no English sentence or word from
``ENGLISH`` appears in it, and the language's expected phrases (``EXPECTED``, written by people
who speak it, not generated from the catalogs) do. The dashboard's pages are checked the same way
for an organiser whose browser asks for the language.
"""

from __future__ import annotations

import html as html_lib
import random
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from pbem.db import Database
from pbem.models import GameRecord
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, create_game
from tests.i18n.support import email_texts, english_in, visible_text
from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD, csrf_of, start_a_game

GAME = "keep-a-riding"  # a short two-player game on a small board

# Phrases each language must show somewhere in the game's mail and pages.
EXPECTED: dict[str, list[str]] = {
    "nl": ["Jij bent aan zet", "Uitnodiging", "Accepteren", "Zetten", "Opgeven", "Licht",
           "Donker"],
    "de": ["Du bist am Zug", "Einladung", "Annehmen", "Züge", "Aufgeben", "Hell", "Dunkel"],
    "it": ["Tocca a te", "Invito", "Accetta", "Mosse", "Abbandona", "Chiaro", "Scuro"],
}

# Phrases the dashboard must show in each language.
DASHBOARD_EXPECTED: dict[str, list[str]] = {
    "nl": ["Partijen", "Spelers", "Nieuwe partij", "Logboek", "Wachtwoord"],
    "de": ["Partien", "Spieler", "Neue Partie", "Protokoll", "Passwort"],
    "it": ["Partite", "Giocatori", "Nuova partita", "Registro delle attività", "Password"],
}

NAMES = ("Anouk", "Bram")  # names in no language's dictionary of English words


def _hidden_move(page: str) -> str:
    match = re.search(r'<input type="hidden" name="move" value="([^"]*)">', page)
    assert match, "the confirm page names no move"
    return html_lib.unescape(match[1])


def play_whole_game(language: str, client: FlaskClient, database: Database, mailbox: Any,
                    site: Site, csrf: Callable[[str], str]) -> dict[str, str]:
    """Play GAME to its end through the emails; every text a player saw, by where it was seen."""
    seen: dict[str, str] = {}
    rng = random.Random(language)
    options = {o.name: o.choices[0] for o in engine.GAMES[GAME].options}
    people = [PlayerSpec(name, f"{name.lower()}@example.test", language=language)
              for name in NAMES]
    with database.write() as session:
        row = create_game(session, datetime.now(UTC), site, game_type=GAME, options=options,
                          players=people)
        game_pk = row.id
    inbox = []
    for number, message in enumerate(mailbox.deliver()):
        seen[f"invitation email {number}"] = "\n".join(email_texts(message))
        url = mailbox.link(message, "/invite/")
        page = client.get(url)
        seen[f"invitation page {number}"] = visible_text(page.text)
        answer = client.post(url, data={"csrf_token": csrf(page.text), "answer": "accept"})
        assert answer.status_code == 200, answer.text
        seen[f"accepted page {number}"] = visible_text(answer.text)
    inbox += mailbox.deliver()
    plies, tried_illegal = 0, False
    while True:
        for message in inbox:
            seen[f"email {len(seen)}"] = "\n".join(email_texts(message))
        turn_mails = [m for m in inbox if any("/play/" in link for link in mailbox.links(m))]
        if not turn_mails:
            break
        url = mailbox.link(turn_mails[-1], "/play/")
        inbox = []
        while url:
            page = client.get(url)
            assert page.status_code == 200, page.text
            seen[f"move page {plies}"] = visible_text(page.text)
            with database.session() as session:
                current = session.get(GameRecord, game_pk)
            assert current is not None
            game, state = current_state(current)
            if not tried_illegal:
                refused = client.get(f"{url}/confirm", query_string={"move": "A1-A1"})
                seen["illegal move page"] = visible_text(refused.text)
                tried_illegal = True
            move = rng.choice(game.legal_moves(state))
            confirm = client.get(f"{url}/confirm", query_string={"move": str(move)})
            assert confirm.status_code == 200, confirm.text
            seen[f"confirm page {plies}"] = visible_text(confirm.text)
            done = client.post(f"{url}/confirm", data={
                "csrf_token": csrf(confirm.text), "move": _hidden_move(confirm.text)})
            assert done.status_code in (302, 303), done.text
            plies += 1
            url = done.location if "/play/" in done.location else ""
            if not url:
                after = client.get(done.location)
                seen[f"after move page {plies}"] = visible_text(after.text)
        inbox += mailbox.deliver()
        assert plies < 500, "the game does not end"
    with database.session() as session:
        final = session.get(GameRecord, game_pk)
    assert final is not None and final.winners is not None
    return seen


@pytest.mark.early
@pytest.mark.parametrize("language", ["nl", "de", "it"])
def test_a_whole_game_in_the_players_language(
    language: str, client: FlaskClient, sqlite_database: Database, mailbox: Any, site: Site,
    csrf: Callable[[str], str],
) -> None:
    seen = play_whole_game(language, client, sqlite_database, mailbox, site, csrf)
    assert any(k.startswith("email") for k in seen) and "illegal move page" in seen
    leaks = {where: english_in(text) for where, text in seen.items() if english_in(text)}
    assert not leaks, f"English in {language}: " + "; ".join(
        f"{where}: {words}" for where, words in list(leaks.items())[:12])
    everything = "\n".join(seen.values())
    missing = [phrase for phrase in EXPECTED[language] if phrase not in everything]
    assert not missing, f"{language}: expected phrases missing: {missing}"


DASHBOARD_PAGES = ["/admin/", "/admin/games/new", "/admin/players", "/admin/mail", "/admin/audit",
                   "/admin/account"]


@pytest.mark.parametrize("language", ["nl", "de", "it"])
def test_the_dashboard_in_the_organisers_language(
    language: str, client: FlaskClient, sqlite_database: Database, site: Site, mailbox: Any,
    csrf: Callable[[str], str],
) -> None:
    from pbem.admin.accounts import create_admin

    people = [PlayerSpec(name, f"{name.lower()}@example.test", language=language)
              for name in NAMES]
    start_a_game(sqlite_database, datetime.now(UTC), site, GAME, players=people,
                 per_move=timedelta(days=3))
    with sqlite_database.write() as session:
        create_admin(session, datetime.now(UTC), ADMIN_EMAIL, ADMIN_PASSWORD)
    headers = {"Accept-Language": f"{language},en;q=0.5"}
    login = client.get("/admin/login", headers=headers)
    seen = {"login": visible_text(login.text)}
    assert client.post("/admin/login", headers=headers, data={
        "csrf_token": csrf_of(login.text), "email": ADMIN_EMAIL,
        "password": ADMIN_PASSWORD}).status_code == 302
    with sqlite_database.session() as session:
        game_pk = session.exec(select(GameRecord.id)).first()
    for path in [*DASHBOARD_PAGES, f"/admin/games/{game_pk}"]:
        page = client.get(path, headers=headers)
        assert page.status_code == 200, path
        assert f'lang="{language}"' in page.text, path
        seen[path] = visible_text(page.text)
    leaks = {where: english_in(text) for where, text in seen.items() if english_in(text)}
    assert not leaks, f"English on the {language} dashboard: " + "; ".join(
        f"{where}: {words}" for where, words in leaks.items())
    everything = "\n".join(seen.values())
    missing = [phrase for phrase in DASHBOARD_EXPECTED[language] if phrase not in everything]
    assert not missing, f"{language}: expected dashboard phrases missing: {missing}"
