"""Mail that respects attention: each player chooses how much pbem mails them, and may mute a
game.

A player's setting (:mod:`~pbem.notifications.tables`) is one of four: every event (the default),
only their turns and game ends, a daily digest at an hour of their choosing in their time zone,
or off (they follow their games on the web). Whether an email goes out is decided in one place,
:func:`~pbem.notifications.policy.on_email_queued`, by the email's kind and the setting, as the
outbox gets it (:class:`~pbem.services.events.EmailQueued`): an email kept back is marked
``withheld`` and never sent, and the digest (:mod:`~pbem.notifications.digest`, sent by the
scheduler's sweep) lists what was kept back since the last one. Sign-in links, answers to what the
player just asked and other mail that must always go are never kept back; reminders before a
deadline go unless the player chose "off". The settings change on the account page, on a game's
page (mute) and by reply (``notify digest``, ``mute``): :mod:`~pbem.notifications.service`.
Built on the core of the service, which never imports it."""
