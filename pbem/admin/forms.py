"""The create-game form (WTForms): built from the engine's catalogue, checked on the server.

Every problem is reported next to its field and what was typed is kept, so a mistake costs one
correction rather than the whole form. The fields keep the names the page has always used
(``option-board``, ``name-0``, ``email-0``, ...): a FlaskForm class is made per game, whose
attribute names may be any text. Names and addresses are checked by :mod:`pbem.addresses`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from functools import cache
from typing import Any

from flask_wtf import FlaskForm
from wtforms import BooleanField, HiddenField, StringField

import engine
from pbem.addresses import BadAddress, BadName, check_address, check_name
from pbem.clock.controls import BadTimeControl, parse_duration, parse_time_control
from pbem.clock.deadlines import POLICIES, POLICY_LABELS, default_timeout_policy
from pbem.services import PlayerSpec

DEFAULT_TIME_CONTROL = "3d"
DEFAULT_REMINDERS = "24h, 2h"


class NewGameFields(FlaskForm):
    """The fields every game has; :func:`form_class` adds its options and seats."""

    game = HiddenField()
    seat_order = StringField(default="given")
    time_control = StringField(default=DEFAULT_TIME_CONTROL)
    timeout_policy = StringField()
    reminders = StringField(default=DEFAULT_REMINDERS)
    vacations_allowed = BooleanField(default=True)


@cache
def form_class(info: engine.GameInfo) -> type[NewGameFields]:
    """The form of one game: a choice per option, a name and an address per seat."""
    fields: dict[str, Any] = {f"option-{o.name}": StringField(default=str(o.default))
                              for o in info.options}
    for row in range(info.max_players):
        fields |= {f"name-{row}": StringField(default=""),
                   f"email-{row}": StringField(default="")}
    return type(f"NewGameForm_{info.id}", (NewGameFields,), fields)


@dataclass
class CreateGameForm:
    """What was typed (``values``), what is wrong (``errors``), and, when valid, what it means."""

    info: engine.GameInfo
    values: dict[str, str]
    errors: dict[str, str] = field(default_factory=dict)
    players: list[PlayerSpec] = field(default_factory=list)
    options: dict[str, object] = field(default_factory=dict)
    service_args: dict[str, Any] = field(default_factory=dict)

    @property
    def seat_rows(self) -> int:
        return self.info.max_players

    @property
    def policies(self) -> list[tuple[str, str]]:
        return [(p, POLICY_LABELS[p]) for p in POLICIES]


def _typed(form: NewGameFields) -> dict[str, str]:
    values = {name: str(f.data or "").strip() for name, f in form._fields.items()
              if name not in ("csrf_token", "vacations_allowed")}
    if form.vacations_allowed.data:
        values["vacations_allowed"] = "on"
    return values


def blank_form(info: engine.GameInfo) -> CreateGameForm:
    """The form as first shown: every default filled in (a GET reads no form data)."""
    form = form_class(info)()
    form.timeout_policy.data = default_timeout_policy(info.id)
    return CreateGameForm(info, _typed(form))


def _reminders(text: str) -> list[timedelta]:
    offsets = []
    for part in text.replace(";", ",").split(","):
        if part.strip():
            offset = parse_duration(part.strip())
            if offset <= timedelta(0):
                raise BadTimeControl("each reminder must be a time before the deadline, e.g. 2h")
            offsets.append(offset)
    return offsets


def _players(result: CreateGameForm) -> None:
    """The seats that were filled in, each address checked once and used once."""
    values, errors, info = result.values, result.errors, result.info
    emails: set[str] = set()
    for row in range(info.max_players):
        name, address = values.get(f"name-{row}", ""), values.get(f"email-{row}", "")
        if not name and not address:
            continue
        try:
            address = check_address(address)
        except BadAddress as error:
            errors[f"email-{row}"] = str(error)
        else:
            if address in emails:
                errors[f"email-{row}"] = "each player needs their own email address"
            emails.add(address)
        try:
            name = check_name(name, default=address.partition("@")[0])
        except BadName as error:
            errors[f"name-{row}"] = str(error)
        result.players.append(PlayerSpec(name, address))
    count = len(result.players)
    if not info.min_players <= count <= info.max_players:
        errors["players"] = (f"{info.name} needs {info.min_players} to {info.max_players} "
                             f"players; you entered {count}")


def read_form(info: engine.GameInfo) -> CreateGameForm:
    """The POSTed form (its body only), checked; ``errors`` is empty when a game can be made
    from it."""
    form = form_class(info)()
    form.validate()  # the CSRF token; the fields' own checks follow, in this order
    result = CreateGameForm(info, _typed(form))
    values, errors = result.values, result.errors
    for option in info.options:
        key = f"option-{option.name}"
        try:
            result.options[option.name] = option.coerce(values.get(key) or str(option.default))
        except engine.UnknownGame as error:
            errors[key] = str(error)
    _players(result)
    if (values.get("seat_order") or "given") not in ("given", "random"):
        errors["seat_order"] = "choose the order as given or random"
    try:
        control = parse_time_control(values.get("time_control") or DEFAULT_TIME_CONTROL)
    except BadTimeControl as error:
        errors["time_control"] = str(error)
        control = None
    policy = values.get("timeout_policy") or default_timeout_policy(info.id)
    if policy not in POLICIES:
        errors["timeout_policy"] = f"choose one of {', '.join(POLICIES)}"
    try:
        reminders = _reminders(values.get("reminders", ""))
    except BadTimeControl as error:
        errors["reminders"] = str(error)
        reminders = []
    if form.errors.get("csrf_token"):
        errors["form"] = str(form.errors["csrf_token"][0])
    if not errors:
        result.service_args = {"time_control": control, "timeout_policy": policy,
                               "reminders": reminders,
                               "vacations_allowed": bool(form.vacations_allowed.data)}
    return result
