# Flask-Login 0.6: the parts pbem uses (see typings/README.md).
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

from flask import Flask
from werkzeug.wrappers import Response

_Loader = TypeVar("_Loader", bound=Callable[[str], object])
_Handler = TypeVar("_Handler", bound=Callable[[], object])

class LoginManager:
    session_protection: str | None
    def __init__(self, app: Flask | None = None, add_context_processor: bool = True) -> None: ...
    def init_app(self, app: Flask, add_context_processor: bool = True) -> None: ...
    def user_loader(self, callback: _Loader) -> _Loader: ...
    def unauthorized_handler(self, callback: _Handler) -> _Handler: ...
    def unauthorized(self) -> Response: ...

# The signed-in user of the request, whatever the user loader returned (a LocalProxy).
current_user: Any

def login_user(
    user: Any,
    remember: bool = False,
    duration: timedelta | None = None,
    force: bool = False,
    fresh: bool = True,
) -> bool: ...
def logout_user() -> bool: ...
