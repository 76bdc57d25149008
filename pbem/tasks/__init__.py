"""The computer players' searches on more than one machine (``PBEM_TASKS=procrastinate``).

Each search is a Procrastinate job in the site's PostgreSQL (:mod:`pbem.tasks.jobs`), queued in
the transaction of the write that leaves a computer to move, and swept up by the scheduler when
anything was lost (:mod:`pbem.tasks.queueing`); ``pbem worker`` runs them, on any machine that
reaches the database (:mod:`pbem.tasks.worker`). Without the setting, and always with SQLite,
the scheduler searches in its own worker processes (:mod:`pbem.scheduler.search_process`).
Why Procrastinate and not Celery: docs/bots.md, "Searches on more than one machine".
"""
