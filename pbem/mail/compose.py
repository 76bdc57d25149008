"""Turning an outbox row into an ``EmailMessage``.

Structure (what Gmail, Outlook and Apple Mail all show well)::

    multipart/related
      multipart/alternative
        text/plain   (complete on its own)
        text/html    (<img src="cid:...">)
      image/png      (Content-ID, inline; one per picture: a digest shows several)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from email.errors import MessageError
from email.header import Header
from email.headerregistry import Address
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import format_datetime, parseaddr

from pbem.addresses import has_control_characters
from pbem.models import OutboxEmail

# One ASCII local part, one @, one domain: what any relay takes without SMTPUTF8. Stricter
# checks happen where addresses are typed (pbem.addresses); this only keeps out what would break
# the SMTP envelope or make smtplib raise mid-pass.
_ENVELOPE = re.compile(r"[!#-'*+\-/-9=?A-Z^-~]+(?:\.[!#-'*+\-/-9=?A-Z^-~]+)*@[A-Za-z0-9.-]+")


class UnsendableEmail(ValueError):
    """An outbox row that can never become a message: a malformed address, or a name or subject
    that cannot go into a header. Retrying would not help; the row is marked failed."""


def envelope_recipient(email: OutboxEmail) -> str:
    """The row's address for RCPT TO, or :class:`UnsendableEmail` saying why there is none.

    >>> envelope_recipient(OutboxEmail(to_address="ann@@example.org", kind="", subject="",
    ...                                message_id=""))
    Traceback (most recent call last):
    ...
    pbem.mail.compose.UnsendableEmail: not an address mail can be sent to: 'ann@@example.org'
    """
    address = email.to_address.strip()
    if not _ENVELOPE.fullmatch(address) or len(address) > 254:
        raise UnsendableEmail(f"not an address mail can be sent to: {email.to_address!r}")
    return address


def render_message(
    email: OutboxEmail, *, mail_from: str, now: datetime, png: bytes | None,
    images: Sequence[tuple[str, bytes]] = (),
) -> tuple[str, bytes]:
    """(envelope recipient, the message as bytes), or :class:`UnsendableEmail`. ``png`` is the
    email's board (``cid:board`` in its HTML), ``images`` more pictures as (name, PNG), each
    ``cid:<name>`` in the HTML.

    Serialising here, not inside smtplib, means every header problem surfaces before the SMTP
    transaction starts, so it can be blamed on this row alone.
    """
    recipient = envelope_recipient(email)
    # Python's email package encodes some of these and passes others raw into the header; either
    # way the name or subject is not what anyone typed, so refuse the row like pbem.addresses does.
    for field_name, value in (("name", email.to_name), ("subject", email.subject)):
        if has_control_characters(value):
            raise UnsendableEmail(f"the {field_name} {value!r} contains control characters")
    try:
        message = build_message(email, mail_from=mail_from, now=now, png=png, images=images)
        # CRLF here: smtplib sends bytes as they are (only str gets its line ends fixed).
        # The headers set raw below go out as folded there (see folded_header).
        policy = message.policy
        assert isinstance(policy, EmailPolicy)  # EmailMessage's default, email.policy.default
        wire = policy.clone(linesep="\r\n", refold_source="none")
        return recipient, message.as_bytes(policy=wire)
    except (ValueError, IndexError, TypeError, MessageError) as error:
        raise UnsendableEmail(f"{type(error).__name__}: {error}") from error


HEADER_LINE = 78  # RFC 5322's recommended line length


def folded_header(name: str, value: str) -> str:
    r"""``value`` folded into lines of at most 78 characters, for ``Message.set_raw``.

    Python's own folding gets subjects wrong in two ways that mail clients show: a value that
    just fits on a line of its own goes there, leaving the first line empty (parsers then keep a
    leading space), and a break between two encoded words can lose the space between them
    ("über Läufer" arrives as "überLäufer"). So plain ASCII is wrapped at single spaces, and
    anything else is encoded whole, in words of at most 75 characters whose spaces are inside
    them; a URL in angle brackets (List-Unsubscribe) stays one token, never encoded.

    >>> subject = "Your turn: Rifugio vs Computer (normal) and Computer (normal) (5avZ7b)"
    >>> folded_header("Subject", subject).split("\r\n")
    ['Your turn: Rifugio vs Computer (normal) and Computer (normal)', ' (5avZ7b)']
    >>> folded_header("Subject", "Dein Zug: Läufer")
    '=?utf-8?q?Dein_Zug=3A_L=C3=A4ufer?='
    """
    if not value.isascii() or "=?" in value:
        return Header(value, "utf-8", maxlinelen=HEADER_LINE, header_name=name).encode(
            linesep="\r\n")
    words = re.split(r"(?<=\S) (?=\S)", value)  # only single spaces between words fold
    lines, room = [words[0]], HEADER_LINE - len(name) - 2
    for word in words[1:]:
        if len(lines[-1]) + 1 + len(word) <= room:
            lines[-1] += " " + word
        else:
            lines.append(word)
            room = HEADER_LINE - 1  # a continuation line starts with its space
    return "\r\n ".join(lines)


def build_message(
    email: OutboxEmail, *, mail_from: str, now: datetime, png: bytes | None,
    images: Sequence[tuple[str, bytes]] = (),
) -> EmailMessage:
    message = EmailMessage()
    message.set_raw("Subject", folded_header("Subject", email.subject))
    message["From"] = mail_from
    name, address = email.to_name, parseaddr(email.to_address)[1]
    message["To"] = Address(display_name=name, addr_spec=address) if name else address
    message["Date"] = format_datetime(now)
    message["Message-ID"] = email.message_id
    if email.reply_to:
        message["Reply-To"] = email.reply_to  # play by reply: the signed address of this seat
    if email.in_reply_to and email.in_reply_to != email.message_id:
        message["In-Reply-To"] = email.in_reply_to
        message["References"] = email.in_reply_to
    if email.unsubscribe_url:
        # RFC 8058 one-click: the client POSTs "List-Unsubscribe=One-Click" to this URL.
        message.set_raw("List-Unsubscribe", f"<{email.unsubscribe_url}>")  # one token, as it is
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message["Auto-Submitted"] = "auto-generated"  # no vacation auto-replies, please

    html = email.html_body
    pictures = [*([("board", png)] if png is not None else []), *images]
    cids = []
    for name, _picture in pictures:
        # Unique across messages: a client that caches by Content-ID never mixes two boards.
        cid = email.message_id.strip("<>").replace("@", f".{name}@")
        html = html.replace(f'src="cid:{name}"', f'src="cid:{cid}"')
        cids.append(cid)
    body = EmailMessage()
    body.set_content(email.text_body)
    body.add_alternative(html, subtype="html")
    if not pictures:
        message.set_content(email.text_body)
        message.add_alternative(html, subtype="html")
        return message
    message["MIME-Version"] = "1.0"
    message.make_related()
    message.set_param("type", "multipart/alternative")  # RFC 2387: the root part's type
    message.attach(body)
    for (name, picture), cid in zip(pictures, cids, strict=True):
        image = EmailMessage()
        image.set_content(picture, maintype="image", subtype="png", cid=f"<{cid}>",
                          disposition="inline", filename=f"{name}.png")
        message.attach(image)
    for part in message.walk():
        if part is not message:
            del part["MIME-Version"]  # only the top level carries it
    return message
