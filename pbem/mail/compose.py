"""Turning an outbox row into an ``EmailMessage``.

Structure (what Gmail, Outlook and Apple Mail all show well)::

    multipart/related
      multipart/alternative
        text/plain   (complete on its own)
        text/html    (<img src="cid:...">)
      image/png      (Content-ID, inline)
"""

from __future__ import annotations

from datetime import datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, parseaddr

from pbem.models import OutboxEmail


def build_message(
    email: OutboxEmail, *, mail_from: str, now: datetime, png: bytes | None
) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = email.subject
    message["From"] = mail_from
    name, address = email.to_name, parseaddr(email.to_address)[1]
    message["To"] = Address(display_name=name, addr_spec=address) if name else address
    message["Date"] = format_datetime(now)
    message["Message-ID"] = email.message_id
    if email.in_reply_to and email.in_reply_to != email.message_id:
        message["In-Reply-To"] = email.in_reply_to
        message["References"] = email.in_reply_to
    if email.unsubscribe_url:
        # RFC 8058 one-click: the client POSTs "List-Unsubscribe=One-Click" to this URL.
        message["List-Unsubscribe"] = f"<{email.unsubscribe_url}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message["Auto-Submitted"] = "auto-generated"  # no vacation auto-replies, please

    html = email.html_body
    cid = None
    if png is not None:
        cid = email.message_id.strip("<>").replace("@", ".board@")
        html = html.replace('src="cid:board"', f'src="cid:{cid}"')
    body = EmailMessage()
    body.set_content(email.text_body)
    body.add_alternative(html, subtype="html")
    if png is None or cid is None:
        message.set_content(email.text_body)
        message.add_alternative(html, subtype="html")
        return message
    image = EmailMessage()
    image.set_content(png, maintype="image", subtype="png", cid=f"<{cid}>",
                      disposition="inline", filename="board.png")
    message["MIME-Version"] = "1.0"
    message.make_related()
    message.set_param("type", "multipart/alternative")  # RFC 2387: the root part's type
    message.attach(body)
    message.attach(image)
    for part in message.walk():
        if part is not message:
            del part["MIME-Version"]  # only the top level carries it
    return message
