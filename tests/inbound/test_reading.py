"""Reading replies: the new text of real clients' replies, and the move, note or command in it."""

from __future__ import annotations

import email
import email.policy
import json
import time
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from pbem.inbound.reading import (
    Command,
    Reply,
    html_to_text,
    read_reply,
    reply_text,
    strip_quotes,
)

REPLIES = Path(__file__).parent / "fixtures" / "replies"
EXPECTED: dict[str, dict[str, Any]] = {
    name: value for name, value in json.loads((REPLIES / "expected.json").read_text()).items()
    if not name.startswith("_")}


def load(name: str) -> EmailMessage:
    message = email.message_from_bytes((REPLIES / name).read_bytes(), policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


def expected_reply(name: str) -> Reply:
    want = EXPECTED[name]
    command = Command(*want["command"]) if want["command"] else None
    return Reply(tuple(want["steps"]), want["note"], command)


def body_text(message: EmailMessage, kind: str) -> str | None:
    part = message.get_body(preferencelist=(kind,))
    return None if part is None else str(part.get_content())


# -- the fixtures: Gmail, Outlook, Apple Mail and Thunderbird in four languages ---------------


def test_every_client_and_language_has_a_fixture_and_every_fixture_an_answer() -> None:
    names = {path.name for path in REPLIES.glob("*.eml")}
    assert names == set(EXPECTED)
    for client in ("gmail", "outlook", "apple", "thunderbird"):
        for language in ("en", "nl", "de", "it"):
            assert f"{client}-{language}.eml" in names
    assert len([name for name in names if name.startswith("html-only-")]) >= 2


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_real_reply_reads_as_written(name: str) -> None:
    message = load(name)
    text = reply_text(message)
    assert text == EXPECTED[name]["text"]
    assert read_reply(text) == expected_reply(name)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_quoted_message_would_mislead_a_careless_reader(name: str) -> None:
    """Each fixture quotes an earlier move or command word that must not be read."""
    message = load(name)
    trap = EXPECTED[name]["trap"]
    bodies = [body for kind in ("plain", "html") if (body := body_text(message, kind))]
    assert any(trap in " ".join(body.split()) for body in bodies)
    assert any(word in " ".join(bodies).lower() for word in ("pass", "resign", "vacation"))
    assert trap not in reply_text(message)


@pytest.mark.parametrize("name", sorted(name for name in EXPECTED
                                        if body_text(load(name), "html") is not None))
def test_the_html_part_reads_like_the_plain_part(name: str) -> None:
    html = body_text(load(name), "html")
    assert html is not None
    assert read_reply(strip_quotes(html_to_text(html))) == expected_reply(name)


# -- commands, moves and notes -----------------------------------------------------------------


@pytest.mark.parametrize(("line", "command"), [
    ("help", Command("help")),
    ("BOARD", Command("board")),
    ("  Status  ", Command("status")),
    ("games.", Command("games")),
    ("Pass", Command("pass")),
    ("resign!", Command("resign")),
    ("vacation 5d", Command("vacation", 5)),
    ("Vacation 2w", Command("vacation", 14)),
    ("vacation 3", Command("vacation", 3)),
    ("vacation  10 days", Command("vacation", 10)),
    ("vacation 1 week", Command("vacation", 7)),
    ("VACATION 2W", Command("vacation", 14)),
])
def test_a_command_alone_on_the_first_line(line: str, command: Command) -> None:
    assert read_reply(f"{line}\n\nthanks") == Reply(command=command)


@pytest.mark.parametrize("line", [
    "help me", "pass D4", "resign now", "vacation", "vacation 0d", "vacation 5x", "vacation -2d",
    "vacation 5d please", "holiday 5d",
])
def test_other_first_lines_are_the_move(line: str) -> None:
    assert read_reply(line) == Reply(steps=(line,))


def test_pass_among_steps_is_a_step() -> None:
    assert read_reply("D4; pass") == Reply(steps=("D4", "pass"))
    assert read_reply("D4\npass") == Reply(steps=("D4", "pass"))


def test_steps_go_on_until_a_blank_line_or_a_note() -> None:
    assert read_reply("C2-E2\nE2xG4;G4xE6\n\nB1 later").steps == ("C2-E2", "E2xG4", "G4xE6")
    assert read_reply("C2-E2\nnote: one\nE2xG4").steps == ("C2-E2",)
    assert read_reply("  D4 ;; E5 ;  ").steps == ("D4", "E5")
    assert read_reply("place   a  stone at D4").steps == ("place a stone at D4",)


def test_notes_after_the_move() -> None:
    reply = read_reply("D4\n\nNote: first\nwrapped here\n\nnot a note\nNOTE : second\nnote:")
    assert reply == Reply(steps=("D4",), note="first wrapped here\nsecond")
    assert read_reply("resign\nnote: gg").note == "gg"
    assert read_reply("note: only a note") == Reply(note="only a note")


@pytest.mark.parametrize("text", ["", "   \n\n\t\n", "\u00a0", "> D4\n> pass",
                                  "Sent from my iPhone", "-- \nAlice"])
def test_an_empty_reply(text: str) -> None:
    assert read_reply(text) == Reply()


def test_windows_line_endings_and_non_breaking_spaces() -> None:
    reply = read_reply("\r\nD4\u00a0\r\nE5\r\n\r\nnote:\u00a0well\u202fplayed\r\n")
    assert reply == Reply(steps=("D4", "E5"), note="well played")
    assert read_reply("\ufeffvacation\u00a05d") == Reply(command=Command("vacation", 5))


@pytest.mark.parametrize("phone", [
    "Sent from my iPhone", "Verstuurd vanaf mijn iPhone", "Von meinem iPhone gesendet",
    "Inviato da iPhone", "Sent from my Galaxy", "Get Outlook for Android",
    "Von meinem iPad gesendet", "Inviato dal mio iPhone",
])
def test_phone_signatures_are_dropped(phone: str) -> None:
    assert read_reply(f"D4\n\n{phone}") == Reply(steps=("D4",))
    assert read_reply(f"D4\n{phone}") == Reply(steps=("D4",))
    assert strip_quotes(f"D4\n\n{phone}\n\n> pass") == "D4"


# -- quotes and signatures in plain text -------------------------------------------------------


@pytest.mark.parametrize("attribution", [
    "On Mon, 23 Nov 2026 at 21:00, pbem <pbem@pbem.example.org> wrote:",
    "On Mon, 23 Nov 2026 at 21:00, pbem <pbem@pbem.example.org>\nwrote:",
    "Op ma 23 nov 2026 om 21:00 schreef pbem <pbem@pbem.example.org>:",
    "Op 23 nov 2026 om 21:00 heeft pbem <pbem@pbem.example.org> het volgende geschreven:",
    "Am Mo., 23. Nov. 2026 um 21:00 Uhr schrieb pbem <pbem@pbem.example.org>:",
    "Am 23.11.26 um 21:00 schrieb pbem:",
    "Il giorno lun 23 nov 2026 alle ore 21:00 pbem <pbem@pbem.example.org> ha\nscritto:",
    "Il 23/11/2026 21:00, pbem ha scritto:",
    "pbem <pbem@pbem.example.org> wrote:",
])
def test_attributions_in_four_languages(attribution: str) -> None:
    quote = "> Bob played pass.\n> help, board, status, games, resign"
    assert strip_quotes(f"D4\n\n{attribution}\n{quote}") == "D4"
    # Below the quote (people who bottom-post), the move is what is left.
    assert strip_quotes(f"{attribution}\n{quote}\n\nD4\nnote: hi") == "D4\nnote: hi"
    assert read_reply(f"{attribution}\n{quote}\n\nD4\nnote: hi") == Reply(("D4",), "hi")


@pytest.mark.parametrize("header", [
    "From: pbem <pbem@pbem.example.org>\nSent: Monday, November 23, 2026 9:00 PM\nTo: Carol",
    "Van: pbem <pbem@pbem.example.org>\nVerzonden: maandag 23 november 2026 21:00\nAan: Daan",
    "Von: pbem <pbem@pbem.example.org>\nGesendet: Montag, 23. November 2026 21:00\nAn: Lena",
    "Da: pbem <pbem@pbem.example.org>\nInviato: lunedì 23 novembre 2026 21:00\nA: Marco",
    "*From:* pbem <pbem@pbem.example.org>\n*Date:* Mon, 23 Nov 2026\n*Subject:* Refugia",
    "-----Original Message-----\nFrom: pbem",
    "-----Oorspronkelijk bericht-----",
    "-----Ursprüngliche Nachricht-----",
    "-----Messaggio originale-----",
])
def test_outlook_headers_start_the_old_message(header: str) -> None:
    old = "Hello Carol,\n\nBob played pass.\nnote: from Bob"
    assert strip_quotes(f"resign\n\n{header}\nSubject: Refugia\n\n{old}") == "resign"
    assert strip_quotes(f"resign\n________________________________\n{header}\n\n{old}") == "resign"


def test_a_signature_ends_the_reply() -> None:
    assert strip_quotes("D4\nnote: hi\n-- \nAlice\nnote: not this") == "D4\nnote: hi"
    assert read_reply("D4\n--\nE5") == Reply(steps=("D4",))


def test_quoted_lines_are_never_read() -> None:
    assert read_reply("> pass\n>> resign\n > help\nD4") == Reply(steps=("D4",))
    assert read_reply("On Mon, pbem wrote:\n> pass") == Reply()


def test_an_attribution_without_a_quote_starts_the_old_message() -> None:
    # Clients that quote without ">" (or HTML whose quote was dropped): what follows is old.
    assert strip_quotes("D4\n\nOn Mon, 23 Nov 2026, pbem wrote:\nHello Alice,\npass") == "D4"


# -- HTML --------------------------------------------------------------------------------------


def test_html_blocks_and_breaks_become_lines() -> None:
    html = ("<html><head><title>x</title><style>p {margin:0}</style></head><body>"
            "<div>D4</div><div>E5<br></div><div><br></div><p>note:&nbsp;one&amp;two</p>"
            "<ul><li>a</li><li>b</li></ul><table><tr><td>c</td><td>d</td></tr></table>"
            "<script>pass()</script>text <b>bold</b>\n   wrapped</body></html>")
    assert html_to_text(html) == "D4\nE5\n\nnote:\u00a0one&two\na\nb\nc d\ntext bold wrapped"


def test_html_quotes_are_dropped_wherever_they_stand() -> None:
    html = ('<div>D4</div><blockquote type="cite"><div>pass<div>resign</div></div>'
            '<blockquote>help</blockquote>board</blockquote><div>note: after</div>'
            '<div class="gmail_quote"><div class="gmail_attr">On Mon, pbem wrote:</div>'
            '<div><div>games</div></div></div><div class="moz-cite-prefix">Il 23, pbem ha '
            'scritto:<br></div><pre class="moz-signature">-- \nAlice</pre>'
            '<div class="gmail_signature"><div>Alice</div></div><p>E5</p>')
    assert html_to_text(html) == "D4\nnote: after\nE5"


def test_html_after_outlooks_reply_marker_is_dropped() -> None:
    html = ('<div>resign</div><div id="appendonsend"></div><hr><div id="divRplyFwdMsg">'
            "<b>From:</b> pbem</div><div>Hello Carol, pass</div>")
    assert html_to_text(html) == "resign"
    assert html_to_text('<div>D4</div><div id="divRplyFwdMsg">From: pbem</div>x') == "D4"


def test_html_pre_keeps_its_lines() -> None:
    assert html_to_text("<pre>D4\n  E5</pre>after") == "D4\n  E5\nafter"


# -- reply_text: which part, charsets, format=flowed ------------------------------------------


def message_of(raw: str) -> EmailMessage:
    message = email.message_from_string(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


def test_an_empty_plain_part_next_to_the_html_one() -> None:
    message = EmailMessage()
    message.set_content(" \n")
    message.add_alternative("<div>D4</div><blockquote>pass</blockquote>", subtype="html")
    assert reply_text(message) == "D4"


def test_format_flowed_lines_are_joined() -> None:
    raw = ("Content-Type: text/plain; charset=utf-8; format=flowed; delsp=yes\n\n"
           "note: a long note that the client broke at seventy-two charac \n"
           "ters or so.\nD4 \n\n> Bob played \n> pass.\n")
    flowed = message_of("MIME-Version: 1.0\n" + raw.replace("note: a long", "D5\nnote: a long"))
    assert reply_text(flowed) == (
        "D5\nnote: a long note that the client broke at seventy-two characters or so.\nD4")


def test_an_unknown_charset_does_not_stop_the_reading() -> None:
    message = message_of("MIME-Version: 1.0\nContent-Type: text/plain; charset=x-unknown\n"
                         "Content-Transfer-Encoding: 8bit\n\nD4\n\n> pass\n")
    assert reply_text(message) == "D4"


def test_a_message_without_text() -> None:
    message = message_of("MIME-Version: 1.0\nContent-Type: image/png\n"
                         "Content-Transfer-Encoding: base64\n\niVBORw0KGgo=\n")
    assert reply_text(message) == ""
    assert read_reply(reply_text(message)) == Reply()


def test_long_lines_do_not_stall_the_reader() -> None:
    # mail-parser-reply takes seconds per long line that starts like "On ...": it is not given
    # such lines (without the guard this text takes about a minute).
    text = "D4\n" + ("On " + "x " * 10_000 + "\n") * 3 + "> pass\n"
    started = time.perf_counter()
    assert read_reply(strip_quotes(text)).steps[0] == "D4"
    assert time.perf_counter() - started < 2
