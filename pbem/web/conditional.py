"""A seat's conditional moves from its own game page (``/seat/<token>``): the form there posts
its lines here, to keep them (:func:`keep`, endpoint ``conditional.keep``) or to clear them
(:func:`cancel`); pbem.web.games shows them. Only the seat's own link reaches them, so the
opponent never sees them.

``conditional.keep`` takes the form field ``text``, lines ``if X then Y [then Z then W ...]``,
which replace the seat's tree; with ``add=1`` they are added to it instead (an analysis board
posting one line it has explored). Refused lines come back in the form with the reason, and
nothing kept is lost.
"""

from __future__ import annotations

from flask import Blueprint, redirect, request, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from pbem.clock.wall import utc_now
from pbem.conditional.service import ConditionalRefused, clear, save
from pbem.conditional.tree import count
from pbem.errors import ServiceError
from pbem.web.csrf import check_csrf
from pbem.web.games import render_game_page
from pbem.web.language import current_reader
from pbem.web.support import damaged_link, database, game_of_token

bp = Blueprint("conditional", __name__)
MAX_TEXT = 20_000  # characters of the form's text: far more than MAX_LINES lines need


@bp.post("/seat/<token>/conditional")
def keep(token: str) -> Response | tuple[str, int]:
    check_csrf()
    found = game_of_token("seat-view", token)
    if found is None:
        return damaged_link()
    row, fields = found
    assert row.id is not None
    text = request.form.get("text", "")[:MAX_TEXT]
    try:
        with database().write() as session:
            tree = save(session, utc_now(), game_id=row.id, seat=fields["seat"], text=text,
                        holder=fields.get("p"), add=request.form.get("add") == "1")
    except (ConditionalRefused, ServiceError) as error:
        reason = current_reader().text(getattr(error, "text", None) or str(error))
        return render_game_page(row, fields["seat"], seat_token=token, status=400,
                                conditional_error=_("Nothing was changed: %(reason)s.",
                                                    reason=reason),
                                conditional_text=text)
    return redirect(url_for("games.seat_page", token=token, conditional=count(tree)), 303)


@bp.post("/seat/<token>/conditional/cancel")
def cancel(token: str) -> Response | tuple[str, int]:
    check_csrf()
    found = game_of_token("seat-view", token)
    if found is None:
        return damaged_link()
    row, fields = found
    assert row.id is not None
    try:
        with database().write() as session:
            clear(session, utc_now(), game_id=row.id, seat=fields["seat"],
                  holder=fields.get("p"))
    except ConditionalRefused as error:
        return render_game_page(row, fields["seat"], seat_token=token, status=400,
                                conditional_error=current_reader().text(error.text))
    return redirect(url_for("games.seat_page", token=token, conditional=0), 303)
