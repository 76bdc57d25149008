"""The dashboard's tournament forms (WTForms): the create form, built from the engine's
catalogue like the create-game form, and the small forms of the tournament page's actions.

Every problem is reported next to its field and what was typed is kept. Players are typed one
per line, ``Name <address>`` or a bare address (a player pbem knows keeps their name and
language); each line is checked by :mod:`pbem.addresses`, and a wrong line is named by number.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from flask_babel import gettext as _
from flask_wtf import FlaskForm
from wtforms import BooleanField, HiddenField, IntegerField, StringField, TextAreaField

import engine
from pbem.addresses import BadAddress, BadName
from pbem.admin.forms import DEFAULT_TIME_CONTROL, GameForm, default_language, option_fields, typed
from pbem.admin.support import says
from pbem.clock.controls import BadTimeControl, TimeControl, parse_time_control
from pbem.clock.deadlines import POLICIES, default_timeout_policy
from pbem.i18n import LANGUAGES
from pbem.services import ServiceError, parse_player
from pbem.tournaments.service import seat_count_options
from pbem.tournaments.tables import TournamentFormat
from pbem.web.csrf import REFUSED

MAX_PLAYERS = 200  # one form: a bigger event would be several tournaments


class TournamentFields(FlaskForm):
    """The fields every tournament has; :func:`form_class` adds the game's options."""

    game = HiddenField()
    name = StringField(default="")
    players = TextAreaField(default="")
    format = StringField(default=TournamentFormat.ROUND_ROBIN)
    rounds = StringField(default="3")
    table_size = StringField(default="2")
    time_control = StringField(default=DEFAULT_TIME_CONTROL)
    timeout_policy = StringField()
    rated = BooleanField(default=False)
    listed = BooleanField(default=True)
    language = StringField()


class ActionForm(FlaskForm):
    """A tournament page's button: the CSRF token, the tournament, for closing a round that
    round, for a withdrawal the player, for a cancellation the reason."""

    tournament_id = IntegerField(default=None)
    round = IntegerField(default=None)
    player_id = IntegerField(default=None)
    reason = StringField(default="")


@cache
def form_class(info: engine.GameInfo) -> type[TournamentFields]:
    return type(f"TournamentForm_{info.id}", (TournamentFields,), option_fields(info))


@dataclass
class TournamentForm(GameForm):
    """The create-tournament form; when valid, also its time control."""

    time_control: TimeControl | None = None

    @property
    def shown_options(self) -> list[engine.Option]:
        """The game's options but the one that sets the number of seats: a tournament sets it
        for each table from the table's size."""
        hidden = seat_count_options(self.info)
        return [o for o in self.info.options if o.name not in hidden]

    @property
    def formats(self) -> list[tuple[str, str]]:
        return [(TournamentFormat.ROUND_ROBIN, _("round robin: everyone plays everyone once")),
                (TournamentFormat.DOUBLE_ROUND_ROBIN,
                 _("double round robin: everyone plays everyone twice, once in each seat")),
                (TournamentFormat.SWISS,
                 _("Swiss: a fixed number of rounds, paired by score, no repeat games"))]

    @property
    def table_sizes(self) -> list[int]:
        two = [2] if self.info.min_players <= 2 <= self.info.max_players else []
        return two + list(range(3, self.info.max_players + 1))

    def number(self, key: str) -> int:
        return int(self.values[key])


def _typed(form: TournamentFields) -> dict[str, str]:
    return typed(form, ("rated", "listed"))


def blank_form(info: engine.GameInfo) -> TournamentForm:
    """The form as first shown, every default filled in."""
    form = form_class(info)()
    form.timeout_policy.data = default_timeout_policy(info.id)
    form.language.data = default_language()
    if not info.min_players <= 2 <= info.max_players:
        form.table_size.data, form.format.data = str(info.max_players), TournamentFormat.SWISS
    return TournamentForm(info, _typed(form))


def _players(result: TournamentForm) -> None:
    lines = [line.strip() for line in result.values.get("players", "").splitlines()]
    problems = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line:
            continue
        try:
            spec = parse_player(line)
        except (BadAddress, BadName, ServiceError) as error:
            problems.append(_("line %(number)d: %(problem)s", number=number,
                              problem=says(error)))
            continue
        if spec.bot_level is not None:
            problems.append(_("line %(number)d: tournaments are for people, not the computer",
                              number=number))
        elif spec.email in seen:
            problems.append(_("line %(number)d: %(email)s is listed twice", number=number,
                              email=spec.email))
        seen.add(spec.email)
        result.players.append(spec)
    if problems:
        result.errors["players"] = "; ".join(problems)
    elif len(result.players) < 2:
        result.errors["players"] = _("list at least two players, one per line")
    elif len(result.players) > MAX_PLAYERS:
        result.errors["players"] = _("at most %(most)d players", most=MAX_PLAYERS)


def read_form(info: engine.GameInfo) -> TournamentForm:
    """The POSTed form, checked; ``errors`` is empty when the service may be asked."""
    form = form_class(info)()
    form.validate()  # the CSRF token
    result = TournamentForm(info, _typed(form))
    values, errors = result.values, result.errors
    if not values.get("name"):
        errors["name"] = _("give the tournament a name")
    result.read_options()
    _players(result)
    formats = tuple(TournamentFormat)
    if values.get("format") not in formats:
        errors["format"] = _("choose one of %(choices)s", choices=", ".join(formats))
    for key in ("rounds", "table_size"):
        if not values.get(key, "").isdigit():
            errors[key] = _("type a whole number")
    try:
        result.time_control = parse_time_control(values.get("time_control")
                                                 or DEFAULT_TIME_CONTROL)
    except BadTimeControl as error:
        errors["time_control"] = says(error)
    if (values.get("timeout_policy") or default_timeout_policy(info.id)) not in POLICIES:
        errors["timeout_policy"] = _("choose one of %(choices)s", choices=", ".join(POLICIES))
    if (values.get("language") or default_language()) not in LANGUAGES:
        errors["language"] = _("choose one of %(choices)s", choices=", ".join(LANGUAGES))
    if form.errors.get("csrf_token"):
        errors["form"] = str(REFUSED)
    return result
