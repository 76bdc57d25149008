"""The forms of the organiser's actions on a game (WTForms), and the checks they share.

A FlaskForm reads only the POSTed form body, never the query string, so a link cannot fill in an
action's parameters; CSRFProtect has checked the token before the view runs and the form checks
it again. Names and addresses are checked by :mod:`pbem.addresses`, as everywhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import Field, SelectField, SelectMultipleField, StringField, TextAreaField
from wtforms.validators import ValidationError

from pbem.addresses import BadAddress, BadName, check_address, check_name, check_text
from pbem.admin.support import says
from pbem.clock.controls import BadTimeControl, parse_duration


def address_check(form: Any, field: Field) -> None:
    """An email address a player can be sent mail at; the field keeps it as checked."""
    try:
        field.data = check_address(field.data or "")
    except BadAddress as error:
        raise ValidationError(says(error)) from None


def name_check(default_from: str) -> Callable[[Any, Field], None]:
    """A player's name; empty means the local part of the address in field ``default_from``."""

    def check(form: Any, field: Field) -> None:
        address = str(form[default_from].data or "")
        try:
            field.data = check_name(field.data or "", default=address.partition("@")[0])
        except BadName as error:
            raise ValidationError(says(error)) from None

    return check


def text_check(form: Any, field: Field) -> None:
    """Free text for the players' email: line breaks yes, other control characters no."""
    try:
        field.data = check_text(field.data or "")
    except BadName as error:
        raise ValidationError(says(error)) from None


def duration_check(form: Any, field: Field) -> None:
    try:
        by = parse_duration((field.data or "").strip())
    except BadTimeControl as error:
        raise ValidationError(says(error)) from None
    if by <= timedelta(0):
        raise ValidationError(_("give a time longer than zero, e.g. 1d or 12h"))


class ConfirmForm(FlaskForm):
    """An action with nothing to fill in (resend, pause, resume): just the CSRF token."""

    def prepare(self, seats: Sequence[tuple[int, str]]) -> None:
        """Give the fields that list seats their choices: (seat, label) in seat order."""


class ExtendForm(ConfirmForm):
    # No default here: a POST without the field must fail, not extend by a default (the page
    # suggests 1d).
    by = StringField(_l("Extra time"), validators=[duration_check])

    def duration(self) -> timedelta:
        return parse_duration((self.by.data or "").strip())


def _seat_number(value: Any) -> int | None:
    """A seat from the form; None for anything else (validate_seat says what to do)."""
    return int(value) if str(value).isdigit() else None


class ReplaceForm(ConfirmForm):
    seat = SelectField(_l("Seat"), coerce=_seat_number, validate_choice=False)
    # Declared before the name: WTForms checks fields in this order, and an empty name defaults
    # to the local part of the address as checked.
    email = StringField(_l("New player's email"), validators=[address_check])
    name = StringField(_l("New player's name"), validators=[name_check("email")])

    def prepare(self, seats: Sequence[tuple[int, str]]) -> None:
        self.seat.choices = list(seats)

    def validate_seat(self, field: SelectField) -> None:
        if field.data not in {choice[0] for choice in field.choices or []}:
            raise ValidationError(_("choose the seat whose player you are replacing"))


class AdjudicateForm(ConfirmForm):
    winner = SelectMultipleField(_l("Winners"), coerce=int, validate_choice=False)
    reason = TextAreaField(_l("Reason"), validators=[text_check])

    def prepare(self, seats: Sequence[tuple[int, str]]) -> None:
        self.winner.choices = list(seats)

    def validate_winner(self, field: SelectMultipleField) -> None:
        seats = {choice[0] for choice in field.choices or []}
        if any(w not in seats for w in field.data or []):
            raise ValidationError(_("choose the winners among the game's seats"))

    def validate_reason(self, field: Field) -> None:
        field.data = (field.data or "").strip()
        if not field.data:
            raise ValidationError(_("say why, for the players (it is in their email)"))


class AbortForm(ConfirmForm):
    reason = TextAreaField(_l("Reason"), validators=[text_check])


def first_errors(form: FlaskForm) -> dict[str, str]:
    """field name -> its first error, as the pages show them."""
    # A FormField's errors would be a dict; these forms have none, only lists.
    return {name: str(errors[0]) for name, errors in form.errors.items()
            if errors and isinstance(errors, list | tuple)}


def typed_values(form: FlaskForm) -> dict[str, str]:
    """What was typed (or the defaults), as text, to show again."""
    return {name: str(field.data) for name, field in form._fields.items()
            if name != "csrf_token" and field.data is not None
            and not isinstance(field.data, list)}
