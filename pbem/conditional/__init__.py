"""Conditional moves: a player's answers, left while it is not their turn, to the moves the
opponent may play next, played for them at once in the opponent's transaction (see
docs/conditional.md). ``tree`` reads and checks them, ``tables`` keeps them, ``service`` saves,
shows, clears and plays them; the pages are :mod:`pbem.web.conditional`, the reply commands
:mod:`pbem.inbound.commands`."""
