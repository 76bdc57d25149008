"""Players' ratings per game id: the rating model (:mod:`~pbem.ratings.model`, pure), the tables
(:mod:`~pbem.ratings.tables`) and the service that rates a game when it ends and reads the
leaderboards and histories (:mod:`~pbem.ratings.service`). Built on the core of the service,
which never imports it: it reacts to :class:`~pbem.services.events.GameFinished`."""
