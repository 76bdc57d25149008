"""The organiser's own forms: logging in, a new password, signing out everywhere (WTForms)."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import Field, HiddenField, PasswordField, StringField
from wtforms.validators import ValidationError

from pbem.admin.passwords import WeakPassword, check_strength


class LoginForm(FlaskForm):
    # No "required" checks: an empty field is a wrong password like any other, and counts.
    email = StringField("Email address")
    password = PasswordField("Password")
    next = HiddenField()


class PasswordForm(FlaskForm):
    current = PasswordField("Current password")
    new = PasswordField("New password")
    repeat = PasswordField("New password again")

    def validate_new(self, field: Field) -> None:
        try:
            check_strength(field.data or "")
        except WeakPassword as error:
            raise ValidationError(str(error)) from None

    def validate_repeat(self, field: Field) -> None:
        if field.data != self.new.data:
            raise ValidationError("the two new passwords differ")


class SignOutEverywhereForm(FlaskForm):
    """Only the CSRF token: the button ends every other session of this organiser."""
