"""Where the files the app reads live, installed from a wheel or run from a checkout.

``templates/`` and ``docs/rules/`` sit at the top of the repository, beside the package, so that
they are easy to find and edit. A wheel carries them inside the package instead, as
``pbem/templates`` and ``pbem/docs/rules`` (setup.py copies them at build time), because nothing
outside the package is installed. A checkout, or an editable install (``make``), reads the
repository's own folder; one name means the same folder whichever way pbem was installed::

    >>> shipped("templates").name
    'templates'
    >>> (shipped("templates") / "email" / "invitation.txt").is_file()
    True
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def shipped(folder: str) -> Path:
    """The folder ``folder`` (a path under the repository's top, e.g. ``"docs/rules"``): the
    package's copy when pbem was installed from a wheel, else the checkout's."""
    inside = PACKAGE / folder
    return inside if inside.is_dir() else PACKAGE.parent / folder
