"""A player's other channels: Discord, Slack, Matrix, ntfy, Telegram, Gotify and the other
services Apprise reaches, told of their turns, reminders and game ends beside the emails.

The tables (:mod:`~pbem.channels.tables`), what a channel's address may be and how it is kept
(:mod:`~pbem.channels.urls`: checked, encrypted with a key from the site's secret, shown masked),
the service that adds, changes and tests channels and queues their messages
(:mod:`~pbem.channels.service`), and their delivery (:mod:`~pbem.channels.delivery`), by the
outbox's claims and its one retry policy, in the same scheduler job. Built on the core of the
service, which never imports it: it reacts to :class:`~pbem.services.events.EmailQueued`."""
