"""Logging for every pbem command, with the secrets masked in every line.

Whoever reads a log (the journal, a pasted support question) must not be able to act for a
player or log in anywhere. :func:`configure_logging` logs to stderr and masks each record on its
handlers, so the lines of every logger are masked: pbem's own, aiosmtpd's ``mail.log`` (which
writes whole SMTP sessions at INFO), APScheduler's, gunicorn's. Masked are:

- reply and bounce tokens: everything after ``+`` in the local part of an address;
- the reply token in the Message-IDs pbem makes (``<pbem.TOKEN.UNIQUE@domain>``);
- link tokens in URL paths, after the first 8 characters (enough to tell requests apart), on
  every route of the web app with a ``token`` argument (:func:`mask_link_tokens`);
- passwords in URLs (database, IMAP, Redis).

>>> print(mask_secrets("RCPT TO:<play+ceaaaaabaaaaaaaabaaaaaaeaaaaaaaa@pbem.example.org>"))
RCPT TO:<play+…@pbem.example.org>
>>> print(mask_secrets("database: postgresql://pbem:s3cret@db.example.org/pbem"))
database: postgresql://pbem:***@db.example.org/pbem

``pbem.web.security`` registers the web app's routes here and generates nginx's access-log mask
from the same :func:`token_paths`: one list of token routes, read from the app's URL map.
"""

from __future__ import annotations

import logging
import re
import weakref
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # werkzeug is only needed by the web app, which passes its map in
    from werkzeug.routing import Map

FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
MASK = "…"
LINK_TOKEN_SHOWN = 8  # characters of a link token left in a log line
TOKEN_ARGUMENT = "token"  # a route whose rule has <token> carries a credential in its path

# A +tag at the end of an address's local part, up to the "@": "play+TOKEN@", "bounce+TOKEN@",
# also inside a repr of bytes (b'RCPT TO:<play+TOKEN@...>') or an SRS-rewritten sender.
_TAG = re.compile(r"(?<=[\w.!#$%&'*/=?^`{|}~-])\+[^\s@<>\"'(),;:\[\]\\]+(?=@)")
# pbem.reply_addresses.message_id(): "<pbem.TOKEN.UNIQUE@domain>", the token being base32.
_MESSAGE_ID_TOKEN = re.compile(r"(?<![\w.-])(pbem\.)[A-Za-z2-7]{16,}(?=\.)")
# scheme://user:password@host. The password may hold "/" (SQLAlchemy allows it) and even a
# stray "@", so it runs to the last "@" of the word: at worst a little more is masked.
_URL_PASSWORD = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@\"'<>]*:)[^\s\"'<>]*@")
# What a token in a path may be made of: anything up to the end of its path segment.
_SEGMENT = r"[^/\s?#\"'<>]"


# -- the routes whose path carries a token --------------------------------------------------------

_TOKEN_IN_RULE = re.compile(rf"<(?:[^<>:]+:)?{TOKEN_ARGUMENT}>")


def token_paths(url_map: Map, *, strict: bool = True) -> tuple[str, ...]:
    """The path before ``<token>`` of every rule with a ``token`` argument, sorted, each once.

    A rule whose token is not a whole segment after a fixed path cannot be masked (by the log
    masks or nginx's map): ValueError, or with ``strict=False`` that rule is left out.

    >>> from werkzeug.routing import Map, Rule
    >>> token_paths(Map([Rule("/play/<token>/confirm"), Rule("/play/<token>"),
    ...                  Rule("/sign-in/<token>"), Rule("/g/<public_id>"), Rule("/")]))
    ('/play/', '/sign-in/')
    """
    found = set()
    for rule in url_map.iter_rules():
        if TOKEN_ARGUMENT not in rule.arguments:
            continue
        match = _TOKEN_IN_RULE.search(rule.rule)
        prefix = rule.rule[:match.start()] if match else ""
        if prefix.startswith("/") and prefix.endswith("/") and "<" not in prefix:
            found.add(prefix)
        elif strict:
            raise ValueError(f"route {rule.rule!r}: a token must be a whole path segment after "
                             "a fixed path, such as /play/<token>")
    return tuple(sorted(found))


# The token routes' paths of each web app made (weakly held: tests make many apps).
_paths_of: weakref.WeakKeyDictionary[Map, tuple[str, ...]] = weakref.WeakKeyDictionary()


def mask_link_tokens(url_map: Map) -> None:
    """From now on mask, in every masked log line, the tokens of ``url_map``'s token routes
    (read once: call it when every rule is there)."""
    # Never an error here: tests/web/test_nginx_config.py refuses a rule whose token is not a
    # whole path segment.
    _paths_of[url_map] = token_paths(url_map, strict=False)


def link_token_paths() -> tuple[str, ...]:
    """The token routes' paths of every registered URL map (see :func:`mask_link_tokens`)."""
    return tuple(sorted({path for paths in list(_paths_of.values()) for path in paths}))


def mask_link_tokens_in(text: str, paths: Iterable[str]) -> str:
    """``/play/<token>/confirm`` -> ``/play/<first 8 characters>…/confirm`` for each of ``paths``.

    >>> print(mask_link_tokens_in('"GET /me/eyJwbGF5ZXIiOjF9.abc.def?saved=1 HTTP/1.1" 200',
    ...                           ["/me/", "/play/"]))
    "GET /me/eyJwbGF5…?saved=1 HTTP/1.1" 200
    """
    paths = tuple(sorted(set(paths)))
    if not paths:
        return text
    alternatives = "|".join(re.escape(path) for path in paths)
    pattern = _compiled(rf"((?:{alternatives}){_SEGMENT}{{{LINK_TOKEN_SHOWN}}}){_SEGMENT}+")
    return pattern.sub(lambda m: m[1] + MASK, text)


@lru_cache(maxsize=16)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# -- masking ----------------------------------------------------------------------------------


def mask_secrets(text: str, link_paths: Iterable[str] | None = None) -> str:
    """``text`` with every secret masked; link tokens on ``link_paths``, by default those of
    the registered web apps (:func:`mask_link_tokens`).

    >>> print(mask_secrets("MAIL FROM:<bounce+ceaaaaabaaaaaaaa@pbem.example.org> SIZE=812"))
    MAIL FROM:<bounce+…@pbem.example.org> SIZE=812
    >>> print(mask_secrets("In-Reply-To: <pbem.ceaaaaabaaaaaaaabaaaaaae.812.1@pbem.example.org>"))
    In-Reply-To: <pbem.….812.1@pbem.example.org>
    >>> print(mask_secrets("imaps://pbem:pa/s@s@mail.example.org/INBOX and redis://:pw@127.0.0.1"))
    imaps://pbem:***@mail.example.org/INBOX and redis://:***@127.0.0.1
    >>> print(mask_secrets("https://pbem.example.org/sign-in/Zm9vYmFyYmF6cXV4?x", ["/sign-in/"]))
    https://pbem.example.org/sign-in/Zm9vYmFy…?x
    """
    text = _TAG.sub("+" + MASK, text)
    text = _MESSAGE_ID_TOKEN.sub(lambda m: m[1] + MASK, text)
    text = _URL_PASSWORD.sub(lambda m: m[1] + "***@", text)
    return mask_link_tokens_in(text, link_token_paths() if link_paths is None else link_paths)


class MaskSecrets(logging.Filter):
    """Rewrites a record so that no secret reaches any handler: its message with the arguments
    filled in, its traceback and its stack (exceptions name addresses and URLs too)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()  # secrets may be in the message or the arguments
        except (TypeError, ValueError):
            return True  # a broken record: logging reports it as it would have anyway
        try:
            record.msg, record.args = mask_secrets(message), None
            if record.exc_info and not record.exc_text:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            if record.exc_text:  # formatters use exc_text when it is set
                record.exc_text = mask_secrets(record.exc_text)
            if record.stack_info:
                record.stack_info = mask_secrets(record.stack_info)
        except Exception as error:  # logging must never break the caller, nor leak a secret
            record.msg = f"(a log line withheld: masking it failed: {type(error).__name__})"
            record.args = None
            record.exc_info = record.exc_text = record.stack_info = None
        return True


def _add_mask(target: logging.Filterer) -> None:
    if not any(isinstance(f, MaskSecrets) for f in target.filters):
        target.addFilter(MaskSecrets())


def mask_logger(*loggers: logging.Logger | str) -> None:
    """Mask the records logged on these loggers themselves, whatever handles them (a logger's
    filters do not see its children's records: :func:`mask_handlers` does)."""
    for logger in loggers:
        _add_mask(logging.getLogger(logger) if isinstance(logger, str) else logger)


def mask_handlers(*loggers: logging.Logger | str) -> None:
    """Mask every record that these loggers' handlers write, from any logger; with no loggers
    named, the handlers of every logger that has some (gunicorn's own, the root's)."""
    if loggers:
        chosen = [logging.getLogger(x) if isinstance(x, str) else x for x in loggers]
    else:
        chosen = [logging.getLogger(), *(x for x in logging.root.manager.loggerDict.values()
                                         if isinstance(x, logging.Logger))]
    for logger in chosen:
        for handler in logger.handlers:
            _add_mask(handler)


def configure_logging(level: int = logging.INFO) -> None:
    """Log to stderr at ``level`` with every secret masked: what every pbem command calls first.

    Like :func:`logging.basicConfig` (which it calls) it leaves a configuration already made
    alone (gunicorn's handlers, pytest's), and masks the handlers it finds there too.
    """
    logging.basicConfig(level=level, format=FORMAT)
    # Each of their lines at INFO is noise in an operator's journal (alembic's plugin setup,
    # a dozen flufl.bounce detector lines per bounce, Procrastinate's lines per job: a search
    # worker logs one of its own).
    for chatty in ("alembic.runtime.plugins", "flufl.bounce", "procrastinate"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    mask_handlers()
