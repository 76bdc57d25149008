"""Development only: the mail the built-in catcher received, shown as a mail client would."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage

from flask import Blueprint, Response, abort, render_template, url_for
from sqlmodel import col, select

from pbem.models import CaughtMail
from pbem.web.support import database

bp = Blueprint("dev", __name__, url_prefix="/dev")


def _parsed(mail_id: int) -> tuple[CaughtMail, EmailMessage]:
    with database().session() as session:
        caught = session.get(CaughtMail, mail_id)
    if caught is None:
        abort(404)
    message = email.message_from_bytes(caught.raw, policy=email.policy.default)
    return caught, message


@bp.get("/mail")
def mail_list() -> str:
    with database().session() as session:
        caught = session.exec(select(CaughtMail).order_by(col(CaughtMail.id).desc())
                              .limit(200)).all()
    items = []
    for mail in caught:
        message = email.message_from_bytes(mail.raw, policy=email.policy.default)
        items.append((mail, message["Subject"], message["To"]))
    return render_template("dev/mail_list.html", items=items)


@bp.get("/mail/<int:mail_id>")
def mail_show(mail_id: int) -> str:
    caught, message = _parsed(mail_id)
    text_part = message.get_body(("plain",))
    html_part = message.get_body(("html",))
    html = html_part.get_content() if html_part is not None else ""
    for part in message.walk():
        cid = part.get("Content-ID")
        if cid:
            bare = cid.strip("<>")
            html = html.replace(f"cid:{bare}", url_for("dev.mail_part", mail_id=mail_id, cid=bare))
    # Links in the message should open in the whole window, as in a mail client.
    html = html.replace("<head>", '<head><base target="_top">', 1)
    return render_template(
        "dev/mail_show.html", caught=caught, headers=list(message.items()), html=html,
        text=text_part.get_content() if text_part is not None else "",
        structure=[(p.get_content_type(), p.get("Content-ID", "")) for p in message.walk()],
    )


# A caught part is whatever someone mailed: opened on its own from this origin, an HTML part
# could run script with the app's cookies. So a part is a download, never a page, and even a
# browser that shows it anyway gets a sandbox with nothing allowed. <img> tags still show images.
PART_HEADERS = {
    "Content-Disposition": 'attachment; filename="part"',
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "X-Content-Type-Options": "nosniff",
}


@bp.get("/mail/<int:mail_id>/part/<cid>")
def mail_part(mail_id: int, cid: str) -> Response:
    _, message = _parsed(mail_id)
    for part in message.walk():
        if part.get("Content-ID", "").strip("<>") == cid:
            return Response(part.get_content(), mimetype=part.get_content_type(),
                            headers=PART_HEADERS)
    abort(404)
