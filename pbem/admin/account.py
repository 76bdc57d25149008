"""The organiser's account page: a new password, and signing out every other session."""

from __future__ import annotations

from flask import flash, redirect, render_template, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from pbem.admin.account_forms import PasswordForm, SignOutEverywhereForm
from pbem.admin.accounts import change_password
from pbem.admin.passwords import MIN_PASSWORD_LENGTH
from pbem.admin.sessions import end_all_sessions, start_session
from pbem.admin.support import admin_blueprint, current_admin
from pbem.web.support import database

bp = admin_blueprint("admin_account")


def _page(password_form: PasswordForm, status: int = 200) -> tuple[str, int]:
    return render_template("admin/account.html", form=password_form,
                           everywhere=SignOutEverywhereForm(),
                           min_length=MIN_PASSWORD_LENGTH), status


@bp.get("/account")
def account() -> tuple[str, int]:
    return _page(PasswordForm())


@bp.post("/account/password")
def new_password() -> Response | tuple[str, int]:
    form = PasswordForm()
    if not form.validate():
        return _page(form, 422)
    me = current_admin()
    assert me.id is not None
    with database().write() as session:
        changed = change_password(session, me.id, form.current.data or "", form.new.data or "")
    if changed is None:
        form.current.errors = [_("that is not your current password")]
        return _page(form, 422)
    # The new password ended every session (change_password); this one goes on.
    start_session(changed)
    flash(_("Password changed; every other session is signed out."))
    return redirect(url_for("admin_account.account"), 303)


@bp.post("/account/sign-out-everywhere")
def sign_out_everywhere() -> Response:
    if not SignOutEverywhereForm().validate():
        return redirect(url_for("admin_account.account"), 303)
    me = current_admin()
    assert me.id is not None
    start_session(end_all_sessions(database(), me.id))
    flash(_("Every other session is signed out."))
    return redirect(url_for("admin_account.account"), 303)
