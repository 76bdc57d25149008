"""Tournaments: Swiss and round-robin events whose games are ordinary games. Pure pairing and
standings (:mod:`~pbem.tournaments.pairing`, :mod:`~pbem.tournaments.standings`), the tables
(:mod:`~pbem.tournaments.tables`), what is stored read back for them
(:mod:`~pbem.tournaments.queries`), the service (:mod:`~pbem.tournaments.service`) and its
emails (:mod:`~pbem.tournaments.mail`). Built on the core of the service, which never imports
it: it reacts to :class:`~pbem.services.events.GameFinished`."""
