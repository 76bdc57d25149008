"""Players start their own games: challenges to named players, open seeks anyone may join, and
rematches offered in the game-over email. Its tables (:mod:`~pbem.challenges.tables`), rules and
limits (:mod:`~pbem.challenges.rules`), the service (:mod:`~pbem.challenges.service`,
:mod:`~pbem.challenges.seeks`, :mod:`~pbem.challenges.rematch`); the pages are in pbem.web and
pbem.admin. Built on the core of the service, which never imports it."""
