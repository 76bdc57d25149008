"""Play by reply in the player's language: answers in Dutch, German and Italian, and command words
in those languages, through the real SMTP round trip of ``tests/inbound/replies.py``.

The catalogs are compared with :class:`pbem.i18n.Reader` rather than with Dutch words written
here, so these tests follow the translators; that each sentence differs from its English is
checked too (it holds once the catalogs are filled in).
"""

from __future__ import annotations

import dataclasses
import email
import email.policy
from datetime import UTC, datetime

import pytest
from sqlmodel import col, select

import engine
from pbem.i18n import Reader
from pbem.inbound.reading import COMMAND_WORDS, COMMANDS, Command, Reply, read_reply
from pbem.models import OutboxEmail, Player
from pbem.positions import current_state
from pbem.services import PlayerSpec
from tests.inbound.replies import ReplyTable, answer
from tests.support import smallest_options, start_a_game

ENGLISH = Reader("en")


def start(table: ReplyTable, game_id: str = "mosey") -> int:
    options = smallest_options(game_id)
    count = engine.new_game(game_id, **options).num_players
    players = [PlayerSpec(f"P{n}", f"p{n}@example.test") for n in range(count)]
    return start_a_game(table.database, datetime.now(UTC), table.site, game_id, options,
                        players=players)


def speaks(table: ReplyTable, address: str, language: str) -> None:
    """The player at ``address`` chose ``language`` (on their settings page, say)."""
    with table.database.write() as session:
        player = session.exec(select(Player).where(Player.email == address)).one()
        player.language = language
        session.add(player)


def last_answer(table: ReplyTable, address: str) -> OutboxEmail:
    with table.database.session() as session:
        found = session.exec(select(OutboxEmail).where(
            OutboxEmail.to_address == address, col(OutboxEmail.kind).like("reply_%"))
            .order_by(col(OutboxEmail.id).desc())).first()
    assert found is not None, f"no answer to {address}"
    return found


def reply_as(table: ReplyTable, language: str, words: str) -> tuple[int, str, OutboxEmail]:
    """A game whose player to move reads ``language`` and answers their turn with ``words``;
    (the game, the player's address, the answer they got)."""
    game = start(table)
    table.fetch()
    address = table.player_to_move(game)
    speaks(table, address, language)
    table.send(answer(table.latest(address), words))
    return game, address, last_answer(table, address)


def translated(language: str, *msgids: str) -> None:
    """Each of ``msgids`` has its own words in ``language`` (true once the catalog is done)."""
    reader = Reader(language)
    same = [msgid for msgid in msgids if reader.gettext(msgid) == ENGLISH.gettext(msgid)]
    assert not same, f"not translated into {language}: {same}"


HELP = (
    "Commands (alone on the first line):",
    "this message",
    "the current board",
    "To play by mail, answer the email about your turn with your move on the first line, "
    "above the quoted text.",
)


# -- answers in the player's language ----------------------------------------------------------


def test_a_dutch_player_who_replies_help_gets_dutch_help(reply_table: ReplyTable) -> None:
    _, _, sent = reply_as(reply_table, "nl", "help")
    dutch = Reader("nl")
    assert sent.kind == "reply_help"
    for msgid in HELP:
        assert dutch.gettext(msgid) in sent.text_body
    assert dutch.gettext(HELP[-1]) in sent.html_body
    assert '<html lang="nl">' in sent.html_body
    # The Dutch words are the ones listed, and the English ones are said to work too.
    assert "  hulp " in sent.text_body and "  vakantie 5d " in sent.text_body
    assert "<strong>opgeven</strong>" in sent.html_body
    assert "help, board, status, games, pass, resign, vacation" in sent.text_body
    translated("nl", *HELP, "The commands work in English too: %(words)s.")


def test_a_german_player_s_illegal_move_is_refused_in_german(reply_table: ReplyTable) -> None:
    game, _, sent = reply_as(reply_table, "de", "Z9")
    german = Reader("de")
    with reply_table.database.session() as session:
        from pbem.models import GameRecord

        row = session.get(GameRecord, game)
        assert row is not None
        rules, state = current_state(row)
    with pytest.raises(engine.IllegalMove) as refused:
        rules.play(state, "Z9", seat=rules.to_move(state))
    why = german.text(refused.value.text)
    reason = german.gettext("%(reason)s; nothing was played", reason=why)
    assert sent.kind == "reply_refused"
    assert german.gettext("Your message was not carried out: %(reason)s.",
                          reason=reason) in sent.text_body
    assert german.gettext("Moves you can make now, for example: %(moves)s",
                          moves="") in sent.text_body
    assert german.gettext("Reply with %(help)s for the notation of %(game)s.",
                          help='"hilfe"', game=german.gettext("Mosey")) in sent.text_body
    translated("de", "Your message was not carried out: %(reason)s.",
               "%(reason)s; nothing was played", refused.value.text.msgid)
    assert why != str(refused.value.text), "the engine's reason is not in German"


@pytest.mark.parametrize("word", ["aiuto", "Aiuto."])
def test_an_italian_player_s_aiuto_is_help(reply_table: ReplyTable, word: str) -> None:
    _, _, sent = reply_as(reply_table, "it", word)
    italian = Reader("it")
    assert reply_table.outcomes[-1].kind == "command"
    assert sent.kind == "reply_help"
    for msgid in HELP:
        assert italian.gettext(msgid) in sent.text_body
    assert "  aiuto " in sent.text_body and "  tavoliere " in sent.text_body
    translated("it", *HELP)


def test_an_english_player_s_answers_are_unchanged(reply_table: ReplyTable) -> None:
    _, address, sent = reply_as(reply_table, "en", "help")
    assert sent.kind == "reply_help"
    body = sent.text_body
    assert body.startswith("Hello P0,\n\nYou play Mosey")
    assert ("Commands (alone on the first line):\n"
            "  help          this message\n"
            "  board         the current board\n"
            "  status        whose turn it is, the deadline and the position\n"
            "  games         your games, with their links\n"
            "  pass          pass, where the rules allow it\n"
            '  resign        asks you to confirm; answer the confirmation with "resign" to '
            "resign\n"
            "  vacation 5d   stop your clocks for 5 days from today (also 2w)\n") in body
    assert "Moves you can make now, for example: " in body
    assert "work in English too" not in body
    assert ("Answer this email to play: write your move, or one of help, board, status, games, "
            "resign, vacation 5d, on the first line.") in body
    assert '<html lang="en">' in sent.html_body
    assert sent.subject.startswith("Re: ")
    reply_table.send(answer(reply_table.latest(address), "Z9"))
    refusal = last_answer(reply_table, address)
    assert "Your message was not carried out: " in refusal.text_body
    assert "; nothing was played." in refusal.text_body
    assert 'Reply with "help" for the notation of Mosey.' in refusal.text_body


@pytest.mark.parametrize(("language", "words", "kind"), [
    ("nl", "bord", "reply_board"), ("nl", "stand", "reply_status"),
    ("nl", "partijen", "reply_games"), ("nl", "opgeven", "reply_resign"),
    ("de", "Brett", "reply_board"), ("de", "Spiele", "reply_games"),
    ("de", "aufgeben", "reply_resign"), ("de", "urlaub 5t", "reply_vacation"),
    ("it", "stato", "reply_status"), ("it", "partite", "reply_games"),
    ("it", "vacanza 1 settimana", "reply_vacation"),
    ("nl", "status", "reply_status"),  # the English words work for everybody
])
def test_commands_in_the_player_s_language_are_answered_in_it(
        reply_table: ReplyTable, language: str, words: str, kind: str) -> None:
    _, _, sent = reply_as(reply_table, language, words)
    assert reply_table.outcomes[-1].kind == "command", reply_table.outcomes[-1]
    assert sent.kind == kind
    assert Reader(language).gettext("Hello %(name)s,", name="P0") in sent.text_body
    assert f'<html lang="{language}">' in sent.html_body


def test_a_dutch_resignation_is_confirmed_with_the_dutch_word(reply_table: ReplyTable) -> None:
    from pbem.models import GameStatus

    game, address, sent = reply_as(reply_table, "nl", "opgeven")
    dutch = Reader("nl")
    assert dutch.gettext("To confirm, answer this email with the word %(word)s on the first "
                         "line.", word='"opgeven"') in sent.text_body
    reply_table.fetch()
    confirmation = reply_table.latest(address)
    refused = reply_table.send(answer(confirmation, "ja"))
    assert refused.kind == "refused"
    assert dutch.gettext("to resign, answer the confirmation with the word %(resign)s; nothing "
                         "was changed", resign="opgeven") in last_answer(
        reply_table, address).text_body
    assert reply_table.send(answer(confirmation, "Opgeven")).kind == "command"
    assert reply_table.game(game).status == GameStatus.FINISHED


def test_a_subjectless_reply_gets_a_subject_in_the_player_s_language(
        reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    address = reply_table.player_to_move(game)
    speaks(reply_table, address, "it")
    raw = answer(reply_table.latest(address), "tavoliere")
    message = email.message_from_bytes(raw, policy=email.policy.default)
    del message["Subject"]
    reply_table.send(message.as_bytes(policy=email.policy.SMTP))
    sent = last_answer(reply_table, address)
    assert sent.subject == Reader("it").gettext("The board now")
    translated("it", "The board now")


def test_a_player_in_a_language_we_do_not_write_is_refused_in_the_site_s_default_language(
        reply_table: ReplyTable) -> None:
    # Only players we have mailed get a refusal of a message we cannot tie to a game (a stranger
    # gets none: tests/inbound/test_reply_abuse.py), so the site's language is for players
    # whose own language pbem does not write.
    reply_table.site = dataclasses.replace(reply_table.site, default_language="de")
    from pbem.inbound.service import receive

    start(reply_table)
    reply_table.fetch()
    speaks(reply_table, "p0@example.test", "fr")
    raw = (b"From: p0@example.test\r\nTo: play@pbem.example.test\r\n"
           b"Subject: hallo\r\nMessage-ID: <lost@example.test>\r\n\r\nD4\r\n")
    outcome = receive(reply_table.database, datetime.now(UTC), reply_table.site, raw)
    assert outcome.kind == "refused" and outcome.answered
    assert outcome.detail == "no-game: this message does not answer one of our emails"
    sent = last_answer(reply_table, "p0@example.test")
    german = Reader("de")
    assert german.gettext("Your message was not carried out: %(reason)s.", reason=german.gettext(
        "this message does not answer one of our emails")) in sent.text_body
    assert german.gettext("Hello %(name)s,", name="P0") in sent.text_body
    assert sent.subject == german.gettext("Your message was not carried out")  # not "hallo"
    translated("de", "this message does not answer one of our emails", "Hello %(name)s,")


# -- command words -------------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "command"), [
    ("hulp", Command("help")), ("Bord", Command("board")), ("stand", Command("status")),
    ("partijen", Command("games")), ("passen", Command("pass")), ("opgeven", Command("resign")),
    ("vakantie 2w", Command("vacation", 14)), ("vakantie 3 dagen", Command("vacation", 3)),
    ("Hilfe!", Command("help")), ("brett", Command("board")), ("Status", Command("status")),
    ("partien", Command("games")), ("spiele", Command("games")), ("aufgeben", Command("resign")),
    ("urlaub 2 wochen", Command("vacation", 14)), ("Urlaub 4t", Command("vacation", 4)),
    ("aiuto", Command("help")), ("tavoliere", Command("board")), ("stato", Command("status")),
    ("partite", Command("games")), ("passo", Command("pass")), ("abbandono", Command("resign")),
    ("vacanza 10 giorni", Command("vacation", 10)), ("vacanza 2s", Command("vacation", 14)),
])
def test_command_words_of_every_language_are_read(line: str, command: Command) -> None:
    assert read_reply(f"{line}\n\ndanke") == Reply(command=command)


@pytest.mark.parametrize("note", ["note", "notitie", "Notiz", "nota"])
def test_a_note_may_be_introduced_in_every_language(note: str) -> None:
    assert read_reply(f"C2-E2\n{note}: ciao") == Reply(("C2-E2",), "ciao")


def test_no_command_word_means_two_commands() -> None:
    meaning: dict[str, str] = {}
    for language, words in COMMAND_WORDS.items():
        assert set(words) == {*COMMANDS, "note", "say"}, language
        for name, found in words.items():
            for word in found:
                assert meaning.setdefault(word, name) == name, (language, word)


@pytest.mark.parametrize("game_id", list(engine.GAMES))
def test_no_command_word_is_a_move_in_any_game(game_id: str) -> None:
    """Only the English "pass" is notation too (and the pass command plays that move)."""
    game = engine.new_game(game_id, **smallest_options(game_id))
    words = {word for language in COMMAND_WORDS.values() for found in language.values()
             for word in found} - {"pass"}
    lines = [*words, *(f"{word} 5d" for word in COMMAND_WORDS["it"]["vacation"]
                       + COMMAND_WORDS["nl"]["vacation"] + COMMAND_WORDS["de"]["vacation"])]
    for line in lines:
        with pytest.raises(engine.IllegalMove):
            game.parse_move(line)
