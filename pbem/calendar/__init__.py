"""A player's calendar of deadlines: a secret feed (iCalendar) that any calendar app subscribes
to, with one event per game where it is their turn, at its deadline (:mod:`~pbem.calendar.feed`).
Its address is a signed link of the player's links version (pbem.links, ``calendar``): replacing
their email links replaces it. Read-only: it reacts to nothing, the calendar app asks again."""
