"""Where a ``next`` may send a browser: a path on this site, decided the way browsers parse URLs.

Every ``next`` in the app (the players' sign-in and sign-up, the games-page link, the organisers'
login) goes through :func:`safe_next`, so one link to one of our pages can never send anyone to
another site (an open redirect makes a phishing link look like ours).

Why these rules are enough, following the WHATWG URL standard (what browsers do with a
``Location`` header, resolved against the page's own ``https://`` address):

- Before parsing, a browser drops every ASCII tab and newline anywhere, and leading and trailing
  C0 controls and spaces: ``"/\\t/evil.test"`` *is* ``"//evil.test"``. So no control or
  whitespace character may appear at all (Unicode's too, and format characters such as
  bidirectional overrides, which only serve to disguise an address).
- ``"/"`` first means no scheme ("no scheme state", then "relative state"). The character after
  it decides the host: ``"/"`` or, for ``http``/``https``, ``"\\"`` starts an authority (another
  host: ``"//evil"``, ``"/\\evil"``, ``"///evil"``); anything else leaves the base's host and goes
  on as a path ("relative slash state" -> "path state"). A backslash is refused anywhere.
- Dot segments are refused too (``"/.//evil"`` resolves to the path ``"//evil"``: harmless here,
  but off-site as soon as anything writes that path out again as a link).
- The same rules hold after one round of percent-decoding (``"/%09/evil"``, ``"/%2F/evil"``,
  ``"/%5Cevil"``), so a proxy or a framework that decodes once cannot make a path off-site.

>>> safe_next("/games/abc/replay?ply=3")
'/games/abc/replay?ply=3'
>>> [safe_next(t) for t in ("//evil.test", "/\\t/evil.test", "https://evil.test", "seeks")]
[None, None, None, None]
"""

from __future__ import annotations

import unicodedata
from urllib.parse import unquote

MAX_NEXT = 2000  # longer is no link of ours; it is kept in the session cookie


def safe_next(target: str | None) -> str | None:
    """``target`` unchanged if it is a path on this site, else None (callers fall back to a page
    of their own: ``safe_next(value) or url_for("signin.account")``)."""
    if not target or len(target) > MAX_NEXT:
        return None
    if local_path(target) and local_path(unquote(target, errors="replace")):
        return target
    return None


def local_path(text: str) -> bool:
    """Whether a browser resolves ``text`` to a path on the page's own site, by the rules above.

    >>> local_path("/seeks"), local_path("/"), local_path("/a//b")
    (True, True, True)
    >>> local_path("/\\\\evil"), local_path(" /x"), local_path("/x\\u202e"), local_path("/../x")
    (False, False, False, False)
    """
    if not text.startswith("/") or text[1:2] == "/":
        return False
    if any(refused(character) for character in text):
        return False
    path = text.partition("?")[0].partition("#")[0]
    return not any(segment in (".", "..") for segment in path.split("/"))


def refused(character: str) -> bool:
    """Controls, formats, spaces and separators of any kind (Unicode's C and Z categories, and
    whatever else Python calls whitespace), and the backslash that browsers read as a slash."""
    return (character == "\\" or character.isspace()
            or unicodedata.category(character)[0] in "CZ")
