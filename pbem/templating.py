"""The Jinja environment for emails, usable without a Flask app (services and ``pbem deliver``),
and the pages' compiled templates."""

from __future__ import annotations

from datetime import datetime
from functools import cache

from jinja2 import BytecodeCache, Environment, FileSystemLoader, StrictUndefined, select_autoescape
from jinja2.bccache import Bucket

from pbem.i18n import ENGLISH, Reader, translations
from pbem.positions import shown_move
from pbem.resources import shipped

TEMPLATES = shipped("templates")


class CompiledTemplates(BytecodeCache):
    """Templates compiled once a process, for every app it makes: a test process makes hundreds
    of apps, and compiling a page's templates cost more than rendering it. Jinja keys a
    template by its name and checks its source's hash, so an edited template compiles again.
    Every pbem app's environment is made alike (pbem.create_app), so their code is the same."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if (code := self._code.get(bucket.key)) is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


COMPILED_PAGES = CompiledTemplates()
"""Every template, pages' and emails': the repository's ``templates/`` in a checkout, the
package's copy when installed from a wheel (pbem.resources)."""


def local_time(moment: datetime | None, time_zone: str = "UTC") -> str:
    """``moment`` for an English reader in ``time_zone`` (emails bind their reader's language)."""
    return Reader("en", time_zone).when(moment)


@cache
def email_environment(language: str = "en") -> Environment:
    """One environment per language, its gettext bound to that language's catalog."""
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,  # a typo in an email template fails loudly, in tests
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=["jinja2.ext.i18n"],
    )
    env.install_gettext_translations(translations(language), newstyle=True)  # type: ignore[attr-defined]

    def moment(value: datetime | None, time_zone: str = "UTC") -> str:
        return Reader(language, time_zone).when(value)

    env.filters["local_time"] = moment
    env.filters["shown_move"] = lambda notation: shown_move(notation, reader=Reader(language))
    return env


def render_email(name: str, reader: Reader = ENGLISH, **context: object) -> str:
    """Render an email template for ``reader`` (their language; ``reader`` is in the context)."""
    return email_environment(reader.language).get_template(name).render(reader=reader, **context)
