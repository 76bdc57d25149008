"""``python -m pbem.nginx [FILE]``: the parts of nginx's site config that pbem generates.

Without FILE it prints them; with FILE (deploy/nginx-pbem.conf) it rewrites the parts between
each ``# BEGIN generated NAME`` and ``# END generated NAME`` line in place. They are the
access log's mask of link tokens (from the app's token routes) and the security headers of
nginx's own pages (from pbem.web.security); tests/web/test_nginx_config.py checks that the
shipped config is up to date.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pbem import create_app
from pbem.logs import token_paths
from pbem.web.security import nginx_blocks, with_nginx_blocks


def app_token_paths() -> tuple[str, ...]:
    """The token routes' paths of the web app as it is built (no settings, no database)."""
    return token_paths(create_app({"DATABASE_URL": "sqlite://"}, read_env=False).url_map)


def main(argv: list[str]) -> int:
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print("usage: python -m pbem.nginx [deploy/nginx-pbem.conf]", file=sys.stderr)
        return 2
    paths = app_token_paths()
    if not argv:
        for name, text in nginx_blocks(paths).items():
            print(f"# {name}\n{text}")
        return 0
    config = Path(argv[0])
    try:
        old = config.read_text()
        new = with_nginx_blocks(old, paths)
    except (OSError, ValueError) as error:
        print(f"{config}: {error}", file=sys.stderr)
        return 1
    if new != old:
        config.write_text(new)
    print(f"{config}: {'rewritten' if new != old else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
