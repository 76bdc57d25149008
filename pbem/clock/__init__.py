"""Time: how long a player may take, and what the clock of each game says.

- :mod:`pbem.clock.controls`: time controls (per move, Fischer) with their text and dict forms, and
  when to remind;
- :mod:`pbem.clock.arithmetic`: how much of a player's clock runs between two instants, given
  weekends off in their time zone and their absences;
- :mod:`pbem.clock.tables`: each game's clock row (``game_clocks``): its settings and its
  current turn's deadline, banks, pause and hold;
- :mod:`pbem.clock.deadlines`: keeping that row (deadlines, banks, what is due next), reading it
  (:func:`~pbem.clock.deadlines.clock_of`, games listed with their clocks) and the timeout
  policies.

Nothing here reads the clock or sends mail; every instant is an argument.
"""
