"""URL converters of the app's rules.

``<int:...>`` is :class:`RowId` everywhere: a number no table can hold is no page (404), rather
than a query that fails (SQLite cannot bind it; PostgreSQL's ``integer`` column refuses it: 500).

>>> from werkzeug.routing import Map, Rule
>>> urls = Map([Rule("/players/<int:player_id>", endpoint="p")],
...            converters={"int": RowId}).bind("pbem.example")
>>> urls.match("/players/12")
('p', {'player_id': 12})
>>> urls.match("/players/2147483648")
Traceback (most recent call last):
...
werkzeug.exceptions.NotFound: 404 Not Found: ...
"""

from __future__ import annotations

from werkzeug.routing import IntegerConverter, Map

MAX_ROW_ID = 2**31 - 1  # PostgreSQL's integer, the type of every id column


class RowId(IntegerConverter):
    """An integer converter whose ``max`` is :data:`MAX_ROW_ID` unless a rule says otherwise."""

    def __init__(self, map: Map, fixed_digits: int = 0, min: int | None = None,
                 max: int | None = MAX_ROW_ID, signed: bool = False) -> None:
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)
