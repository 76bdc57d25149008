"""A conversation per game: the players (and the organisers) write to each other beside the moves.

The tables (:mod:`~pbem.chat.tables`: messages, and who muted a game's chat), the service that
posts, hides and mutes (:mod:`~pbem.chat.service`: plain functions of a session and ``now``, with
the hourly limit per player), the emails that carry a message to the game's other players in the
game's own thread (:mod:`~pbem.chat.mail`, kind ``chat``), and the ``say:`` lines of a reply
(:mod:`~pbem.chat.replies`, subscribed to :class:`~pbem.services.events.ReplySaid`). Built on the
core of the service, which never imports it; the pages are in :mod:`pbem.web.chat` and
:mod:`pbem.admin.chat`, as every feature's are.

Who reads a game's messages: its players (on their own page of the game and on the move page)
and the organisers (on the dashboard). The public game page shows none: a conversation between
players is not published with the game's record.
"""
