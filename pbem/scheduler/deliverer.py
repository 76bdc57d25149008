"""``pbem deliver --loop``: a delivery process that needs no lease, run on as many hosts as the
mail needs beside ``pbem scheduler --no-deliver`` (or PBEM_SCHEDULER_DELIVERS=off).

Each pass claims a batch of due emails (the outbox's rules, :mod:`pbem.mail.outbox`: claimed row
by row, so deliverers never share an email; a dead one's claims run out after
PBEM_DELIVER_CLAIM_SECONDS and another deliverer takes them), sends them, then the players'
other channels. A full batch is followed at once by the next; otherwise the loop waits
``every`` seconds. It records each pass that did something, as the scheduler's job does, for
``/healthz`` and ``/metrics``, and logs once when delivery starts failing and once when it works
again. A failing pass (the database restarting, say) is retried at the next one.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pbem.channels.delivery import deliver_channels
from pbem.clock.wall import utc_now
from pbem.db import Database
from pbem.mail.outbox import CLAIM_FOR, DeliveryReport, SmtpSettings, deliver_pending
from pbem.scheduler.job_states import StateLog
from pbem.scheduler.lease import new_holder_id
from pbem.scheduler.runner import record_delivery
from pbem.services.common import Site

log = logging.getLogger(__name__)
BATCH = 50  # emails claimed at a time: small enough that several deliverers share a backlog


@dataclass
class Deliverer:
    """One delivery process; ``clock`` is injectable for tests."""

    database: Database
    site: Site
    smtp: SmtpSettings
    every: float = 5.0
    claim_for: timedelta = CLAIM_FOR
    batch: int = BATCH
    holder: str = field(default_factory=new_holder_id)
    clock: Callable[[], datetime] = utc_now
    stop: threading.Event = field(default_factory=threading.Event)
    job_log: StateLog = field(default_factory=StateLog)

    def deliver_once(self) -> DeliveryReport:
        """One pass: a batch of emails, then the channels' messages that are due."""
        now = self.clock()
        report = deliver_pending(self.database, self.smtp, now, limit=self.batch,
                                 holder=self.holder, claim_for=self.claim_for, clock=self.clock)
        if report.attempted:
            record_delivery(self.database, self.smtp, self.holder, self.job_log, report, now)
        deliver_channels(self.database, self.site, now, holder=self.holder,
                         claim_for=self.claim_for)
        return report

    def run(self) -> None:
        """Deliver until :attr:`stop` is set; the pass under way is finished first."""
        while not self.stop.is_set():
            try:
                report = self.deliver_once()
            except Exception:
                if self.job_log.failed("job:deliver-loop"):
                    log.exception("delivery pass failed (logged again only once it works)")
                self.stop.wait(self.every)
                continue
            if self.job_log.worked("job:deliver-loop"):
                log.info("delivery passes work again")
            if report.attempted < self.batch or report.relay_error:
                self.stop.wait(self.every)
