"""The organiser's account page: a new password, signing out every other session, and
two-factor sign-in (set up with the authenticator app, switched off with the password)."""

from __future__ import annotations

import logging

from flask import flash, redirect, render_template, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from pbem.admin import two_factor
from pbem.admin.account_forms import (
    CodeForm,
    PasswordForm,
    SignOutEverywhereForm,
    TwoFactorOffForm,
)
from pbem.admin.accounts import change_password
from pbem.admin.devices import forget_devices, remember
from pbem.admin.passwords import MIN_PASSWORD_LENGTH, check_password
from pbem.admin.sessions import end_all_sessions, start_session
from pbem.admin.support import admin_blueprint, current_admin
from pbem.clock.wall import utc_now
from pbem.models import AdminUser
from pbem.web.support import database

bp = admin_blueprint("admin_account")
log = logging.getLogger(__name__)


def account_page(*, password_form: PasswordForm | None = None,
                 off_form: TwoFactorOffForm | None = None, status: int = 200
                 ) -> tuple[str, int]:
    """The account page, with these forms as they were sent (to show their errors)."""
    me = current_admin()
    assert me.id is not None
    with database().session() as session:
        since = two_factor.switched_on_at(session, me.id)
        codes_left = two_factor.recovery_codes_left(session, me.id) if since else 0
    return render_template(
        "admin/account.html", form=password_form or PasswordForm(formdata=None),
        everywhere=SignOutEverywhereForm(), min_length=MIN_PASSWORD_LENGTH,
        two_factor_since=since, codes_left=codes_left,
        off_form=off_form or TwoFactorOffForm(formdata=None)), status


@bp.get("/account")
def account() -> tuple[str, int]:
    return account_page()


@bp.post("/account/password")
def new_password() -> Response | tuple[str, int]:
    form = PasswordForm()
    if not form.validate():
        return account_page(password_form=form, status=422)
    me = current_admin()
    assert me.id is not None
    with database().write() as session:
        changed = change_password(session, me.id, form.current.data or "", form.new.data or "")
    if changed is None:
        form.current.errors = [_("that is not your current password")]
        return account_page(password_form=form, status=422)
    # The new password ended every session and remembered browser (change_password); this
    # session and browser go on.
    start_session(changed)
    flash(_("Password changed; every other session is signed out."))
    return _remembered(redirect(url_for("admin_account.account"), 303), changed)


@bp.post("/account/sign-out-everywhere")
def sign_out_everywhere() -> Response:
    if not SignOutEverywhereForm().validate():
        return redirect(url_for("admin_account.account"), 303)
    me = current_admin()
    assert me.id is not None
    with database().write() as session:
        forget_devices(session, me.id)  # a stolen device cookie is a stranger's too
    me = end_all_sessions(database(), me.id)
    start_session(me)
    flash(_("Every other session is signed out."))
    return _remembered(redirect(url_for("admin_account.account"), 303), me)


def _remembered(response: Response, user: AdminUser) -> Response:
    assert user.id is not None
    remember(response, user.id)
    return response


# -- two-factor sign-in --------------------------------------------------------------------------


def _set_up_page(secret: str, form: CodeForm, status: int = 200) -> tuple[str, int]:
    uri = two_factor.provisioning_uri(secret, current_admin().email)
    return render_template("admin/two_factor_set_up.html", form=form,
                           qr_code=two_factor.qr_code(uri),
                           secret=two_factor.grouped(secret)), status


@bp.post("/account/two-factor/set-up")
def two_factor_set_up() -> Response | tuple[str, int]:
    """A new secret to add to the app, and a field for the code it then shows (a POST: it makes
    the secret; nothing changes at login until a code confirms it)."""
    me = current_admin()
    assert me.id is not None
    with database().write() as session:
        secret = two_factor.start_set_up(session, me.id)
    if secret is None:  # on already
        return redirect(url_for("admin_account.account"), 303)
    return _set_up_page(secret, CodeForm(formdata=None))


@bp.post("/account/two-factor/confirm")
def two_factor_confirm() -> Response | tuple[str, int]:
    me = current_admin()
    assert me.id is not None
    form = CodeForm()
    with database().write() as session:
        codes = two_factor.switch_on(session, me.id, form.code.data or "", utc_now())
        secret = two_factor.secret_being_set_up(session, me.id)
    if codes is not None:
        log.info("organiser %s switched two-factor sign-in on", me.id)
        # Shown this once, in the answer to this POST (no-store, like every dashboard page).
        return render_template("admin/two_factor_codes.html", codes=codes), 200
    if secret is None:  # on already, or never started
        return redirect(url_for("admin_account.account"), 303)
    form.code.data = ""
    form.code.errors = [_("That code is not right. Check the time on your phone and try the "
                          "code the app shows now.")]
    return _set_up_page(secret, form, 422)


@bp.post("/account/two-factor/off")
def two_factor_off() -> Response | tuple[str, int]:
    form = TwoFactorOffForm()
    me = current_admin()
    assert me.id is not None
    with database().write() as session:
        user = session.get(AdminUser, me.id)
        right = user is not None and check_password(form.password.data or "",
                                                    user.password_hash)
        if right:
            two_factor.switch_off(session, me.id)
    if not right:
        form.password.errors = [_("that is not your current password")]
        return account_page(off_form=form, status=422)
    log.info("organiser %s switched two-factor sign-in off", me.id)
    flash(_("Two-factor sign-in is off: your password alone logs you in."))
    return redirect(url_for("admin_account.account"), 303)
