"""What the site allows players who start their own games (presets, limits, sign-up), the signed
links of challenge emails, and the emails themselves (they belong to no game yet).

The presets are the organisers' choice, read from the configuration (``PBEM_CHALLENGE_*``); a
player picks among them and can type nothing else, so every game players make has a clock the
site approved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from email.utils import make_msgid
from typing import Any

from itsdangerous import BadData, URLSafeSerializer
from sqlmodel import Session, col, func, select

from engine.text import Text
from pbem.challenges.tables import Challenge, ChallengeKind, ChallengeStatus
from pbem.clock.controls import BadTimeControl, TimeControl, parse_time_control
from pbem.clock.deadlines import POLICIES
from pbem.errors import ServiceError
from pbem.i18n import Reader
from pbem.links import DamagedLink
from pbem.models import GameRecord, GameStatus, OutboxEmail, Player, Seat
from pbem.services.common import Site
from pbem.templating import render_email

SIGNUP_POLICIES = ("open", "invite", "closed")
DEFAULT_POLICY = "default"  # the game's own default timeout policy


@dataclass(frozen=True)
class ChallengeRules:
    """The organisers' settings for games players start themselves."""

    time_controls: tuple[str, ...] = ("3d per move",)
    policies: tuple[str, ...] = (DEFAULT_POLICY,)
    days: int = 7  # a challenge waits this long for its players
    max_open_challenges: int = 5
    max_active_games: int = 30
    signup: str = "invite"

    def time_control(self, text: str) -> TimeControl:
        """The preset ``text`` as a clock; refused unless the site approved it."""
        if text not in self.time_controls:
            raise ServiceError(Text("%(choice)s is not one of this site's time controls",
                                    choice=repr(text)))
        return parse_time_control(text)

    def policy(self, name: str) -> str:
        """The timeout policy to store ("" for the game's default); refused unless approved."""
        if name not in self.policies:
            raise ServiceError(Text("%(choice)s is not one of this site's timeout policies",
                                    choice=repr(name)))
        return "" if name == DEFAULT_POLICY else name


def rules_from_config(config: Mapping[str, Any]) -> ChallengeRules:
    """The rules from the app's settings; a preset that does not parse stops the start, as any
    other bad setting does (pbem.config.check_config is for the settings every install has)."""
    controls = tuple(t.strip() for t in str(config.get("CHALLENGE_TIME_CONTROLS") or
                                            "3d per move").split(";") if t.strip())
    policies = tuple(p.strip().lower() for p in str(config.get("CHALLENGE_POLICIES") or
                                                    DEFAULT_POLICY).split(",") if p.strip())
    for text in controls:
        try:
            parse_time_control(text)
        except BadTimeControl as error:
            raise ValueError(f"PBEM_CHALLENGE_TIME_CONTROLS: {error}") from None
    for name in policies:
        if name != DEFAULT_POLICY and name not in POLICIES:
            raise ValueError(f"PBEM_CHALLENGE_POLICIES: unknown policy {name!r}")
    signup = str(config.get("SIGNUP") or "invite").lower()
    if signup not in SIGNUP_POLICIES:
        raise ValueError("PBEM_SIGNUP must be one of open, invite, closed")
    return ChallengeRules(controls, policies, int(config.get("CHALLENGE_DAYS", 7)),
                          int(config.get("MAX_OPEN_CHALLENGES", 5)),
                          int(config.get("MAX_ACTIVE_GAMES", 30)), signup)


# -- limits ------------------------------------------------------------------------------------

def open_challenges_of(session: Session, player_id: int) -> int:
    """Challenges and seeks the player made that still wait (rematches do not count)."""
    return session.exec(select(func.count()).select_from(Challenge).where(
        Challenge.creator_id == player_id, Challenge.status == ChallengeStatus.OPEN,
        Challenge.kind != ChallengeKind.REMATCH)).one()


def active_games_of(session: Session, player_id: int) -> int:
    """Games the player has a seat in that wait for answers or are under way."""
    return session.exec(select(func.count()).select_from(Seat).join(
        GameRecord, col(GameRecord.id) == col(Seat.game_id)).where(
        Seat.player_id == player_id,
        col(GameRecord.status).in_((GameStatus.INVITED, GameStatus.ACTIVE)))).one()


def check_game_limit(session: Session, rules: ChallengeRules, player: Player) -> None:
    assert player.id is not None
    if player.bot_level is None and active_games_of(session, player.id) >= rules.max_active_games:
        raise ServiceError(Text("%(name)s already plays %(num)d games, this site's limit; "
                                "finish one first", name=player.name,
                                num=rules.max_active_games))


def check_challenge_limit(session: Session, rules: ChallengeRules, player: Player) -> None:
    assert player.id is not None
    if open_challenges_of(session, player.id) >= rules.max_open_challenges:
        raise ServiceError(Text("you already have %(num)d open challenges, this site's limit; "
                                "wait for answers or cancel one", num=rules.max_open_challenges))


# -- signed links ------------------------------------------------------------------------------
# Their own salts, so no other link of the site (pbem.links) can stand in for them.

def _serializer(site: Site, what: str) -> URLSafeSerializer:
    return URLSafeSerializer(site.links.secret_key, salt=f"pbem-{what}")


def _load(site: Site, what: str, token: str, keys: tuple[str, ...]) -> dict[str, int]:
    try:
        fields = _serializer(site, what).loads(token)
    except BadData:
        raise DamagedLink() from None
    if (not isinstance(fields, dict) or set(fields) != set(keys)
            or not all(type(v) is int and 0 <= v < 2**31 for v in fields.values())):
        raise DamagedLink()
    return fields


def challenge_url(site: Site, challenge_id: int, player_id: int) -> str:
    """An invitee's link: the page shows the challenge and its buttons (a GET changes nothing)."""
    token = _serializer(site, "challenge").dumps({"c": challenge_id, "p": player_id})
    return f"{site.links.base_url}/challenge/{token}"


def load_challenge_token(site: Site, token: str) -> tuple[int, int]:
    """(challenge id, player id) of an invitee's link; DamagedLink for anything else."""
    fields = _load(site, "challenge", token, ("c", "p"))
    return fields["c"], fields["p"]


def make_rematch_url(site: Site, game_id: int, seat: int, player_id: int) -> str:
    token = _serializer(site, "rematch").dumps({"g": game_id, "s": seat, "p": player_id})
    return f"{site.links.base_url}/rematch/{token}"


def load_rematch_token(site: Site, token: str) -> tuple[int, int, int]:
    """(game id, seat, player id) of a rematch link; DamagedLink for anything else."""
    fields = _load(site, "rematch", token, ("g", "s", "p"))
    return fields["g"], fields["s"], fields["p"]


# -- email -------------------------------------------------------------------------------------

def mail_player(session: Session, now: datetime, site: Site, player: Player, *, kind: str,
                subject: Callable[[Reader], str], **context: Any) -> None:
    """``email/<kind>.txt``/``.html`` to ``player`` in their language, into the outbox (in the
    caller's transaction). Computer players get nothing."""
    assert player.id is not None
    if player.bot_level is not None:
        return
    reader = site.reader_for(player)
    values = {"player": player, "subject": subject(reader),
              "my_games_url": site.links.my_games_url(player.id), **context}
    session.add(OutboxEmail(
        player_id=player.id, kind=kind, to_address=player.email, to_name=player.name,
        subject=values["subject"],
        text_body=render_email(f"email/{kind}.txt", reader, **values),
        html_body=render_email(f"email/{kind}.html", reader, **values),
        message_id=make_msgid(idstring=kind.replace("_", ""), domain=site.mail_domain),
        next_attempt_at=now, created_at=now))
