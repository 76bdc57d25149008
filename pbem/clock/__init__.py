"""Time: how long a player may take, and what the clock of each game says.

- :mod:`pbem.clock.controls`: time controls (per move, Fischer) with their text and dict forms, and
  when to remind;
- :mod:`pbem.clock.arithmetic`: how much of a player's clock runs between two instants, given
  weekends off in their time zone and their absences;
- :mod:`pbem.clock.deadlines`: a game's clock kept in its row (deadlines, banks, what is due next)
  and the timeout policies.

Nothing here reads the clock or sends mail; every instant is an argument.
"""
