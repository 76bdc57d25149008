"""Headers every response carries, and keeping link tokens out of logs.

The pages need no script: boards are inline SVG whose cells are plain links, forms are plain
forms. So the Content-Security-Policy allows no script at all; styles are inline (``<style>`` in
the page and ``style`` attributes in pages, SVG and the caught mail), so only styles get
``'unsafe-inline'``. Images are the app's own (caught mail parts) or ``data:`` URLs.

Links carry signed tokens in their path: whoever reads them can act for the player. They must not
leak through the Referer header, shared caches, the browser's cache, or the server's own log.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import urlsplit

from flask import Flask, request
from werkzeug.wrappers import Response

# The path prefixes whose next segment is a token (pbem.links builds these URLs).
TOKEN_PATHS = ("play", "invite", "seat", "resign", "me", "unsubscribe")
_TOKEN_IN_PATH = re.compile(rf"(/(?:{'|'.join(TOKEN_PATHS)})/)([^/\s?#\"']{{8}})[^/\s?#\"']*")

PERMISSIONS_POLICY = ", ".join(f"{feature}=()" for feature in (
    "accelerometer", "camera", "geolocation", "gyroscope", "magnetometer", "microphone",
    "payment", "usb", "browsing-topics"))
HSTS = "max-age=31536000; includeSubDomains"


def content_security_policy(base_url: str) -> str:
    """The policy for every page; forms may post (and be redirected) to the site's own base URL,
    which may differ from the address the browser used (127.0.0.1 against localhost)."""
    parts = urlsplit(base_url)
    origin = f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
    return "; ".join([
        "default-src 'none'",
        "script-src 'none'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        f"form-action 'self'{' ' + origin if origin else ''}",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    ])


def redact_tokens(text: str) -> str:
    """``/play/<token>/confirm`` -> ``/play/<first 8 characters>…/confirm``: enough to tell
    requests apart in a log, useless as a link.

    >>> redact_tokens('"GET /me/eyJwbGF5ZXIiOjF9.abc.def?saved=1 HTTP/1.1" 200')
    '"GET /me/eyJwbGF5…?saved=1 HTTP/1.1" 200'
    """
    return _TOKEN_IN_PATH.sub(lambda m: f"{m[1]}{m[2]}…", text)


class RedactTokens(logging.Filter):
    """Rewrites a log record so that no full token reaches any handler."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()  # the arguments filled in: tokens may be in either
        except (TypeError, ValueError):
            return True  # a broken record: logging reports it as it would have anyway
        record.msg, record.args = redact_tokens(message), None
        return True


def _redact_logs(app: Flask) -> None:
    # Werkzeug's development server logs each request line; Flask logs "Exception on <path>";
    # gunicorn's worker logs "Error handling request <path>" (its access log is off: deploy/).
    for logger in (logging.getLogger("werkzeug"), logging.getLogger("gunicorn.error"),
                   app.logger):
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())


def _carries_token() -> bool:
    """Pages reached by a token, and caught mail (full of tokens): never stored by any cache."""
    return "token" in (request.view_args or {}) or request.blueprint == "dev"


def init_app(app: Flask) -> None:
    policy = content_security_policy(str(app.config.get("BASE_URL", "")))
    production = app.config.get("ENV") == "production"
    _redact_logs(app)

    @app.after_request
    def security_headers(response: Response) -> Response:
        headers = response.headers
        # Links carry signed tokens: never leak them to other sites through the Referer header.
        headers["Referrer-Policy"] = "no-referrer"
        headers["X-Content-Type-Options"] = "nosniff"
        headers["X-Frame-Options"] = "DENY"
        headers.setdefault("Content-Security-Policy", policy)
        headers["Permissions-Policy"] = PERMISSIONS_POLICY
        if production:  # development runs on plain http://127.0.0.1
            headers["Strict-Transport-Security"] = HSTS
        if _carries_token():
            headers["Cache-Control"] = "no-store"
        return response
