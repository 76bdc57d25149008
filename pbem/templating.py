"""The Jinja environment for emails, usable without a Flask app (services and ``pbem deliver``)."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def local_time(moment: datetime | None, time_zone: str = "UTC") -> str:
    """``moment`` in the reader's zone, e.g. 'Mon 3 Mar 2025, 14:00 (Europe/Paris)'."""
    if moment is None:
        return "none"
    try:
        zone = ZoneInfo(time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        zone, time_zone = ZoneInfo("UTC"), "UTC"
    local = moment.astimezone(zone)
    return f"{local:%a} {local.day} {local:%b %Y, %H:%M} ({time_zone})"


@cache
def email_environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,  # a typo in an email template fails loudly, in tests
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["local_time"] = local_time
    return env


def render_email(name: str, **context: object) -> str:
    return email_environment().get_template(name).render(**context)
