"""The organisers' view of players' challenges and seeks: the list (open ones first) and the
power to cancel any of them (its players are told; the audit log says which organiser)."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from sqlmodel import col, select
from werkzeug.wrappers import Response

from pbem.admin.support import admin_blueprint, current_admin
from pbem.challenges.service import cancel_challenge, people_of, players_by_id
from pbem.challenges.tables import Challenge, ChallengeStatus
from pbem.clock.wall import utc_now
from pbem.errors import ServiceError
from pbem.game_options import game_name
from pbem.web.language import current_reader
from pbem.web.support import database, shown_reason, site

bp = admin_blueprint("admin_challenges")
SHOWN = 200


@bp.get("/challenges")
def challenges() -> str:
    """Open challenges first (the ones an organiser can still cancel), then the latest closed."""
    status = request.args.get("status", "open")
    reader = current_reader()
    with database().session() as session:
        query = select(Challenge).order_by(col(Challenge.created_at).desc()).limit(SHOWN)
        if status in tuple(ChallengeStatus):
            query = query.where(Challenge.status == status)
        rows = list(session.exec(query))
        lines = []
        for row in rows:
            assert row.id is not None
            people = people_of(session, row.id)
            players = players_by_id(session, [p.player_id for p in people] + [row.creator_id])
            lines.append({"challenge": row, "creator": players[row.creator_id],
                          "game_name": game_name(row.game_type, reader),
                          "people": [(players[p.player_id], p.status) for p in people]})
    return render_template("admin/challenges.html", lines=lines, status=status,
                           statuses=tuple(ChallengeStatus))


@bp.post("/challenges/cancel")
def cancel() -> Response:
    """The id comes in the form (a URL without arguments keeps the route easy to probe)."""
    number = request.form.get("challenge_id", "")
    challenge_id = int(number) if number.isdigit() and len(number) < 10 else 0
    try:
        with database().write() as session:
            cancel_challenge(session, utc_now(), site(), challenge_id=challenge_id,
                             player_id=None, admin=current_admin().email)
        flash(_("The challenge was cancelled and its players told."))
    except ServiceError as error:
        flash(_("Nothing was changed: %(reason)s.", reason=shown_reason(error)))
    return redirect(url_for("admin_challenges.challenges"), 303)
