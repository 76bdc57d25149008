from collections.abc import Callable
from typing import TypeVar

from flask import Flask
from werkzeug.exceptions import BadRequest

_View = TypeVar("_View", bound=Callable[..., object] | str)  # a view or its endpoint name

def validate_csrf(
    data: str | None,
    secret_key: str | None = None,
    time_limit: int | None = None,
    token_key: str | None = None,
) -> None: ...

class CSRFProtect:
    def __init__(self, app: Flask | None = None) -> None: ...
    def init_app(self, app: Flask) -> None: ...
    def protect(self) -> None: ...
    def exempt(self, view: _View) -> _View: ...

class CSRFError(BadRequest): ...
