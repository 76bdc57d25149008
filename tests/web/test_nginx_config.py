"""The shipped nginx site (deploy/nginx-pbem.conf): its access log masks the token of every route
of the app that has one, and every response carries one copy of each security header.

The config's generated parts must be what ``python -m pbem.nginx`` writes from the app. The map
is read from the shipped text and run with Python's ``re`` (PCRE's ``(?<name>`` spelt
``(?P<name>``); then, when Debian's nginx is installed (``apt install nginx``), the shipped site
runs in a real nginx on free loopback ports in front of the app, and its access log and headers
are read.
"""

from __future__ import annotations

import http.client
import os
import re
import shlex
import shutil
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from werkzeug.serving import WSGIRequestHandler, make_server

from pbem import create_app
from pbem.db import Database
from pbem.links import Links
from pbem.logs import TOKEN_ARGUMENT, token_paths
from pbem.nginx import app_token_paths
from pbem.web.security import nginx_blocks, security_headers, with_nginx_blocks
from tests.support import SECRET, free_port

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "nginx-pbem.conf"
NGINX = Path("/usr/sbin/nginx")
LONG_SECRET = "a production secret that is long enough to sign links"
SECURITY_HEADERS = list(security_headers("https://pbem.example", production=True))

# Tokens as the app makes them: a signed link's (itsdangerous) and a sign-in link's.
SIGNED_TOKEN = Links(SECRET, "https://pbem.example").sign("move", game=3, seat=1, ply=7, p=12)
RANDOM_TOKEN = "q3Vx0-Lk_9sQeTzYb1mWnR4uHcJdA8fGhPo2iXy7KvE"


def _app(**settings: Any) -> Flask:
    return create_app({"ENV": "production", "SECRET_KEY": LONG_SECRET,
                       "BASE_URL": "https://pbem.example", "DATABASE_URL": "sqlite://",
                       **settings}, read_env=False)


def _sample_uris(app: Flask, token: str) -> list[tuple[str, str | None]]:
    """(a request URI, the token in it or None) for every route of ``app``, with a query."""
    found = []
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:[^<>:]+:)?(\w+)>",
                      lambda m: token if m[1] == TOKEN_ARGUMENT else "7", rule.rule)
        found.append((f"{path}?saved=1", token if TOKEN_ARGUMENT in rule.arguments else None))
    # Near misses: pages whose path starts like a token route's, and token routes without one.
    found += [(uri, None) for uri in ("/challenges/new", "/sign-in", "/me", "/seats/x1y2z3w4",
                                      "/g/abcdefghijkl", "/playground/abcdefghijkl")]
    return found


# -- reading the shipped config ------------------------------------------------------------------


@dataclass
class NginxMap:
    source: str
    entries: list[tuple[str, str]]

    def lookup(self, value: str, variables: dict[str, str]) -> str:
        """What nginx gives: the first regex (in order) that matches or the exact key, else
        the default; ``$name`` in the result from the regex's captures or ``variables``."""
        default = ""
        for key, result in self.entries:
            if key == "default":
                default = result
                continue
            captures: dict[str, str] = {}
            if key.startswith("~"):
                flags = re.IGNORECASE if key.startswith("~*") else 0
                pcre = key[2:] if key.startswith("~*") else key[1:]
                match = re.search(re.sub(r"\(\?<(\w+)>", r"(?P<\1>", pcre), value, flags)
                if match is None:
                    continue
                captures = {k: v or "" for k, v in match.groupdict().items()}
            elif key != value:
                continue
            return _substitute(result, {**variables, **captures})
        return _substitute(default, variables)


def _substitute(text: str, variables: dict[str, str]) -> str:
    return re.sub(r"\$(\w+)", lambda m: variables[m[1]], text)


def _maps(config: str) -> dict[str, NginxMap]:
    """Every ``map $source $variable { ... }`` block, by the variable it sets."""
    found = {}
    for block in re.finditer(r"^map\s+\$(\w+)\s+\$(\w+)\s*\{\n(.*?)^\}", config, re.M | re.S):
        entries = []
        for line in block[3].splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                key, value = shlex.split(line.removesuffix(";"))
                entries.append((key, value))
        found[block[2]] = NginxMap(block[1], entries)
    return found


def _server_blocks(config: str) -> list[str]:
    """The text of each top-level ``server { ... }`` block."""
    blocks = []
    for start in (m.end() for m in re.finditer(r"^server\s*\{", config, re.M)):
        depth, end = 1, start
        while depth:
            depth += {"{": 1, "}": -1}.get(config[end], 0)
            end += 1
        blocks.append(config[start:end - 1])
    return blocks


def _directives(block: str, name: str) -> list[list[str]]:
    """The arguments of each ``name ...;`` line of ``block`` (comments left out)."""
    return [shlex.split(m[1]) for m in re.finditer(
        rf"^\s*{name}\s+((?:\"[^\"]*\"|'[^']*'|[^;#\n\"'])*);", block, re.M)]


def _tls_server(config: str) -> str:
    return next(b for b in _server_blocks(config) if "ssl_certificate" in b)


# -- the config's text -------------------------------------------------------------------------


def test_the_shipped_config_has_the_generated_blocks() -> None:
    shipped = CONFIG.read_text()
    paths = app_token_paths()
    assert with_nginx_blocks(shipped, paths) == shipped, \
        "deploy/nginx-pbem.conf is out of date: run python -m pbem.nginx deploy/nginx-pbem.conf"
    for name, block in nginx_blocks(paths).items():
        indent = "    " if name == "headers" else ""
        assert "".join(f"{indent}{line}\n" for line in block.splitlines()) in shipped, name
    # Every token route the issue named, and those it found missing.
    assert {"/play/", "/invite/", "/seat/", "/resign/", "/me/", "/unsubscribe/", "/sign-in/",
            "/sign-up/", "/challenge/", "/rematch/"} <= set(paths)


def test_a_generated_block_cannot_go_missing() -> None:
    shipped = CONFIG.read_text()
    cut = re.sub(r"# BEGIN generated headers.*?# END generated headers\n", "", shipped, flags=re.S)
    with pytest.raises(ValueError, match="no generated headers block"):
        with_nginx_blocks(cut, app_token_paths())


@pytest.mark.parametrize("token", [SIGNED_TOKEN, RANDOM_TOKEN], ids=["signed", "random"])
def test_the_shipped_map_masks_every_token_route_and_nothing_else(token: str) -> None:
    logged = _maps(CONFIG.read_text())["pbem_logged_uri"]
    assert logged.source == "request_uri"
    uris = _sample_uris(_app(), token)
    assert sum(1 for _, carried in uris if carried) >= 10
    for uri, carried in uris:
        shown = logged.lookup(uri, {"request_uri": uri})
        if carried:
            assert token not in shown and token[:6] not in shown, uri
            assert shown == uri.replace(token, "-"), uri
        else:
            assert shown == uri


def test_an_app_route_with_a_token_elsewhere_is_refused() -> None:
    """A token that is not a whole segment after a fixed path could not be masked by the map;
    such a route must be changed (or the masks taught), not silently left in the logs."""
    app = _app()
    app.add_url_rule("/x/<int:n>/<token>", "odd", lambda n, token: "")
    with pytest.raises(ValueError, match="whole path segment"):
        token_paths(app.url_map)


def test_nginx_sends_a_header_the_app_sends_only_where_the_app_did_not() -> None:
    """For each header nginx adds that the app also sends, nginx hides the app's copy or adds
    its own only when the app's is missing; and nginx's own pages get every one of them."""
    config = CONFIG.read_text()
    maps = _maps(config)
    server = _tls_server(config)
    app_sends = set(_app().test_client().get("/").headers.keys())
    assert set(SECURITY_HEADERS) <= app_sends
    hidden = {args[0].lower() for args in _directives(server, "proxy_hide_header")}
    added: dict[str, str] = {}
    for args in _directives(server, "add_header"):
        name, value = args[0], args[1]
        assert name not in added, f"{name} is added twice"
        added[name] = value
        if name not in app_sends or name.lower() in hidden:
            continue
        variable = value.removeprefix("$")
        assert value.startswith("$") and variable in maps, \
            f"{name}: both the app's copy and nginx's {value!r}"
        only_when_missing = maps[variable]
        assert only_when_missing.source == "upstream_http_" + name.lower().replace("-", "_")
        assert only_when_missing.lookup("anything the app sent", {}) == "", name
        own = only_when_missing.lookup("", {})
        assert own, f"nginx's own pages get no {name}"
    for name in SECURITY_HEADERS:  # nginx's own error pages: a 502 on a token page included
        assert name in added, f"nginx's own pages get no {name}"
    for block in _server_blocks(config):  # a location's own add_header would drop them all
        for location in re.finditer(r"location[^{]*\{([^}]*)\}", block):
            assert "add_header" not in location[1], location[0]


# -- a real nginx --------------------------------------------------------------------------------


@dataclass
class Site:
    """The shipped site running in nginx in front of the app."""

    tls_port: int
    access_log: Path
    app_server: Any

    def get(self, uri: str) -> http.client.HTTPResponse:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        connection = http.client.HTTPSConnection("127.0.0.1", self.tls_port, timeout=30,
                                                 context=context)
        connection.request("GET", uri, headers={"Host": "pbem.example.org"})
        answer = connection.getresponse()
        answer.read()
        connection.close()
        return answer

    def logged(self) -> str:
        # nginx writes each line when the request ends; give it a moment after the answer.
        deadline = time.monotonic() + 5
        text = ""
        while time.monotonic() < deadline:
            text = self.access_log.read_text()
            if text.endswith("\n"):
                break
            time.sleep(0.05)  # nginx (another process) writes the line when it likes
        return text


def _replace(text: str, old: str, new: str, count: int) -> str:
    """Each rewrite of the shipped config must find what it rewrites, or the test would run
    some other config."""
    assert text.count(old) == count, f"{old!r} is no longer in deploy/nginx-pbem.conf"
    return text.replace(old, new)


def _run_config(folder: Path, app_port: int) -> tuple[Path, int]:
    """The shipped site with loopback ports, a throwaway certificate and logs in ``folder``,
    inside the smallest main config; (that main config, the TLS port)."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=pbem.example.org", "-keyout", str(folder / "key.pem"),
                    "-out", str(folder / "cert.pem")], check=True, capture_output=True)
    plain, tls = free_port(), free_port()
    site = CONFIG.read_text()
    site = _replace(site, "    listen [::]:80;\n", "", 1)
    site = _replace(site, "    listen [::]:443 ssl http2;\n", "", 1)
    site = _replace(site, "listen 80;", f"listen 127.0.0.1:{plain};", 1)
    site = _replace(site, "listen 443 ssl http2;", f"listen 127.0.0.1:{tls} ssl http2;", 1)
    site = _replace(site, "server 127.0.0.1:8000;", f"server 127.0.0.1:{app_port};", 1)
    site = _replace(site, "/var/log/nginx/pbem.access.log", str(folder / "access.log"), 2)
    site = _replace(site, "/etc/letsencrypt/live/pbem.example.org/fullchain.pem",
                    str(folder / "cert.pem"), 1)
    site = _replace(site, "/etc/letsencrypt/live/pbem.example.org/privkey.pem",
                    str(folder / "key.pem"), 1)
    (folder / "site.conf").write_text(site)
    temp = "\n".join(f"    {kind}_temp_path {folder / kind};"
                     for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    main = folder / "nginx.conf"
    main.write_text(
        f"{'user root;' if os.geteuid() == 0 else ''}\n"
        f"worker_processes 1;\ndaemon off;\npid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'};\nevents {{ worker_connections 64; }}\n"
        f"http {{\n    access_log off;\n{temp}\n    include {folder / 'site.conf'};\n}}\n")
    return main, tls


class _OneRequest(WSGIRequestHandler):
    """One request per connection: once the app stops, nginx finds no connection kept open."""

    protocol_version = "HTTP/1.0"


@pytest.fixture
def nginx_site(tmp_path: Path, sqlite_database: Database) -> Iterator[Site]:
    if not NGINX.exists():
        pytest.skip("nginx is not installed (apt install nginx)")
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    # The app as in production: HSTS and every other header of its own, behind one proxy.
    app = _app(DATABASE=sqlite_database, TRUSTED_PROXIES=1)
    app_port = free_port()
    server = make_server("127.0.0.1", app_port, app, threaded=True, request_handler=_OneRequest)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    main, tls = _run_config(tmp_path, app_port)
    command = [str(NGINX), "-p", str(tmp_path), "-e", str(tmp_path / "error.log"), "-c",
               str(main)]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        site = Site(tls, tmp_path / "access.log", server)
        while True:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            try:
                site.get("/robots.txt")
                break
            except OSError:
                assert time.monotonic() < deadline, "nginx did not answer"
                time.sleep(0.1)  # nginx is starting
        yield site
    finally:
        process.terminate()
        process.wait(timeout=20)
        server.shutdown()


def test_real_nginx_logs_no_token_of_any_route(nginx_site: Site) -> None:
    uris = [*_sample_uris(_app(), SIGNED_TOKEN), *_sample_uris(_app(), RANDOM_TOKEN)]
    for uri, _ in uris:
        nginx_site.get(uri)
    logged = nginx_site.logged()
    for uri, carried in uris:
        if carried:
            assert carried not in logged
            assert f'"GET {uri.replace(carried, "-")} HTTP/1.1"' in logged, uri
        elif not uri.startswith(("/healthz", "/metrics")):  # not logged (access_log off)
            assert f'"GET {uri} HTTP/1.1"' in logged, uri


def test_real_nginx_sends_one_copy_of_each_header(nginx_site: Site) -> None:
    pages = {
        "home": "/", "token page": f"/play/{SIGNED_TOKEN}",
        "sign-in link": f"/sign-in/{RANDOM_TOKEN}",
        "not found": "/no/such/page", "robots.txt (nginx's)": "/robots.txt",
        "/dev/ (refused by nginx)": "/dev/mail",
    }
    answers = {name: nginx_site.get(uri) for name, uri in pages.items()}
    assert answers["home"].status == 200 and answers["robots.txt (nginx's)"].status == 200
    nginx_site.app_server.shutdown()  # gunicorn restarting: nginx's own 502 page
    nginx_site.app_server.server_close()
    answers["app down (nginx's 502)"] = nginx_site.get(f"/me/{RANDOM_TOKEN}")
    assert answers["app down (nginx's 502)"].status == 502
    for name, answer in answers.items():
        for header in SECURITY_HEADERS:
            assert len(answer.headers.get_all(header) or []) == 1, (name, header)
    # The app's own policy where it answered; nginx's where it did not.
    assert "https://pbem.example" in (answers["home"].headers["Content-Security-Policy"])
    assert "https://pbem.example" not in answers["robots.txt (nginx's)"].headers[
        "Content-Security-Policy"]
    assert answers["app down (nginx's 502)"].headers["Referrer-Policy"] == "no-referrer"
