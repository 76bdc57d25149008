"""Who plays: a player given by name and address (or a computer of some level), and the player
row for them, made on first sight."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, select

from engine.bots import DEFAULT_LEVEL, LEVELS
from pbem import addresses
from pbem.models import Player
from pbem.services.common import ServiceError


@dataclass(frozen=True)
class PlayerSpec:
    name: str
    email: str
    bot_level: str | None = None  # a computer player (engine.bots.LEVELS); None for a person
    language: str | None = None  # for a new player: en, nl, de or it (existing players keep theirs)


# Bots' addresses are in a special-use domain (RFC 6761), so no mail could reach them even if
# something tried; pbem.addresses refuses such domains, which is why bots never pass through it.
BOT_DOMAIN = "bots.pbem.invalid"


def bot_spec(level: str = DEFAULT_LEVEL) -> PlayerSpec:
    """The computer player of ``level``: one player row per level, whatever the game.

    >>> bot_spec("strong")
    PlayerSpec(name='Computer (strong)', email='bot-strong@bots.pbem.invalid', bot_level='strong', \
    language=None)
    """
    if level not in LEVELS:
        raise ServiceError(f"unknown bot level {level!r}; choose one of: {', '.join(LEVELS)}")
    return PlayerSpec(f"Computer ({level})", f"bot-{level}@{BOT_DOMAIN}", level)


def parse_player(text: str) -> PlayerSpec:
    """``"Ann Example <ann@example.org>"`` -> PlayerSpec; a bare address works too; ``bot`` or
    ``bot:LEVEL`` is a computer player. Errors (:class:`~pbem.addresses.BadAddress`,
    :class:`~pbem.addresses.BadName`) are ServiceErrors.

    >>> parse_player("Ann <ANN@example.org>")
    PlayerSpec(name='Ann', email='ann@example.org', bot_level=None, language=None)
    >>> parse_player("bot:easy").bot_level
    'easy'
    """
    word, colon, level = text.strip().partition(":")
    if word.strip().lower() == "bot":
        return bot_spec(level.strip().lower() if colon else DEFAULT_LEVEL)
    return PlayerSpec(*addresses.parse_player(text))


def player_for(session: Session, now: datetime, spec: PlayerSpec, *,
               default_language: str = "en") -> Player:
    """The player with this address, made on first sight (a bot with its level), in the language
    chosen for them or else ``default_language`` (the site's)."""
    email = spec.email.lower()
    player = session.exec(select(Player).where(Player.email == email)).one_or_none()
    if player is None:
        player = Player(name=spec.name, email=email, created_at=now, bot_level=spec.bot_level,
                        language=spec.language or default_language)
        session.add(player)
        session.flush()
    return player
