"""The create-game form: built from the engine's catalogue, checked on the server.

Every problem is reported next to its field and what was typed is kept, so a mistake costs one
correction rather than the whole form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import engine
from pbem.addresses import BadAddress, BadName, check_address, check_name
from pbem.clock.controls import BadTimeControl, parse_duration, parse_time_control
from pbem.clock.deadlines import POLICIES, POLICY_LABELS, default_timeout_policy
from pbem.services import PlayerSpec

DEFAULT_TIME_CONTROL = "3d"
DEFAULT_REMINDERS = "24h, 2h"


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


def blank_form(info: engine.GameInfo) -> CreateGameForm:
    values = {f"option-{o.name}": str(o.default) for o in info.options}
    values |= {"seat_order": "given", "time_control": DEFAULT_TIME_CONTROL,
               "timeout_policy": default_timeout_policy(info.id), "reminders": DEFAULT_REMINDERS,
               "vacations_allowed": "on"}
    return CreateGameForm(info, values)


def _reminders(text: str) -> list[timedelta]:
    offsets = []
    for part in text.replace(";", ",").split(","):
        if part.strip():
            offset = parse_duration(part.strip())
            if offset <= timedelta(0):
                raise BadTimeControl("each reminder must be a time before the deadline, e.g. 2h")
            offsets.append(offset)
    return offsets


def read_form(info: engine.GameInfo, form: Mapping[str, str]) -> CreateGameForm:
    """The form as submitted, checked; ``errors`` is empty when a game can be made from it."""
    values = {key: str(value).strip() for key, value in form.items() if key != "csrf_token"}
    result = CreateGameForm(info, values)
    errors = result.errors
    for option in info.options:
        key = f"option-{option.name}"
        try:
            result.options[option.name] = option.coerce(values.get(key, str(option.default)))
        except engine.UnknownGame as error:
            errors[key] = str(error)
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
    if values.get("seat_order", "given") not in ("given", "random"):
        errors["seat_order"] = "choose the order as given or random"
    try:
        control = parse_time_control(values.get("time_control", "") or DEFAULT_TIME_CONTROL)
    except BadTimeControl as error:
        errors["time_control"] = str(error)
        control = None
    policy = values.get("timeout_policy", "") or default_timeout_policy(info.id)
    if policy not in POLICIES:
        errors["timeout_policy"] = f"choose one of {', '.join(POLICIES)}"
    try:
        reminders = _reminders(values.get("reminders", ""))
    except BadTimeControl as error:
        errors["reminders"] = str(error)
        reminders = []
    if not errors:
        result.service_args = _service_args(control, policy, reminders,
                                            values.get("vacations_allowed") == "on")
    return result


def _service_args(control: Any, policy: str, reminders: list[timedelta],
                  vacations: bool) -> dict[str, Any]:
    """The clock settings, as the keywords of :func:`pbem.services.create_game`."""
    return {"time_control": control, "timeout_policy": policy, "reminders": reminders,
            "vacations_allowed": vacations}
