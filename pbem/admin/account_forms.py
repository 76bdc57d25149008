"""The organiser's own forms: logging in, a new password, signing out everywhere, two-factor
sign-in (WTForms)."""

from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import Field, HiddenField, PasswordField, StringField
from wtforms.validators import ValidationError

from pbem.admin.passwords import WeakPassword, check_strength
from pbem.admin.support import says


class LoginForm(FlaskForm):
    # No "required" checks: an empty field is a wrong password like any other, and counts.
    email = StringField(_l("Email address"))
    password = PasswordField(_l("Password"))
    next = HiddenField()


class PasswordForm(FlaskForm):
    current = PasswordField(_l("Current password"))
    new = PasswordField(_l("New password"))
    repeat = PasswordField(_l("New password again"))

    def validate_new(self, field: Field) -> None:
        try:
            check_strength(field.data or "")
        except WeakPassword as error:
            raise ValidationError(says(error)) from None

    def validate_repeat(self, field: Field) -> None:
        if field.data != self.new.data:
            raise ValidationError(_("the two new passwords differ"))


class SignOutEverywhereForm(FlaskForm):
    """Only the CSRF token: the button ends every other session of this organiser."""


class CodeForm(FlaskForm):
    """A code from the authenticator app (or, at login, a recovery code). Not "required": an
    empty code is a wrong code, and counts."""

    code = StringField(_l("Code"))


class TwoFactorOffForm(FlaskForm):
    """Switching two-factor sign-in off asks for the password: a session left open on a shared
    computer must not be enough."""

    password = PasswordField(_l("Your password"))
