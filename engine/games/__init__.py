"""One package per game (or family of games): its rules, fast playouts, drawing and text.

Each package exports ``GAME_CLASSES``; :mod:`engine.registry` lists the packages, so adding a game
is adding a folder here and a line there (docs/contributing.md).
"""
