"""Reply and bounce tokens: short, case-insensitive, signed; and where they are found in mail."""

from __future__ import annotations

import random
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem import reply_addresses as tokens
from pbem.reply_addresses import (
    MAX_GAME,
    MAX_HOLDER,
    MAX_LOCAL_PART,
    MAX_OUTBOX,
    MAX_PLY,
    MAX_SEAT,
    REPLY_TOKEN_LENGTH,
    BadReplyToken,
    ReplyFields,
    bounce_address,
    bounce_token_in_address,
    make_bounce_token,
    make_reply_token,
    message_id,
    read_bounce_token,
    read_reply_token,
    reply_address,
    token_in_address,
    token_in_message_ids,
)

SECRET = "test-secret-key"
BASE = "play@pbem.example.org"
ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
MAX_FIELDS = ReplyFields("resign", MAX_GAME, MAX_SEAT, MAX_PLY, MAX_HOLDER)
FIELDS = ReplyFields("move", game=12, seat=1, ply=7, holder=40)


# -- reply tokens ------------------------------------------------------------------------------


@pytest.mark.parametrize("fields", [
    ReplyFields("move", 0, 0, 0, 0),
    FIELDS,
    ReplyFields("resign", 12, 1, 7, 40),
    MAX_FIELDS,
])
def test_a_reply_token_reads_back_its_fields(fields: ReplyFields) -> None:
    token = make_reply_token(SECRET, fields)
    assert len(token) == REPLY_TOKEN_LENGTH
    assert token == token.lower() and set(token) <= set(ALPHABET)
    assert read_reply_token(SECRET, token) == fields


@given(purpose=st.sampled_from(["move", "resign"]), game=st.integers(0, MAX_GAME),
       seat=st.integers(0, MAX_SEAT), ply=st.integers(0, MAX_PLY),
       holder=st.integers(0, MAX_HOLDER))
def test_any_fields_round_trip(purpose: tokens.ReplyPurpose, game: int, seat: int, ply: int,
                               holder: int) -> None:
    fields = ReplyFields(purpose, game, seat, ply, holder)
    assert read_reply_token(SECRET, make_reply_token(SECRET, fields)) == fields


def test_move_and_resign_tokens_of_one_seat_differ() -> None:
    move = make_reply_token(SECRET, FIELDS)
    resign = make_reply_token(SECRET, ReplyFields("resign", 12, 1, 7, 40))
    assert move != resign
    assert read_reply_token(SECRET, resign).purpose == "resign"


def test_addresses_fit_in_64_octets_with_the_largest_ids() -> None:
    reply = reply_address(BASE, make_reply_token(SECRET, MAX_FIELDS))
    bounce = bounce_address(BASE, make_bounce_token(SECRET, MAX_OUTBOX))
    assert len(reply.split("@")[0]) == len("play+") + 40 <= MAX_LOCAL_PART
    assert len(bounce.split("@")[0]) == len("bounce+") + 32 <= MAX_LOCAL_PART
    # The token leaves room for a reply local part of up to 23 octets; beyond that, refuse.
    assert reply_address("p" * 23 + "@x.org", make_reply_token(SECRET, MAX_FIELDS))
    with pytest.raises(ValueError, match="64 octets"):
        reply_address("p" * 24 + "@x.org", make_reply_token(SECRET, MAX_FIELDS))


@pytest.mark.parametrize("change", [str.upper, str.title, lambda t: t[:20].upper() + t[20:]])
def test_a_token_reads_the_same_in_any_case(change: object) -> None:
    token = make_reply_token(SECRET, MAX_FIELDS)
    assert read_reply_token(SECRET, change(token)) == MAX_FIELDS  # type: ignore[operator]
    bounce = make_bounce_token(SECRET, 812)
    assert read_bounce_token(SECRET, change(bounce)) == 812  # type: ignore[operator]


def test_every_one_character_change_is_refused() -> None:
    for token, read in ((make_reply_token(SECRET, FIELDS), read_reply_token),
                        (make_bounce_token(SECRET, 812), read_bounce_token)):
        for index, old in enumerate(token):
            for new in ALPHABET.replace(old, ""):
                with pytest.raises(BadReplyToken):
                    read(SECRET, token[:index] + new + token[index + 1:])


def test_a_token_of_another_secret_is_refused() -> None:
    with pytest.raises(BadReplyToken, match="bad signature"):
        read_reply_token(SECRET, make_reply_token("another-secret", FIELDS))
    with pytest.raises(BadReplyToken, match="bad signature"):
        read_bounce_token(SECRET, make_bounce_token("another-secret", 812))


def test_reply_and_bounce_tokens_do_not_stand_in_for_each_other() -> None:
    with pytest.raises(BadReplyToken):
        read_bounce_token(SECRET, make_reply_token(SECRET, FIELDS))
    with pytest.raises(BadReplyToken):
        read_reply_token(SECRET, make_bounce_token(SECRET, 812))
    # Same length and layout, signed with the bounce key: the keys are separate, so refused.
    payload = bytes([0x11]) + (12).to_bytes(4, "big") + bytes([1]) + (7).to_bytes(3, "big") + (
        40).to_bytes(4, "big")
    assert tokens._sign(SECRET, b"pbem-reply", payload) == make_reply_token(SECRET, FIELDS)
    with pytest.raises(BadReplyToken, match="bad signature"):
        read_reply_token(SECRET, tokens._sign(SECRET, b"pbem-bounce", payload))


@pytest.mark.parametrize("damage", [
    lambda t: "",
    lambda t: t[:-1],
    lambda t: t + "a",
    lambda t: t[:-8],
    lambda t: t + "========",
    lambda t: " " + t[1:],
    lambda t: t[:-1] + "1",
    lambda t: t[:-1] + "=",
    lambda t: t[:5] + "-" + t[6:],
    lambda t: t[:5] + "é" + t[6:],
])
def test_damaged_tokens_are_refused(damage: object) -> None:
    token = damage(make_reply_token(SECRET, FIELDS))  # type: ignore[operator]
    with pytest.raises(BadReplyToken):
        read_reply_token(SECRET, token)
    assert isinstance(BadReplyToken(), ValueError)


def verifies(token: str) -> bool:
    try:
        read_reply_token(SECRET, token)
    except BadReplyToken:
        return False
    return True


def test_random_tokens_never_verify() -> None:
    chance = random.Random(15)
    guesses = ("".join(chance.choices(ALPHABET, k=REPLY_TOKEN_LENGTH)) for _ in range(50_000))
    assert not any(verifies(token) for token in guesses)
    # Well-formed payloads (a real tag, fields in range) with a guessed MAC: only the MAC stands.
    real = [make_reply_token(SECRET, ReplyFields(
        "move", chance.randrange(MAX_GAME), chance.randrange(MAX_SEAT),
        chance.randrange(MAX_PLY), chance.randrange(MAX_HOLDER))) for _ in range(500)]
    guesses = (token[:21] + "".join(chance.choices(ALPHABET, k=REPLY_TOKEN_LENGTH - 21))
               for token in real for _ in range(100))
    assert not any(verifies(token) for token in guesses)
    assert all(verifies(token) for token in real)  # the check above can fail


@pytest.mark.parametrize(("field", "value"), [
    ("game", MAX_GAME + 1), ("seat", MAX_SEAT + 1), ("ply", MAX_PLY + 1),
    ("holder", MAX_HOLDER + 1), ("game", -1), ("seat", True), ("ply", 1.0),
])
def test_fields_out_of_range_are_a_programming_error(field: str, value: object) -> None:
    values: dict[str, object] = {"game": 1, "seat": 0, "ply": 0, "holder": 1, field: value}
    with pytest.raises(ValueError, match=field):
        ReplyFields("move", **values)  # type: ignore[arg-type]


def test_unknown_purposes_outbox_ids_and_empty_secrets_are_refused() -> None:
    with pytest.raises(ValueError, match="purpose"):
        ReplyFields("invite", 1, 0, 0, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="outbox"):
        make_bounce_token(SECRET, MAX_OUTBOX + 1)
    with pytest.raises(ValueError, match="secret"):
        make_reply_token("", FIELDS)


# -- addresses ---------------------------------------------------------------------------------


def test_reply_and_bounce_addresses() -> None:
    token = make_reply_token(SECRET, FIELDS)
    assert reply_address(BASE, token) == f"play+{token}@pbem.example.org"
    assert reply_address(BASE, token.upper()) == f"play+{token}@pbem.example.org"
    assert bounce_address(BASE, "abc") == "bounce+abc@pbem.example.org"
    for bad_base in ("play", "@pbem.example.org", "play+x@pbem.example.org"):
        with pytest.raises(ValueError):
            reply_address(bad_base, token)
    with pytest.raises(ValueError, match="not a token"):
        reply_address(BASE, "not@a token")


@pytest.mark.parametrize(("address", "found"), [
    ("play+abc234@pbem.example.org", "abc234"),
    ("PLAY+ABC234@PBEM.EXAMPLE.ORG", "abc234"),
    ("pbem <Play+Abc234@Pbem.Example.Org>", "abc234"),
    ("<play+abc234@pbem.example.org>", "abc234"),
    ("play@pbem.example.org", None),
    ("play+@pbem.example.org", None),
    ("play+abc234@other.example.org", None),
    ("player+abc234@pbem.example.org", None),
    ("bounce+abc234@pbem.example.org", None),
    ("alice@example.org", None),
    ("not an address", None),
])
def test_the_token_in_a_recipient_address(address: str, found: str | None) -> None:
    assert token_in_address(address, BASE) == found


def test_the_token_in_a_return_path() -> None:
    token = make_bounce_token(SECRET, 812)
    address = bounce_address(BASE, token).upper()
    assert bounce_token_in_address(address, BASE) == token
    assert token_in_address(address, BASE, local="bounce") == token
    assert token_in_address(address, BASE) is None
    assert bounce_token_in_address(reply_address(BASE, token), BASE) is None
    assert read_bounce_token(SECRET, bounce_token_in_address(address, BASE) or "") == 812


# -- Message-IDs -------------------------------------------------------------------------------


def test_a_message_id_carries_the_token() -> None:
    token = make_reply_token(SECRET, FIELDS)
    assert message_id(token, "pbem.example.org", "812.1") == (
        f"<pbem.{token}.812.1@pbem.example.org>")
    for unique, domain in (("", "x.org"), ("a b", "x.org"), ("a@b", "x.org"), ("x", "a>b")):
        with pytest.raises(ValueError):
            message_id(token, domain, unique)


def test_tokens_in_in_reply_to_and_references() -> None:
    first = make_reply_token(SECRET, FIELDS)
    second = make_reply_token(SECRET, ReplyFields("move", 12, 1, 9, 40))
    in_reply_to = message_id(second, "pbem.example.org", "901.3")
    references = (f"<CAJx9q7Z3uFh@mail.gmail.com>\r\n {message_id(first, 'x.org', '8')}\r\n\t"
                  f"{in_reply_to.upper()} <pbem.notatoken@pbem.example.org>")
    assert token_in_message_ids([in_reply_to, references]) == [second, first]
    assert token_in_message_ids([f"pbem.{first}.812.1@pbem.example.org"]) == [first]
    assert token_in_message_ids(["<a@b>", "", "<xpbem.abcdefghijklmnop.1@x.org>"]) == []


def test_message_ids_survive_a_round_trip_through_folded_headers() -> None:
    ids = [message_id(make_reply_token(SECRET, ReplyFields("move", 12, 1, ply, 40)),
                      "pbem.example.org", f"{800 + ply}.1") for ply in range(6)]
    reply = EmailMessage()
    reply["In-Reply-To"] = ids[-1]
    reply["References"] = " ".join(ids)  # long: folded over several lines on the wire
    raw = reply.as_bytes(policy=policy.SMTP)
    assert b"\r\n " in raw or b"\r\n\t" in raw
    parsed = message_from_bytes(raw.upper(), policy=policy.default)  # and a case change
    found = token_in_message_ids([str(v) for key in ("In-Reply-To", "References")
                                  for v in parsed.get_all(key, [])])
    assert [read_reply_token(SECRET, token).ply for token in found] == [5, 0, 1, 2, 3, 4]
