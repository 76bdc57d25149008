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

from flask import current_app
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from flask_wtf import FlaskForm
from wtforms import BooleanField, HiddenField, StringField

import engine
from engine.bots import LEVELS
from pbem.addresses import BadAddress, BadName, check_address, check_name
from pbem.admin.support import says
from pbem.clock.controls import BadTimeControl, parse_duration, parse_time_control
from pbem.clock.deadlines import POLICIES, POLICY_LABELS, default_timeout_policy
from pbem.i18n import LANGUAGES, supported
from pbem.services import PlayerSpec
from pbem.services.players import bot_spec
from pbem.web.csrf import REFUSED

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
    # Counts for the players' ratings (pbem.ratings.service); never with a computer player.
    rated = BooleanField(default=False)
    # Left out of the public archive and profiles; its pages stay reachable by their links.
    unlisted = BooleanField(default=False)
    # Of the players this form creates; players known already keep theirs. The page offers
    # LANGUAGES, each by its own name; read_form checks the choice.
    language = StringField(_l("Language of new players"))


def option_fields(info: engine.GameInfo) -> dict[str, Any]:
    """A field per option of the game (``option-board``, ...), its default filled in."""
    return {f"option-{o.name}": StringField(default=str(o.default)) for o in info.options}


@cache
def form_class(info: engine.GameInfo) -> type[NewGameFields]:
    """The form of one game: a choice per option, a name and an address per seat."""
    fields = option_fields(info)
    for row in range(info.max_players):
        fields |= {f"name-{row}": StringField(default=""),
                   f"email-{row}": StringField(default=""),
                   f"kind-{row}": StringField(default="person")}
    return type(f"NewGameForm_{info.id}", (NewGameFields,), fields)


@dataclass
class GameForm:
    """What was typed (``values``), what is wrong (``errors``), and, when valid, what it means:
    the players and the game's options (a game's form, or a tournament's)."""

    info: engine.GameInfo
    values: dict[str, str]
    errors: dict[str, str] = field(default_factory=dict)
    players: list[PlayerSpec] = field(default_factory=list)
    options: dict[str, object] = field(default_factory=dict)

    @property
    def policies(self) -> list[tuple[str, str]]:
        return [(p, POLICY_LABELS[p]) for p in POLICIES]

    def read_options(self) -> None:
        """The game's options as typed (each its default when left empty), or their errors."""
        for option in self.info.options:
            key = f"option-{option.name}"
            try:
                self.options[option.name] = option.coerce(self.values.get(key)
                                                          or str(option.default))
            except engine.UnknownGame as error:
                self.errors[key] = says(error)


@dataclass
class CreateGameForm(GameForm):
    """The create-game form; ``service_args`` go on to ``create_game`` when it is valid."""

    service_args: dict[str, Any] = field(default_factory=dict)
    language: str = "en"  # of the players this form creates

    @property
    def seat_rows(self) -> int:
        return self.info.max_players

    @property
    def seat_kinds(self) -> list[tuple[str, str]]:
        """Who may sit at a seat: a person, or the computer at a level."""
        names = {"easy": _("easy"), "normal": _("normal"), "strong": _("strong")}
        return [("person", _("a person (name and address)"))] + [
            (f"bot:{level}", _("the computer (%(level)s)", level=names.get(level, level)))
            for level in LEVELS]


def default_language() -> str:
    """The language new players get unless the organiser chooses (``PBEM_DEFAULT_LANGUAGE``)."""
    return supported(current_app.config.get("DEFAULT_LANGUAGE"), "en")


def typed(form: FlaskForm, boxes: tuple[str, ...]) -> dict[str, str]:
    """What was typed in each field, as text; a ticked checkbox of ``boxes`` is "on"."""
    values = {name: str(f.data or "").strip() for name, f in form._fields.items()
              if name != "csrf_token" and name not in boxes}
    for box in boxes:
        if form[box].data:
            values[box] = "on"
    return values


def _typed(form: NewGameFields) -> dict[str, str]:
    return typed(form, ("vacations_allowed", "rated", "unlisted"))


def blank_form(info: engine.GameInfo) -> CreateGameForm:
    """The form as first shown: every default filled in (a GET reads no form data)."""
    form = form_class(info)()
    form.timeout_policy.data = default_timeout_policy(info.id)
    form.language.data = default_language()
    return CreateGameForm(info, _typed(form), language=str(form.language.data))


def _reminders(text: str) -> list[timedelta]:
    offsets = []
    for part in text.replace(";", ",").split(","):
        if part.strip():
            offset = parse_duration(part.strip())
            if offset <= timedelta(0):
                raise BadTimeControl(_("each reminder must be a time before the deadline, "
                                       "e.g. 2h"))
            offsets.append(offset)
    return offsets


def _players(result: CreateGameForm) -> None:
    """The seats that were filled in, each address checked once and used once."""
    values, errors, info = result.values, result.errors, result.info
    emails: set[str] = set()
    for row in range(info.max_players):
        name, address = values.get(f"name-{row}", ""), values.get(f"email-{row}", "")
        kind = values.get(f"kind-{row}", "person") or "person"
        if kind != "person":  # the computer at a level: no name or address to check
            level = kind.removeprefix("bot:")
            if level not in LEVELS:
                errors[f"kind-{row}"] = _("choose a person or one of the computer's levels")
                continue
            result.players.append(bot_spec(level))
            continue
        if not name and not address:
            continue
        try:
            address = check_address(address)
        except BadAddress as error:
            errors[f"email-{row}"] = says(error)
        else:
            if address in emails:
                errors[f"email-{row}"] = _("each player needs their own email address")
            emails.add(address)
        try:
            name = check_name(name, default=address.partition("@")[0])
        except BadName as error:
            errors[f"name-{row}"] = says(error)
        result.players.append(PlayerSpec(name, address))
    count = len(result.players)
    if not info.min_players <= count <= info.max_players:
        errors["players"] = ngettext(
            "%(game)s needs %(min)d to %(max)d players; you entered %(num)d",
            "%(game)s needs %(min)d to %(max)d players; you entered %(num)d", count,
            game=_(info.name), min=info.min_players, max=info.max_players)


def read_form(info: engine.GameInfo) -> CreateGameForm:
    """The POSTed form (its body only), checked; ``errors`` is empty when a game can be made
    from it."""
    form = form_class(info)()
    form.validate()  # the CSRF token; the fields' own checks follow, in this order
    result = CreateGameForm(info, _typed(form))
    values, errors = result.values, result.errors
    result.read_options()
    _players(result)
    if form.rated.data and any(p.bot_level for p in result.players):
        errors["rated"] = _("a game with a computer player cannot be rated: untick the box "
                            "or give every seat to a person")
    if (values.get("seat_order") or "given") not in ("given", "random"):
        errors["seat_order"] = _("choose the order as given or random")
    try:
        control = parse_time_control(values.get("time_control") or DEFAULT_TIME_CONTROL)
    except BadTimeControl as error:
        errors["time_control"] = says(error)
        control = None
    policy = values.get("timeout_policy") or default_timeout_policy(info.id)
    if policy not in POLICIES:
        errors["timeout_policy"] = _("choose one of %(choices)s", choices=", ".join(POLICIES))
    try:
        reminders = _reminders(values.get("reminders", ""))
    except BadTimeControl as error:
        errors["reminders"] = says(error)
        reminders = []
    language = values.get("language") or default_language()
    if language not in LANGUAGES:
        errors["language"] = _("choose one of %(choices)s", choices=", ".join(LANGUAGES))
    result.language = language
    if form.errors.get("csrf_token"):
        # Flask-WTF words its token errors in English only: say what the site says instead.
        errors["form"] = str(REFUSED)
    if not errors:
        result.service_args = {"time_control": control, "timeout_policy": policy,
                               "reminders": reminders,
                               "vacations_allowed": bool(form.vacations_allowed.data),
                               "rated": bool(form.rated.data),
                               "listed": not form.unlisted.data}
    return result
