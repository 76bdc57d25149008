"""Headers every response carries, and keeping link tokens out of logs.

The pages need no script: boards are inline SVG whose cells are plain links, forms are plain
forms. One script of our own (static/board.js) makes boards answer in place where it runs; the
Content-Security-Policy allows that file's origin and nothing else (no inline script, no
``eval``, no other site), so markup injected into a page can never run. Styles are inline
(``<style>`` in the page and ``style`` attributes in pages, SVG and the caught mail), so only
styles get ``'unsafe-inline'``. Images are the app's own (caught mail parts) or ``data:`` URLs.

Links carry signed tokens in their path: whoever reads them can act for the player. They must not
leak through the Referer header, shared caches, the browser's cache, or the server's own log.
Which paths carry a token is read from the app's URL map (every rule with a ``token``
argument, :func:`pbem.logs.token_paths`): the log masks, the ``no-store`` pages and nginx's
access-log map all follow it.

nginx in front (deploy/nginx-pbem.conf) sends each of these headers only where the app did not
answer (its own error pages, ``robots.txt``), so every response has one copy, and the values come
from here: :func:`nginx_blocks` writes that part of the config (``python -m pbem.nginx``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from flask import Flask, request
from werkzeug.wrappers import Response

from pbem.logs import TOKEN_ARGUMENT, mask_handlers, mask_logger

PERMISSIONS_POLICY = ", ".join(f"{feature}=()" for feature in (
    "accelerometer", "camera", "geolocation", "gyroscope", "magnetometer", "microphone",
    "payment", "usb", "browsing-topics"))
HSTS = "max-age=31536000; includeSubDomains"
# Links carry signed tokens: never leak them to other sites through the Referer header.
FIXED_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Permissions-Policy": PERMISSIONS_POLICY,
}


def content_security_policy(base_url: str) -> str:
    """The policy for every page; forms may post (and be redirected) to the site's own base URL,
    which may differ from the address the browser used (127.0.0.1 against localhost)."""
    parts = urlsplit(base_url)
    origin = f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
    return "; ".join([
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        f"form-action 'self'{' ' + origin if origin else ''}",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    ])


def security_headers(base_url: str, *, production: bool) -> dict[str, str]:
    """The security headers of every page (``Cache-Control`` aside, which depends on the page).

    >>> sorted(security_headers("https://pbem.example", production=True))
    ['Content-Security-Policy', 'Permissions-Policy', 'Referrer-Policy',
     'Strict-Transport-Security', 'X-Content-Type-Options', 'X-Frame-Options']
    """
    headers = {**FIXED_HEADERS, "Content-Security-Policy": content_security_policy(base_url)}
    if production:  # development runs on plain http://127.0.0.1
        headers["Strict-Transport-Security"] = HSTS
    return dict(sorted(headers.items()))


def _redact_logs(app: Flask) -> None:
    # Also where no command set up logging (tests, gunicorn): Werkzeug's development server logs
    # each request line; Flask logs "Exception on <path>"; gunicorn's worker logs "Error handling
    # request <path>" (its access log is off: deploy/), and Flask's handler on the app's logger
    # writes pbem's own records when nothing else does.
    loggers = (logging.getLogger("werkzeug"), logging.getLogger("gunicorn.error"),
               logging.getLogger("gunicorn.access"), app.logger)
    mask_logger(*loggers)
    mask_handlers(*loggers)


def _carries_token() -> bool:
    """Pages reached by a token, and caught mail (full of tokens): never stored by any cache."""
    return TOKEN_ARGUMENT in (request.view_args or {}) or request.blueprint == "dev"


def init_app(app: Flask) -> None:
    headers_of_pages = security_headers(str(app.config.get("BASE_URL", "")),
                                        production=app.config.get("ENV") == "production")
    _redact_logs(app)

    @app.after_request
    def security_headers_of(response: Response) -> Response:
        headers = response.headers
        for name, value in headers_of_pages.items():
            if name == "Content-Security-Policy":
                headers.setdefault(name, value)  # a caught mail part sets a stricter one
            else:
                headers[name] = value
        if _carries_token():
            headers["Cache-Control"] = "no-store"
        return response


# -- nginx ------------------------------------------------------------------------------------

NGINX_COMMAND = "python -m pbem.nginx FILE"  # rewrites the generated blocks of FILE
_NGINX_MARKERS = re.compile(
    r"^(?P<indent>[ \t]*)# BEGIN generated (?P<name>[a-z]+)[^\n]*\n.*?^[ \t]*# END generated "
    r"(?P=name)[^\n]*\n", re.MULTILINE | re.DOTALL)
_NGINX_PATH = re.compile(r"/(?:[A-Za-z0-9_-]+/)+")


def _nginx_name(header: str) -> str:
    """How nginx names a header in variables: ``$upstream_http_x_frame_options``."""
    return header.lower().replace("-", "_")


def nginx_blocks(token_paths: Iterable[str]) -> dict[str, str]:
    """The generated parts of deploy/nginx-pbem.conf, by name: ``maps`` (http level: the access
    log's mask of link tokens and each header's value for nginx's own pages) and ``headers``
    (the TLS server's add_header lines), each without its BEGIN/END lines and indentation.

    >>> print(nginx_blocks(["/me/", "/sign-in/"])["maps"].splitlines()[1])
        "~^/(?<kind>me|sign-in)/[^/?]*(?<rest>.*)$" "/$kind/-$rest";
    """
    paths = sorted(set(token_paths))
    for path in paths:
        if not _NGINX_PATH.fullmatch(path):
            raise ValueError(f"{path!r} cannot be put into nginx's map as it is")
    kinds = "|".join(path.strip("/") for path in paths)
    maps = [
        # The token, up to the end of its path segment, becomes "-"; the rest stays.
        "map $request_uri $pbem_logged_uri {",
        f'    "~^/(?<kind>{kinds})/[^/?]*(?<rest>.*)$" "/$kind/-$rest";',
        "    default $request_uri;",
        "}",
    ]
    # nginx's own pages (502 while gunicorn restarts, robots.txt, /dev/) carry no page of the app.
    headers = security_headers("", production=True)
    lines = []
    for name, value in headers.items():
        if any(c in value for c in '"\\$'):
            raise ValueError(f"{name}: {value!r} cannot be quoted for nginx")
        variable = f"$pbem_{_nginx_name(name)}"
        maps += [f"map $upstream_http_{_nginx_name(name)} {variable} {{",
                 f'    "" "{value}";',
                 '    default "";',
                 "}"]
        lines.append(f"add_header {name} {variable} always;")
    return {"maps": "\n".join(maps) + "\n", "headers": "\n".join(lines) + "\n"}


def with_nginx_blocks(config: str, token_paths: Iterable[str]) -> str:
    """``config`` (the text of deploy/nginx-pbem.conf) with its generated parts written anew;
    ValueError if one of them is missing."""
    blocks = nginx_blocks(token_paths)
    seen: set[str] = set()

    def rewrite(match: re.Match[str]) -> str:
        name, indent = match["name"], match["indent"]
        if name not in blocks:
            raise ValueError(f"no generated block called {name!r}")
        seen.add(name)
        body = "".join(f"{indent}{line}\n" if line else "\n"
                       for line in blocks[name].splitlines())
        return (f"{indent}# BEGIN generated {name}: `{NGINX_COMMAND}` writes it, do not edit\n"
                f"{body}{indent}# END generated {name}\n")

    written = _NGINX_MARKERS.sub(rewrite, config)
    if missing := set(blocks) - seen:
        raise ValueError(f"the config has no generated {', '.join(sorted(missing))} block: "
                         "add '# BEGIN generated NAME' and '# END generated NAME' lines")
    return written
