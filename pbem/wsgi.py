"""The WSGI entry point for a production server: ``gunicorn pbem.wsgi:app``.

Settings come from the environment (deploy/pbem.env.example); a setting that cannot work stops
gunicorn with the one line that names it (as every ``pbem`` command does), not a traceback per
worker restarted forever.
"""

import gc
import sys

from pbem import create_app
from pbem.config import ConfigError
from pbem.logs import configure_logging

# gunicorn's arbiter stops altogether when a worker exits with this code ("failed to boot")
# instead of starting another worker that would fail the same way.
WORKER_BOOT_ERROR = 3

configure_logging()  # other libraries' warnings under gunicorn are masked too
try:
    app = create_app()
except ConfigError as error:
    print(f"pbem: {error}", file=sys.stderr)
    raise SystemExit(WORKER_BOOT_ERROR) from None
# The app's own objects (modules, templates, the engine's tables) live as long as the worker:
# out of the collector's sight, a full collection walks only what requests make. Without this a
# page that makes many objects (a home of 200 games) paid a full walk of them every few
# requests: 100 ms more CPU at p95 (issue 36, bench/capacity.py).
gc.freeze()
