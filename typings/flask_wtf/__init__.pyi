# Flask-WTF 1.x: the parts pbem uses (see typings/README.md).
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from markupsafe import Markup
from wtforms import Form

class FlaskForm(Form):
    def __init__(self, formdata: Any = ..., **kwargs: Any) -> None: ...
    def is_submitted(self) -> bool: ...
    def validate_on_submit(
        self,
        extra_validators: Mapping[str, Sequence[Callable[..., object]]] | None = None,
    ) -> bool: ...
    def hidden_tag(self, *fields: Any) -> Markup: ...
