"""Sign-in, challenges, seeks, rematches, the archive, replays, profiles, records and tournaments
in Dutch, German and Italian: everything a player reads there is in their language.

One app, SQLite file and SMTP catcher serve the module (a module-scoped fixture); each language's
test makes players who chose that language and walks through what they do: a player signs in by
the emailed link (and an unknown address gets a sign-up link); the signed-in player challenges
two others (one declines from the emailed link, the other challenge is cancelled) and posts an
open seek, which another player joins; a rated game ends by resignation and the game-over
emails' rematch links are used (one accepts, the other declines); two tournaments are played (a
round robin in which a player is withdrawn, and a Swiss one with byes, left running in its second
round). Refusals are seen too (a bad address, a used link, a form sent back, an archive search
that makes no sense, a hidden replay). Every page is fetched in the language (through the
player's link, or the switcher's cookie for public pages) and every email is delivered through
SMTP to a player of the language. Each is checked: no word of ``WORDS`` remains, and the
hand-written phrases of ``PAGES`` and ``EMAILS`` appear.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

import pbem.ratelimit  # noqa: F401  (its table must be on the metadata the test databases use)
from pbem import create_app
from pbem.db import Database
from pbem.models import GameRecord, OutboxEmail, Player
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, resign, submit_move
from pbem.tournaments.service import create_tournament, start_tournament, withdraw_player
from pbem.tournaments.tables import TournamentGame
from pbem.web.player_sessions import issue_link
from tests.i18n.support import ENGLISH, email_texts, english_in, visible_text
from tests.support import (
    BASE_URL,
    MAIL_FROM,
    SECRET,
    Mailbox,
    SmtpHandler,
    SmtpServer,
    csrf_of,
    free_port,
    make_database,
    start_a_game,
)

LANGUAGES = ["nl", "de", "it"]
GAME = "mosey"  # two players, the smallest board
OPTIONS: dict[str, object] = {"order": 4}

# Words of the new features that no Dutch, German or Italian text has (so not "round", which
# Dutch keeps in "round robin", nor "link", "Start", "Status" or "email", which they use too).
WORDS = [
    *ENGLISH, "challenge", "Challenge", "challenges", "Challenges", "seek", "seeks",
    "Open seeks", "Tournament", "Tournaments", "tournament", "Rematch", "rematch", "Standings",
    "standings", "Round", "Crosstable", "Archive", "archive", "Replay", "replay", "Profile",
    "profile", "Finished", "finished", "Ratings", "Points", "points", "Rank", "Record", "Games",
    "games", "rated", "unrated", "accepted", "declined", "Search", "against", "previous",
    "everyone", "Hello", "Join", "Players", "players", "Cancel", "cancelled", "expired",
    "waiting", "withdrew", "playing", "Byes", "bye", "Thank", "seat", "seats", "Show",
    "Language", "Check your mail", "account", "Swiss", "Time", "None", "Seat", "Result",
    "Started", "resigned", "Light", "Dark", "won", "lost",
]
# Words a language has taken from English: Dutch and Italian say "account", Dutch "bye" (a free
# round) and "Ratings"; "won" and "lost" are Dutch words too.
LOANWORDS = {"nl": {"account", "bye", "Byes", "Ratings", "won", "lost"}, "it": {"account"},
             "de": set()}


def words_for(language: str) -> list[str]:
    return [w for w in WORDS if w not in LOANWORDS[language]]


# Phrases each page must show, in each language: written by hand, not taken from the catalogs.
PAGES: dict[str, dict[str, list[str]]] = {
    "home": {"nl": ["De spellen", "Toernooien"], "de": ["Die Spiele", "Turniere"],
             "it": ["I giochi", "Tornei"]},
    "sign-in": {"nl": ["Inloggen"], "de": ["Anmelden"], "it": ["Accedi"]},
    "sign-in sent": {"nl": ["Kijk in je mail"], "de": ["E-Mails"],
                     "it": ["Controlla la tua email"]},
    "sign-in confirm": {"nl": ["Inloggen"], "de": ["Anmelden"], "it": ["Accedi"]},
    "sign-up": {"nl": ["account"], "de": ["Konto"], "it": ["account"]},
    "sign-out": {"nl": ["Uitloggen"], "de": ["Abmelden"], "it": ["Esci"]},
    "sign-in refused": {"nl": ["e-mailadres"], "de": ["E-Mail-Adresse"], "it": ["email"]},
    "signed out": {"nl": ["uitgelogd"], "de": ["abgemeldet"], "it": ["Uscita effettuata"]},
    "new challenge": {"nl": ["Nieuwe uitdaging"], "de": ["Neue Herausforderung"],
                      "it": ["Nuova sfida"]},
    "new challenge form": {"nl": ["Nieuwe uitdaging", "Bedenktijd"],
                           "de": ["Neue Herausforderung", "Bedenkzeit"],
                           "it": ["Nuova sfida", "Tempo"]},
    "challenge page": {"nl": ["Uitdaging", "Spelers"], "de": ["Herausforderung", "Spieler"],
                       "it": ["Sfida", "Giocatori"]},
    "challenges": {"nl": ["Je uitdagingen"], "de": ["Deine Herausforderungen"],
                   "it": ["Le tue sfide"]},
    "challenge invitation page": {"nl": ["Accepteren", "Afslaan"],
                                  "de": ["Annehmen", "Ablehnen"], "it": ["Accetta", "Rifiuta"]},
    "seeks of no game": {"nl": ["chess"], "de": ["chess"], "it": ["chess"]},
    "seeks": {"nl": ["Open uitdagingen"], "de": ["Offene Herausforderungen"],
              "it": ["Sfide aperte"]},
    "seeks signed in": {"nl": ["Open uitdagingen"], "de": ["Offene Herausforderungen"],
                        "it": ["Sfide aperte"]},
    "seek started": {"nl": ["Partijpagina"], "de": ["Partieseite"],
                     "it": ["Pagina della partita"]},
    "seek page": {"nl": ["open uitdaging"], "de": ["offene Herausforderung"],
                  "it": ["sfida aperta"]},
    "rematch page": {"nl": ["Revanche"], "de": ["Revanche"], "it": ["Rivincita"]},
    "rematch accepted": {"nl": ["Revanche"], "de": ["Revanche"], "it": ["Rivincita"]},
    "rematch offer page": {"nl": ["Revanche", "Afslaan"], "de": ["Revanche", "Ablehnen"],
                           "it": ["Rivincita", "Rifiuta"]},
    "rematch declined": {"nl": ["Revanche"], "de": ["Revanche"], "it": ["Rivincita"]},
    "archive": {"nl": ["Archief", "Zoeken"], "de": ["Archiv", "Suchen"],
                "it": ["Archivio", "Cerca"]},
    "replay start": {"nl": ["naspelen", "Zetten"], "de": ["nachspielen", "Züge"],
                     "it": ["Mosse"]},
    "replay end": {"nl": ["Zetten"], "de": ["Züge"], "it": ["Mosse"]},
    # Mosey hides nothing, so its replay offers no choice of views ("everyone", a seat).
    "replay as a seat": {"nl": ["Zetten"], "de": ["Züge"], "it": ["Mosse"]},
    "profile": {"nl": ["Afgelopen partijen"], "de": ["Beendete Partien"],
                "it": ["Partite concluse"]},
    "record": {"nl": ["Uitslag", "opgegeven", "Licht"], "de": ["Ergebnis", "aufgegeben", "Hell"],
               "it": ["Risultato", "abbandonato", "Chiaro"]},
    "tournaments": {"nl": ["Toernooien"], "de": ["Turniere"], "it": ["Tornei"]},
    "round robin": {"nl": ["Stand", "Kruistabel", "Ronde 1"],
                    "de": ["Tabelle", "Kreuztabelle", "Runde 1"],
                    "it": ["Classifica", "Tabellone", "Turno 1"]},
    "round robin over": {"nl": ["Stand", "Punten"], "de": ["Tabelle", "Punkte"],
                         "it": ["Classifica", "Punti"]},
    "swiss": {"nl": ["Zwitsers", "Ronde 2"], "de": ["Schweizer", "Runde 2"],
              "it": ["svizzero", "Turno 2"]},
}

# Phrases each kind of email must show (subject or body), in each language.
EMAILS: dict[str, dict[str, list[str]]] = {
    "sign_in": {"nl": ["Hallo", "Inloggen"], "de": ["Hallo", "Anmelden"],
                "it": ["Ciao", "Accedi"]},
    "challenge_signup": {"nl": ["Hallo"], "de": ["Hallo"], "it": ["Ciao"]},
    "challenge_invitation": {"nl": ["uitdaging", "daagt je uit"], "de": ["fordert dich"],
                             "it": ["ti sfida"]},
    "challenge_closed": {"nl": ["uitdaging"], "de": ["Herausforderung"], "it": ["sfida"]},
    "game_over": {"nl": ["Revanche"], "de": ["Revanche"], "it": ["rivincita"]},
    # A game's invitation names its options in words ("order 4" is what is stored).
    "invitation": {"nl": ["Bordgrootte 4"], "de": ["Brettgröße 4"],
                   "it": ["Dimensione del tavoliere 4"]},
    "rematch_offer": {"nl": ["revanche"], "de": ["Revanche"], "it": ["rivincita"]},
    "tournament_welcome": {"nl": ["Toernooi", "round robin"], "de": ["Turnier", "Rundenturnier"],
                           "it": ["Torneo", "girone all'italiana"]},
    "tournament_round": {"nl": ["Ronde"], "de": ["Runde"], "it": ["Turno"]},
    "tournament_withdrawn": {"nl": ["teruggetrokken"], "de": ["zurückgezogen"],
                             "it": ["ritirato"]},
    "tournament_standings": {"nl": ["eindstand", "Bedankt"], "de": ["Rang", "Danke"],
                             "it": ["classifica", "Grazie"]},
}

# Names in no language's dictionary of English words; one set of players for each language.
NAMES = {"nl": ["Anouk", "Bram", "Cas", "Daan", "Eline"],
         "de": ["Jörg", "Kai", "Lena", "Mia", "Nils"],
         "it": ["Nico", "Olga", "Pia", "Rocco", "Sara"]}
TOURNAMENT_NAMES = {"nl": ("Herfstbeker", "Winterbeker"), "de": ("Herbstpokal", "Winterpokal"),
                    "it": ("Coppa d'autunno", "Coppa d'inverno")}


def address(name: str, language: str) -> str:
    """The player's address: plain ASCII (names are not)."""
    return f"{name.lower().replace('ö', 'oe')}.{language}@example.test"


@dataclass
class Seen:
    """Every page and email of one language, as a reader sees them."""

    pages: dict[str, str] = field(default_factory=dict)
    emails: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, to, text)


@dataclass
class World:
    app: Flask
    database: Database
    site: Site
    mailbox: Mailbox
    seen: dict[str, Seen] = field(default_factory=lambda: {code: Seen() for code in LANGUAGES})
    kinds: dict[str, str] = field(default_factory=dict)  # Message-ID -> kind

    def deliver(self, language: str) -> list[Any]:
        """Send the outbox and keep what arrived for ``language``'s players."""
        messages = self.mailbox.deliver()
        with self.database.session() as session:
            for row in session.exec(select(OutboxEmail)):
                self.kinds[row.message_id] = row.kind
        for message in messages:
            kind = self.kinds.get(str(message["Message-ID"]).strip(), "?")
            self.seen[language].emails.append(
                (kind, str(message["To"]), "\n".join(email_texts(message))))
        return messages

    def client(self, language: str, number: int) -> FlaskClient:
        """A browser of its own address (the sign-in limits count per client) that chose the
        language with the switcher."""
        client = self.app.test_client()
        client.environ_base["REMOTE_ADDR"] = f"10.0.{LANGUAGES.index(language)}.{number}"
        assert client.get(f"/language/{language}").status_code == 302
        return client

    def page(self, language: str, name: str, client: FlaskClient, path: str,
             status: int = 200, **kwargs: Any) -> str:
        answer = client.get(path, **kwargs)
        assert answer.status_code == status, (name, path, answer.status_code, answer.text[:500])
        self.seen[language].pages[name] = visible_text(answer.text)
        return answer.text

    def keep(self, language: str, name: str, answer: Any, status: int = 200) -> str:
        assert answer.status_code == status, (name, answer.status_code, answer.text[:500])
        self.seen[language].pages[name] = visible_text(answer.text)
        return str(answer.text)


def _players(database: Database, language: str) -> list[int]:
    ids = []
    with database.write() as session:
        for name in NAMES[language]:
            player = Player(name=name, email=address(name, language),
                            language=language, created_at=datetime.now(UTC))
            session.add(player)
            session.flush()
            assert player.id is not None
            ids.append(player.id)
    return ids


def _play_a_little(database: Database, site: Site, game_id: int, plies: int) -> None:
    rng = random.Random(game_id)
    for ply in range(plies):
        with database.write() as session:
            row = session.get(GameRecord, game_id)
            assert row is not None
            game, state = current_state(row)
            move, seat = rng.choice(game.legal_moves(state)), game.to_move(state)
            assert seat is not None
            submit_move(session, datetime.now(UTC), site, game_id=game_id, seat=seat, ply=ply,
                        text=str(move))


def _sign_in(world: World, language: str, ids: list[int]) -> FlaskClient:
    """The first player asks for a link, follows it and signs in; an unknown address asks too."""
    client = world.client(language, 1)
    seen = world.page
    seen(language, "home", client, "/")
    page = seen(language, "sign-in", client, "/sign-in")
    world.keep(language, "sign-in sent", client.post("/sign-in", data={
        "csrf_token": csrf_of(page), "email": address(NAMES[language][0], language)}))
    [message] = world.deliver(language)
    link = Mailbox.link(message, "/sign-in/").removeprefix(BASE_URL)
    confirm = seen(language, "sign-in confirm", client, link)
    assert client.post(link, data={"csrf_token": csrf_of(confirm)}).status_code == 303
    assert client.get("/").location.endswith("/account")  # the home page sends them home
    seen(language, "home signed in", client, "/account")
    seen(language, "sign-out", client, "/sign-out")
    # An address nobody plays with yet gets a sign-up link, in the page's language.
    stranger = world.client(language, 2)
    page = stranger.get("/sign-in").text
    assert stranger.post("/sign-in", data={"csrf_token": csrf_of(page),
                                           "email": f"new.{language}@example.test"}).status_code \
        == 200
    [message] = world.deliver(language)
    seen(language, "sign-up", stranger, Mailbox.link(message, "/sign-up/").removeprefix(BASE_URL))
    world.keep(language, "sign-in refused", stranger.post("/sign-in", data={
        "csrf_token": csrf_of(page), "email": "no address"}), status=400)
    seen(language, "sign-in link used", stranger, link, status=410)
    seen(language, "sign-in to join a seek", stranger, "/sign-in?why=seek&next=/seeks")
    return client


def _challenges(world: World, language: str, ids: list[int], me: FlaskClient) -> None:
    names = NAMES[language]
    seen = world.page
    seen(language, "new challenge", me, "/challenges/new")
    for number, invitee in enumerate(names[1:3]):
        form = seen(language, "new challenge form", me, f"/challenges/new?game={GAME}")
        made = me.post("/challenges/new", data={
            "csrf_token": csrf_of(form), "game": GAME, "kind": "invite",
            "time_control": "3d per move", "policy": "default", "seat_order": "first",
            "rated": "on", **{f"option-{k}": str(v) for k, v in OPTIONS.items()},
            "invitees": f"{invitee} <{address(invitee, language)}>"})
        assert made.status_code == 303, made.text
        seen(language, "challenge page", me, made.location)
        [invitation] = world.deliver(language)
        link = Mailbox.link(invitation, "/challenge/").removeprefix(BASE_URL)
        invitee_browser = world.app.test_client()
        page = seen(language, "challenge invitation page", invitee_browser, link)
        if number == 0:  # the first invitee declines from the email's page
            assert invitee_browser.post(link, data={
                "csrf_token": csrf_of(page), "action": "decline"}).status_code == 303
        else:  # the creator cancels the second
            page = me.get(made.location).text
            assert me.post(made.location, data={"csrf_token": csrf_of(page),
                                                 "action": "cancel"}).status_code == 303
            seen(language, "challenge cancelled page", me, made.location)
        world.deliver(language)
    seen(language, "challenges", me, "/challenges")
    form = me.get(f"/challenges/new?game={GAME}").text
    world.keep(language, "challenge refused", me.post("/challenges/new", data={
        "csrf_token": csrf_of(form), "game": GAME, "kind": "invite",
        "invitees": "bot\nnot an address", "time_control": "3d per move", "policy": "default",
        "seat_order": "first", "rated": "on",
        **{f"option-{k}": str(v) for k, v in OPTIONS.items()}}), status=400)
    made = me.post("/challenges/new", data={
        "csrf_token": csrf_of(form), "game": GAME, "kind": "seek", "time_control": "3d per move",
        "policy": "default", "seat_order": "first", "rated": "on",
        **{f"option-{k}": str(v) for k, v in OPTIONS.items()}})
    assert made.status_code == 303, made.text
    seen(language, "seeks signed in", me, "/seeks")
    visitor = world.client(language, 3)
    seen(language, "seeks", visitor, "/seeks")
    seen(language, "seek page", visitor, made.location)
    seen(language, "seeks of no game", visitor, "/seeks?game=chess")
    # The fourth player, signed in by a link of their own, joins the seek: its game starts.
    joiner = world.client(language, 6)
    with world.database.write() as session:
        token = issue_link(session, datetime.now(UTC), ids[3])
    page = joiner.get(f"/sign-in/{token}").text
    assert joiner.post(f"/sign-in/{token}", data={"csrf_token": csrf_of(page)}).status_code \
        == 303
    page = joiner.get("/seeks").text
    public_id = made.location.rsplit("/", 1)[-1]
    joined = joiner.post(f"/seeks/{public_id}/join", data={"csrf_token": csrf_of(page)})
    assert joined.status_code == 303, joined.text
    seen(language, "seek started", joiner, joined.location)
    world.deliver(language)


def _finished_game(world: World, language: str, ids: list[int]) -> str:
    """A rated game of two players, played a little and resigned; its rematch asked for by one
    player and declined by the other. Returns the game's public id."""
    names = NAMES[language]
    people = [PlayerSpec(n, address(n, language), language=language)
              for n in names[:2]]
    game_id = start_a_game(world.database, datetime.now(UTC), world.site, GAME, OPTIONS,
                           players=people, rated=True)
    _play_a_little(world.database, world.site, game_id, 3)
    with world.database.write() as session:
        resign(session, datetime.now(UTC), world.site, game_id=game_id, seat=1)
    links = {}
    for message in world.deliver(language):
        if any("/rematch/" in link for link in Mailbox.links(message)):
            links[message["To"].addresses[0].addr_spec] = Mailbox.link(
                message, "/rematch/").removeprefix(BASE_URL)
    first, second = (links[address(n, language)] for n in names[:2])
    asker, other = world.app.test_client(), world.app.test_client()
    page = world.page(language, "rematch page", asker, first)
    world.keep(language, "rematch accepted", asker.post(first, data={
        "csrf_token": csrf_of(page), "action": "accept"}))
    world.deliver(language)
    page = world.page(language, "rematch offer page", other, second)
    world.keep(language, "rematch declined", other.post(second, data={
        "csrf_token": csrf_of(page), "action": "decline"}))
    world.deliver(language)
    with world.database.session() as session:
        row = session.get(GameRecord, game_id)
        assert row is not None
        return row.public_id


def _public_pages(world: World, language: str, ids: list[int], public_id: str) -> None:
    visitor = world.client(language, 4)
    seen = world.page
    seen(language, "archive", visitor, "/archive")
    seen(language, "archive refused", visitor, "/archive?from=soon&game=chess", status=400)
    seen(language, "replay start", visitor, f"/games/{public_id}/replay?ply=0")
    seen(language, "replay end", visitor, f"/games/{public_id}/replay")
    page = visitor.get(f"/games/{public_id}/replay?ply=1&as=1").text
    # The whole stored position is data, not words: left out.
    page = re.sub(r"(?is)<pre\b.*?</pre>", " ", page)
    world.seen[language].pages["replay as a seat"] = visible_text(page)
    seen(language, "replay of no position", visitor, f"/games/{public_id}/replay?ply=99",
         status=400)
    seen(language, "profile", visitor, f"/players/{ids[0]}")
    record = visitor.get(f"/games/{public_id}/record.txt")
    assert record.status_code == 200
    world.seen[language].pages["record"] = _record_words(record.text, public_id)


def _record_words(text: str, public_id: str) -> str:
    """The record's words without its data: the header up to the moves, less ids, options,
    times and seeds."""
    header = text.split("\n\n")[0]
    header = header.replace(public_id, " ").replace(GAME, " ")
    header = re.sub(r"\w+=\w+", " ", header)  # options
    header = re.sub(r"\d{4}-\d\d-\d\dT[\d:.+]+Z?", " ", header)  # times
    return re.sub(r"[0-9a-f]{16,}", " ", header)  # seeds and their hashes


def _tournaments(world: World, language: str, ids: list[int]) -> None:
    visitor = world.client(language, 5)
    names = NAMES[language]
    specs = [PlayerSpec(n, address(n, language)) for n in names[:4]]
    now = datetime.now(UTC)
    robin_name, swiss_name = TOURNAMENT_NAMES[language]
    with world.database.write() as session:
        robin = create_tournament(session, now, world.site, name=robin_name, game_type=GAME,
                                  options=OPTIONS, players=specs, fmt="round-robin")
        swiss = create_tournament(session, now, world.site, name=swiss_name, game_type=GAME,
                                  options=OPTIONS, players=specs[:3], fmt="swiss", rounds=2)
        assert robin.id is not None and swiss.id is not None
        robin_id, swiss_id, robin_slug, swiss_slug = robin.id, swiss.id, robin.slug, swiss.slug
        start_tournament(session, now, world.site, tournament_id=robin_id)
        start_tournament(session, now, world.site, tournament_id=swiss_id)
    world.deliver(language)
    world.page(language, "tournaments", visitor, "/tournaments")
    world.page(language, "round robin started", visitor, f"/tournaments/{robin_slug}")
    # The round robin's fourth player is withdrawn, the swiss's first round is played.
    with world.database.write() as session:
        withdraw_player(session, now, world.site, tournament_id=robin_id, player_id=ids[3],
                        actor="test")
    _end_games(world, swiss_id, rounds=1)
    _end_games(world, robin_id, rounds=1)
    world.deliver(language)
    world.page(language, "round robin", visitor, f"/tournaments/{robin_slug}")
    world.page(language, "swiss", visitor, f"/tournaments/{swiss_slug}")
    with world.database.session() as session:
        running = session.exec(select(GameRecord.public_id).join(
            TournamentGame, col(TournamentGame.game_id) == col(GameRecord.id)).where(
            TournamentGame.tournament_id == swiss_id, GameRecord.status == "active")).first()
    assert running is not None
    world.page(language, "replay running", visitor, f"/games/{running}/replay")
    world.page(language, "replay hidden", visitor, f"/games/{running}/replay?as=1", status=403)
    _end_games(world, robin_id, rounds=99)
    world.deliver(language)
    world.page(language, "round robin over", visitor, f"/tournaments/{robin_slug}")
    world.page(language, "tournaments over", visitor, "/tournaments")


def _end_games(world: World, tournament_id: int, rounds: int) -> None:
    """The first seat resigns each running game of the tournament's first ``rounds`` rounds."""
    with world.database.session() as session:
        games = session.exec(select(TournamentGame.game_id).join(
            GameRecord, col(GameRecord.id) == col(TournamentGame.game_id)).where(
            TournamentGame.tournament_id == tournament_id, TournamentGame.round <= rounds,
            GameRecord.status == "active")).all()
    for game_id in games:
        with world.database.write() as session:
            resign(session, datetime.now(UTC), world.site, game_id=game_id, seat=0)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """One app, database and mail server for every language's players."""
    folder: Path = tmp_path_factory.mktemp("new-pages")
    database, remove = make_database("sqlite", folder)
    server = SmtpServer("127.0.0.1", free_port())
    controller = Controller(SmtpHandler(server), hostname=server.host, port=server.port)
    controller.start()
    try:
        app = create_app({
            "ENV": "development", "TESTING": True, "SECRET_KEY": SECRET, "BASE_URL": BASE_URL,
            "DATABASE": database, "DATABASE_URL": database.url, "SIGNUP": "open",
            "SMTP_HOST": server.host, "SMTP_PORT": server.port, "MAIL_FROM": MAIL_FROM,
        }, read_env=False)
        yield World(app, database, app.extensions["pbem.site"], Mailbox(database, server))
    finally:
        controller.stop()
        remove()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_new_pages_and_emails_are_in_the_players_language(world: World,
                                                               language: str) -> None:
    ids = _players(world.database, language)
    me = _sign_in(world, language, ids)
    _challenges(world, language, ids, me)
    public_id = _finished_game(world, language, ids)
    _public_pages(world, language, ids, public_id)
    _tournaments(world, language, ids)
    page = me.get("/sign-out").text
    world.keep(language, "signed out everywhere", me.post("/sign-out-everywhere", data={
        "csrf_token": csrf_of(page)}))
    world.deliver(language)  # signing out everywhere mails the new games-page link
    page = me.get("/sign-out").text
    world.keep(language, "signed out", me.post("/sign-out", data={"csrf_token": csrf_of(page)}))
    problems = _page_problems(world, language) + _email_problems(world, language)
    assert not problems, f"{language}:\n" + "\n".join(problems)


def _page_problems(world: World, language: str) -> list[str]:
    pages = world.seen[language].pages
    problems = [f"page {name} was not seen" for name in set(PAGES) - set(pages)]
    for name, text in pages.items():
        if found := english_in(text, words_for(language)):
            problems.append(f"English on page {name}: {found}")
    for name, phrases in PAGES.items():
        if missing := [p for p in phrases[language] if p not in pages.get(name, "")]:
            problems.append(f"page {name} lacks {missing}")
    return problems


def _email_problems(world: World, language: str) -> list[str]:
    emails = world.seen[language].emails
    kinds = {kind for kind, _to, _text in emails}
    problems = [f"no {kind} email was sent" for kind in set(EMAILS) - kinds]
    leaks: set[tuple[str, tuple[str, ...]]] = set()
    for kind, _to, text in emails:
        if found := english_in(text, words_for(language)):
            leaks.add((kind, tuple(found)))
    problems += [f"English in {kind} email: {list(found)}" for kind, found in sorted(leaks)]
    by_kind: dict[str, str] = {}
    for kind, _to, text in emails:
        by_kind[kind] = by_kind.get(kind, "") + "\n" + text
    for kind, phrases in EMAILS.items():
        if missing := [p for p in phrases[language] if p not in by_kind.get(kind, "")]:
            problems.append(f"{kind} email lacks {missing}")
    return problems
