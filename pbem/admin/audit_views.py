"""Pages across games: players, the mail log (and each message), the audit log."""

from __future__ import annotations

from flask import abort, current_app, render_template, request

from pbem.admin.queries import audit_actors, audit_page, game_codes, mail_page, player_rows
from pbem.admin.support import PAGE_SIZE, admin_blueprint
from pbem.models import GameRecord, MailStatus, OutboxEmail, Player
from pbem.web.support import database

bp = admin_blueprint("admin_logs")

MAIL_STATUSES = (MailStatus.QUEUED, MailStatus.RETRYING, MailStatus.SENDING, MailStatus.SENT,
                 MailStatus.FAILED, MailStatus.WITHHELD)


def _page_number() -> int:
    return request.args.get("page", 1, type=int) or 1


@bp.get("/players")
def players() -> str:
    search = request.args.get("q", "")
    with database().session() as session:
        page = player_rows(session, search, _page_number(), PAGE_SIZE)
        codes = game_codes(session, {g for r in page.rows for g in r.replaced_in})
    return render_template("admin/players.html", page=page, search=search, codes=codes,
                           query={"q": search} if search else {})


@bp.get("/mail")
def mail_log() -> str:
    status = request.args.get("status", "")
    with database().session() as session:
        page = mail_page(session, _page_number(), PAGE_SIZE, status=status)
        codes = game_codes(session, {m.game_id for m in page.rows if m.game_id})
    return render_template("admin/mail_log.html", page=page, status=status, codes=codes,
                           statuses=MAIL_STATUSES, query={"status": status} if status else {})


@bp.get("/mail/<int:mail_id>")
def mail_show(mail_id: int) -> str:
    with database().session() as session:
        mail = session.get(OutboxEmail, mail_id)
        if mail is None:
            abort(404)
        game = session.get(GameRecord, mail.game_id) if mail.game_id else None
        player = session.get(Player, mail.player_id) if mail.player_id else None
    return render_template("admin/mail_show.html", mail=mail, game=game, player=player)


@bp.get("/audit")
def audit_log() -> str:
    with database().session() as session:
        page = audit_page(session, _page_number(), PAGE_SIZE)
        entries = audit_actors(session, page.rows)
        codes = game_codes(session, {e.game_id for e in page.rows if e.game_id})
    return render_template("admin/audit.html", page=page, entries=entries, query={}, codes=codes,
                           dev=current_app.config["ENV"] == "development")
