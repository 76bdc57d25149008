"""Telling robots from people: each kind of mail that must not be answered, from stored examples,
and the human replies (Outlook's and Gmail's) that must be."""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage

import pytest

from pbem.inbound.robots import is_mailer_daemon, why_not_answer

OWN = ["pbem <pbem@pbem.example.org>", "play@pbem.example.org", "bounce@pbem.example.org"]
Load = Callable[[str, str], EmailMessage]


@pytest.mark.parametrize("name", ["human-outlook.eml", "human-gmail.eml"])
def test_a_person_s_reply_is_answered(fixture_message: Load, name: str) -> None:
    # Outlook puts X-Auto-Response-Suppress: All on everything a person sends, and the Gmail
    # reply mentions "out of office" in its text: neither makes it a robot.
    message = fixture_message("robots", name)
    assert why_not_answer(message, own_addresses=OWN) is None
    assert not is_mailer_daemon(message)


@pytest.mark.parametrize(("name", "reason"), [
    ("outlook-oof-en.eml", "out-of-office reply"),
    ("oof-nl.eml", "out-of-office reply"),
    ("oof-de.eml", "out-of-office reply"),
    ("oof-it.eml", "out-of-office reply"),
    ("vacation-autoreply.eml", "out-of-office reply"),
    ("auto-submitted.eml", "auto-submitted"),
    ("mailing-list.eml", "bulk mail"),
    ("mailer-daemon.eml", "mailer-daemon"),
])
def test_robots_are_not_answered(fixture_message: Load, name: str, reason: str) -> None:
    assert why_not_answer(fixture_message("robots", name), own_addresses=OWN) == reason


def human(**headers: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = "Ann <ann@example.org>"
    message["To"] = "play+g1.p0.Ab12@pbem.example.org"
    message["Subject"] = "Re: Your move in Mosey #1"
    for name, value in headers.items():
        name = name.replace("_", "-")
        del message[name]
        message[name] = value
    message.set_content("D4\n")
    return message


@pytest.mark.parametrize(("value", "answered"), [
    ("no", True), ("No", True), ("auto-replied", False), ("auto-generated", False),
    ("auto-notified", False), ("auto-replied; owner-email=x@example.org", False),
])
def test_auto_submitted_other_than_no(value: str, answered: bool) -> None:
    why = why_not_answer(human(Auto_Submitted=value), own_addresses=OWN)
    assert (why is None) is answered
    if not answered:
        assert why == "auto-submitted"


@pytest.mark.parametrize("value", ["bulk", "list", "junk", "auto_reply", "BULK"])
def test_robot_precedence(value: str) -> None:
    assert why_not_answer(human(Precedence=value), own_addresses=OWN) == "bulk mail"


def test_first_class_precedence_is_a_person() -> None:
    assert why_not_answer(human(Precedence="first-class"), own_addresses=OWN) is None


@pytest.mark.parametrize("header", ["X-Autoreply", "X-Autorespond", "X-Autoresponder"])
def test_auto_reply_headers(header: str) -> None:
    message = human()
    message[header] = "yes"
    assert why_not_answer(message, own_addresses=OWN) == "out-of-office reply"


@pytest.mark.parametrize("value", ["All", "OOF", "OOF, AutoReply", "DR, RN, NRN, OOF, AutoReply"])
def test_x_auto_response_suppress_alone_is_not_a_robot(value: str) -> None:
    assert why_not_answer(human(X_Auto_Response_Suppress=value), own_addresses=OWN) is None


@pytest.mark.parametrize("subject", [
    "Out of Office: Your move in Mosey #1", "Out of office", "Automatic reply: Your move",
    "Auto-Reply: Your move", "Automatisch antwoord: Je zet", "Afwezig: Je zet in Mosey #1",
    "Abwesenheitsnotiz: Ihr Zug", "Automatische Antwort: Ihr Zug", "AW: Abwesenheitsnotiz",
    "Risposta automatica: La tua mossa", "Fuori sede: La tua mossa",
    "Re: Out of Office", "Réponse automatique : votre coup",
])
def test_auto_reply_subjects(subject: str) -> None:
    assert why_not_answer(human(Subject=subject), own_addresses=OWN) == "out-of-office reply"


@pytest.mark.parametrize("subject", [
    "Re: Your move in Mosey #1", "Re: I was out of office, sorry", "Re: automatic replies?",
    "Re: afwezigheid volgende week", "",
])
def test_people_mentioning_absence_are_answered(subject: str) -> None:
    assert why_not_answer(human(Subject=subject), own_addresses=OWN) is None


@pytest.mark.parametrize("sender", [
    "pbem <pbem@pbem.example.org>", "PBEM@PBEM.example.org", "play+g1.p0.Ab12@pbem.example.org",
    "bounce+Zz99@pbem.example.org",
])
def test_our_own_address_is_a_loop(sender: str) -> None:
    assert why_not_answer(human(From=sender), own_addresses=OWN) == "our own address"


def test_reply_to_our_own_address_is_a_loop() -> None:
    message = human(Reply_To="play@pbem.example.org")
    assert why_not_answer(message, own_addresses=OWN) == "our own address"


@pytest.mark.parametrize("sender", [
    "MAILER-DAEMON@mx.example.net", "Mail Delivery System <mailer-daemon@example.net>",
    "postmaster@example.net", "Postmaster <POSTMASTER@example.net>",
])
def test_mailer_daemons(sender: str) -> None:
    message = human(From=sender)
    assert is_mailer_daemon(message)
    assert why_not_answer(message, own_addresses=OWN) == "mailer-daemon"


def test_empty_return_path_is_a_mailer_daemon() -> None:
    assert is_mailer_daemon(human(Return_Path="<>"))
    assert not is_mailer_daemon(human(Return_Path="<ann@example.org>"))


def test_delivery_report_is_a_mailer_daemon() -> None:
    message = human()
    message.make_mixed()
    message.replace_header("Content-Type", "multipart/report; report-type=delivery-status")
    assert is_mailer_daemon(message)


@pytest.mark.parametrize("sender", ["noreply@example.com", "no-reply@example.com",
                                    "do-not-reply@example.com"])
def test_no_reply_senders(sender: str) -> None:
    assert why_not_answer(human(From=sender), own_addresses=OWN) == "no-reply address"


def test_no_sender() -> None:
    message = human()
    del message["From"]
    assert why_not_answer(message, own_addresses=OWN) == "no sender"


def test_person_is_not_a_mailer_daemon() -> None:
    assert not is_mailer_daemon(human())
