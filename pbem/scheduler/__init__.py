"""The scheduler: the sweep (reminders, timeouts), the lease, and the APScheduler jobs.

Deadlines are data in each game's clock row (:mod:`pbem.clock.deadlines`); APScheduler only ticks.
"""

from pbem.scheduler.lease import take_lease
from pbem.scheduler.sweep import SweepSummary, sweep

__all__ = ["SweepSummary", "sweep", "take_lease"]
