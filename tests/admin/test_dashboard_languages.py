"""The dashboard in the organiser's language, and the language of the players it creates.

The dashboard follows the visitor (the switcher's cookie, else Accept-Language); a game created
there or with ``pbem create-game`` gives the players it creates the language the organiser chose,
and players pbem knows already keep their own.

The phrases are compared with ``Reader(language).gettext(msgid)``, so the pages are checked
against the catalogs whatever they hold; the checks that a phrase differs from the English hold
once the catalogs are translated.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from pbem.db import Database
from pbem.i18n import ENGLISH, LANGUAGE_COOKIE, LANGUAGES, Reader
from pbem.models import GameRecord, Player
from pbem.services import PlayerSpec, Site, create_game, start_game
from tests.admin.test_admin_games import _form
from tests.support import csrf_of, two_player_game

# What every dashboard page shows (its navigation), and what some pages show.
# Words these languages took from English and use as they are on such pages.
LOANWORDS = {"nl": ("Account", "Details"), "de": ("Details", "Account"), "it": ("Account",)}
NAVIGATION = ("Games", "New game", "Players", "Audit log", "Account")
PAGES = {
    "/admin/": ("Create a game", "Game id, player name or email", "Filter"),
    "/admin/players": ("Name or email", "Search"),
    "/admin/mail": ("Mail log", "Attempts", "Last error", "Next attempt"),
    "/admin/audit": ("Audit log", "When", "What", "Who", "Details"),
    "/admin/account": ("Your account", "Change the password", "Sign out everywhere else"),
    "/admin/games/new": ("Create a game", "Which game?", "Next: players and options"),
}


def _known_player(database: Database, email: str, language: str) -> None:
    with database.write() as session:
        session.add(Player(name=email.partition("@")[0].title(), email=email,
                           created_at=datetime.now(UTC), language=language))


def _languages(database: Database) -> dict[str, str]:
    with database.session() as session:
        return {p.email: p.language for p in session.exec(select(Player))}


def _translated(language: str, *msgids: str) -> None:
    """Each of ``msgids`` has its own words in ``language`` (true once the catalog is done)."""
    reader = Reader(language)
    same = [msgid for msgid in msgids if reader.gettext(msgid) == ENGLISH.gettext(msgid)
            and msgid not in LOANWORDS.get(language, ())]
    assert not same, f"not translated into {language}: {same}"


def _shown(page: str, reader: Reader, msgid: str) -> bool:
    """The page shows ``msgid`` in ``reader``'s language (as HTML escapes it)."""
    from markupsafe import escape

    return str(escape(reader.gettext(msgid))) in page


# -- the players a game creates ----------------------------------------------------------------


def test_the_form_offers_the_four_languages_by_their_own_names(
        admin_client: FlaskClient, app: Flask) -> None:
    game_type = two_player_game()
    page = admin_client.get(f"/admin/games/new?game={game_type}").text
    select_ = re.search(r'<select id="language" name="language".*?</select>', page, re.S)
    assert select_, "no language field"
    offered = re.findall(r'<option value="(\w+)" lang="\w+" ?(selected)?>([^<]+)</option>',
                         select_[0])
    assert [(code, name) for code, _, name in offered] == list(LANGUAGES.items())
    assert [code for code, chosen, _ in offered if chosen] == ["en"]
    assert '<label for="language">Language of new players</label>' in page
    # The default is the site's (PBEM_DEFAULT_LANGUAGE).
    app.config["DEFAULT_LANGUAGE"] = "it"
    page = admin_client.get(f"/admin/games/new?game={game_type}").text
    assert re.search(r'<option value="it" lang="it" selected>Italiano</option>', page)


def test_the_form_gives_new_players_the_chosen_language(
        admin_client: FlaskClient, sqlite_database: Database) -> None:
    game_type = two_player_game()
    _known_player(sqlite_database, "bob@example.test", "de")
    page = admin_client.get(f"/admin/games/new?game={game_type}").text
    response = admin_client.post("/admin/games/new", data={
        **_form(game_type, language="nl"), "csrf_token": csrf_of(page)})
    assert response.status_code == 303, response.text
    languages = _languages(sqlite_database)
    assert languages["ann@example.test"] == "nl"  # new: the organiser's choice
    assert languages["bob@example.test"] == "de"  # known: keeps their own
    with sqlite_database.session() as session:
        assert session.exec(select(GameRecord)).one().status == "invited"


def test_the_form_without_a_choice_uses_the_default_language(
        admin_client: FlaskClient, app: Flask, sqlite_database: Database) -> None:
    game_type = two_player_game()
    app.config["DEFAULT_LANGUAGE"] = "de"
    page = admin_client.get(f"/admin/games/new?game={game_type}").text
    response = admin_client.post("/admin/games/new", data={
        **_form(game_type), "csrf_token": csrf_of(page)})
    assert response.status_code == 303, response.text
    assert set(_languages(sqlite_database).values()) == {"de"}


def test_the_form_refuses_a_language_it_does_not_offer(
        admin_client: FlaskClient, sqlite_database: Database) -> None:
    game_type = two_player_game()
    page = admin_client.get(f"/admin/games/new?game={game_type}").text
    response = admin_client.post("/admin/games/new", data={
        **_form(game_type, language="fr"), "csrf_token": csrf_of(page)})
    assert response.status_code == 422
    assert 'id="language-error"' in response.text
    assert _languages(sqlite_database) == {}  # nothing was made
    # A refused game makes no players either (they are made in the game's transaction).
    response = admin_client.post("/admin/games/new", data={
        **_form(game_type, language="nl", **{"email-1": "ann@example.test"}),
        "csrf_token": csrf_of(page)})
    assert response.status_code == 422 and _languages(sqlite_database) == {}


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.chdir(tmp_path)  # no stray .env is read
    env = {"PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
           "PBEM_SECRET_KEY": "cli-secret", "PBEM_BASE_URL": "http://localhost"}
    assert CliRunner().invoke(_main(), ["db", "upgrade"], env=env).exit_code == 0
    return env


def _main():  # type: ignore[no-untyped-def]
    from pbem.cli import main

    return main


def test_the_cli_gives_new_players_the_chosen_language(cli_env: dict[str, str]) -> None:
    database = Database(cli_env["PBEM_DATABASE_URL"])
    _known_player(database, "bob@example.test", "it")
    created = CliRunner().invoke(_main(), [
        "create-game", two_player_game(), "--language", "nl",
        "--player", "Ann <ann@example.test>", "--player", "Bob <bob@example.test>"], env=cli_env)
    assert created.exit_code == 0, created.output
    languages = _languages(database)
    assert languages == {"ann@example.test": "nl", "bob@example.test": "it"}
    database.dispose()


def test_the_cli_uses_the_default_language_and_refuses_others(cli_env: dict[str, str]) -> None:
    database = Database(cli_env["PBEM_DATABASE_URL"])
    refused = CliRunner().invoke(_main(), [
        "create-game", two_player_game(), "--language", "fr",
        "--player", "Ann <ann@example.test>", "--player", "Bob <bob@example.test>"], env=cli_env)
    assert refused.exit_code != 0 and "--language" in refused.output
    assert _languages(database) == {}
    created = CliRunner().invoke(_main(), [
        "create-game", two_player_game(),
        "--player", "Ann <ann@example.test>", "--player", "Bob <bob@example.test>"],
        env={**cli_env, "PBEM_DEFAULT_LANGUAGE": "de"})
    assert created.exit_code == 0, created.output
    assert set(_languages(database).values()) == {"de"}
    database.dispose()


# -- the dashboard in the organiser's language -------------------------------------------------


def _a_game(database: Database, site: Site) -> int:
    game_type = two_player_game()
    now = datetime.now(UTC)
    with database.write() as session:
        row = create_game(session, now, site, game_type=game_type,
                          options={o.name: o.choices[0]
                                   for o in engine.GAMES[game_type].options},
                          players=[PlayerSpec("Ann", "ann@example.test"),
                                   PlayerSpec("Bob", "bob@example.test")])
        assert row.id is not None
        start_game(session, now, site, game_id=row.id, force=True)
        return row.id


@pytest.mark.parametrize("language", ["nl", "de", "it"])
def test_accept_language_chooses_the_dashboard_s_language(
        admin_client: FlaskClient, language: str) -> None:
    reader = Reader(language)
    for path, msgids in PAGES.items():
        page = admin_client.get(path, headers={"Accept-Language": language}).text
        assert f'<html lang="{language}">' in page, path
        for msgid in NAVIGATION + msgids:
            assert _shown(page, reader, msgid), (path, msgid)


def test_the_game_page_and_an_action_s_page_in_the_switcher_s_language(
        admin_client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    game_pk = _a_game(sqlite_database, site)
    admin_client.set_cookie(LANGUAGE_COOKIE, "nl")
    dutch = Reader("nl")
    # The cookie outweighs the browser's language.
    page = admin_client.get(f"/admin/games/{game_pk}", headers={"Accept-Language": "de"}).text
    assert '<html lang="nl">' in page
    for msgid in ("Seats", "Clock", "Moves", "Deadline", "Extend deadline", "Resend turn email",
                  "Actions on this game", "to move"):
        assert _shown(page, dutch, msgid), msgid
    assert _shown(page, dutch, "active")  # the game's status, stored in English
    action = admin_client.get(f"/admin/games/{game_pk}/extend").text
    assert '<html lang="nl">' in action
    for msgid in ("Extend the deadline", "Confirm: extend the deadline", "Extra time",
                  "The player to move gets this much more time; everyone is told.", "Cancel"):
        assert _shown(action, dutch, msgid), msgid


def test_the_dashboard_s_switcher_remembers_the_choice(admin_client: FlaskClient) -> None:
    page = admin_client.get("/admin/players?q=ann", headers={"Accept-Language": "en"}).text
    links = dict(re.findall(r'<a href="(/language/(\w+)\?next=[^"]+)"', page)[i][::-1]
                 for i in range(3))
    assert set(links) == {"nl", "de", "it"} and '<strong lang="en">English</strong>' in page
    chosen = admin_client.get(links["it"].replace("&amp;", "&"))
    assert chosen.status_code == 302 and chosen.headers["Location"] == "/admin/players?q=ann"
    again = admin_client.get("/admin/players?q=ann", headers={"Accept-Language": "en"}).text
    assert '<html lang="it">' in again and '<strong lang="it">Italiano</strong>' in again
    assert _shown(again, Reader("it"), "Name or email")


def test_the_login_page_and_its_errors_in_the_visitor_s_language(client: FlaskClient) -> None:
    german = Reader("de")
    page = client.get("/admin/login", headers={"Accept-Language": "de-DE,de;q=0.9"}).text
    assert '<html lang="de">' in page
    for msgid in ("Organisers: log in", "Email address", "Password", "Log in"):
        assert _shown(page, german, msgid), msgid
    refused = client.post("/admin/login", headers={"Accept-Language": "de"}, data={
        "csrf_token": csrf_of(page), "email": "nobody@example.test", "password": "wrong"})
    assert refused.status_code == 401
    assert _shown(refused.text, german, "That email address and password do not match.")


def test_flash_messages_and_form_errors_in_the_organiser_s_language(
        admin_client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    italian = Reader("it")
    admin_client.set_cookie(LANGUAGE_COOKIE, "it")
    game_pk = _a_game(sqlite_database, site)
    page = admin_client.get(f"/admin/games/{game_pk}/pause").text
    paused = admin_client.post(f"/admin/games/{game_pk}/pause",
                               data={"csrf_token": csrf_of(page)}, follow_redirects=True)
    assert paused.status_code == 200 and _shown(paused.text, italian, "Game paused.")
    extend = admin_client.get(f"/admin/games/{game_pk}/extend").text
    wrong = admin_client.post(f"/admin/games/{game_pk}/extend",
                              data={"csrf_token": csrf_of(extend), "by": "0h"})
    assert wrong.status_code == 422
    assert _shown(wrong.text, italian, "give a time longer than zero, e.g. 1d or 12h")
    account = admin_client.get("/admin/account").text
    differ = admin_client.post("/admin/account/password", data={
        "csrf_token": csrf_of(account), "current": "x", "new": "long enough password",
        "repeat": "another long password"})
    assert differ.status_code == 422
    assert _shown(differ.text, italian, "the two new passwords differ")
    short = admin_client.post("/admin/account/password", data={
        "csrf_token": csrf_of(account), "current": "x", "new": "short", "repeat": "short"})
    assert italian.ngettext("use at least %(count)d character",
                            "use at least %(count)d characters", 10) in short.text


def test_the_audit_log_says_what_happened_in_the_organiser_s_language(
        admin_client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    _a_game(sqlite_database, site)
    dutch = Reader("nl")
    page = admin_client.get("/admin/audit", headers={"Accept-Language": "nl"}).text
    # Entries are stored in English; the page says them in the organiser's language.
    assert _shown(page, dutch, "game created") and _shown(page, dutch, "game started")
    assert _shown(page, dutch, "system")


def test_the_dashboard_in_english_stays_as_it_was(admin_client: FlaskClient) -> None:
    page = admin_client.get("/admin/", headers={"Accept-Language": "en"}).text
    assert '<html lang="en">' in page and ">Create a game</a>" in page
    assert "0 games, soonest deadline first." in page


# -- once the catalogs are translated ----------------------------------------------------------


@pytest.mark.parametrize("language", ["nl", "de", "it"])
def test_the_dashboard_s_words_are_translated(language: str) -> None:
    _translated(language, *NAVIGATION, *(m for msgids in PAGES.values() for m in msgids),
                "Language of new players", "Organisers: log in", "Log in",
                "That email address and password do not match.",
                "Confirm: extend the deadline", "Game paused.", "the two new passwords differ")
