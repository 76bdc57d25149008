"""The outbox's claim with each recipient's emails kept in order (pbem.mail.outbox): how long one
claim of 500 takes in SQLite among many sent emails.

    .venv/bin/python bench/outbox_claims.py [--sent 100000] [--queued 2000] [--recipients 2000]

Baseline (2-core development machine, defaults): 16.9 ms before the order was kept (the claim
asked only what is due), 64.9 ms with it (each due email also asks whether an earlier one to its
address still waits), against about 8 s to send those 500 emails (bench/scheduler.py: about 60
emails a second over loopback SMTP).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import insert
from sqlmodel import SQLModel

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.db import Database
from pbem.mail.outbox import claim_due
from pbem.models import OutboxEmail

NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
BASELINE_MS = 16.9  # before the order was kept, at the defaults


def _row(number: int, status: str, recipients: int) -> dict[str, Any]:
    return {"kind": "turn", "to_address": f"r{number % recipients}@example.test", "to_name": "",
            "subject": "x", "text_body": "t", "html_body": "h",
            "message_id": f"<bench{number}@example.test>", "in_reply_to": "",
            "unsubscribe_url": "", "essential": True, "status": status, "attempts": 0,
            "next_attempt_at": NOW, "last_error": "", "claimed_by": "", "created_at": NOW}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sent", type=int, default=100_000)
    parser.add_argument("--queued", type=int, default=2_000)
    parser.add_argument("--recipients", type=int, default=2_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        database = Database(f"sqlite:///{folder}/outbox.db")
        SQLModel.metadata.create_all(database.engine)
        with database.write() as session:
            session.execute(insert(OutboxEmail),
                            [_row(n, "sent", args.recipients) for n in range(args.sent)])
            session.execute(insert(OutboxEmail), [
                _row(n, "queued", args.recipients)
                for n in range(args.sent, args.sent + args.queued)])
        times = []
        for attempt in range(4):
            began = time.perf_counter()
            claimed = claim_due(database, NOW, 500, f"bench{attempt}")
            times.append(time.perf_counter() - began)
        database.dispose()
    print(f"claim of {len(claimed)} among {args.sent:,} sent and {args.queued:,} queued emails "
          f"({args.recipients:,} recipients): {min(times) * 1000:.1f} ms, best of 4 "
          f"(baseline {BASELINE_MS} ms before the order was kept)")


if __name__ == "__main__":
    main()
