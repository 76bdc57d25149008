# Flask-Babel 4: the parts pbem uses (see typings/README.md).
from collections.abc import Callable
from typing import Any

from babel import Locale
from flask import Flask

class Babel:
    def __init__(
        self,
        app: Flask | None = None,
        date_formats: dict[str, str] | None = None,
        configure_jinja: bool = True,
        *args: Any,
        **kwargs: Any,
    ) -> None: ...
    def init_app(
        self,
        app: Flask,
        default_locale: str = "en",
        default_domain: str = "messages",
        default_translation_directories: str = "translations",
        default_timezone: str = "UTC",
        locale_selector: Callable[[], str | None] | None = None,
        timezone_selector: Callable[[], str | None] | None = None,
    ) -> None: ...

def get_locale() -> Locale | None: ...
def refresh() -> None: ...
def gettext(string: str, **variables: Any) -> str: ...
def ngettext(singular: str, plural: str, num: int, **variables: Any) -> str: ...
# At run time a flask_babel.speaklater.LazyString: it stands in for the str it becomes, translated
# when read in a request, everywhere pbem passes it (WTForms labels, admin action words). Declared
# as that str, as django-stubs does for gettext_lazy, so that callers keep their `str` parameters.
def lazy_gettext(string: str, **variables: Any) -> str: ...
