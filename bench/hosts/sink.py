"""The SMTP sink of bench/hosts: accepts every message and writes its Message-ID to a file.

    python bench/hosts/sink.py --host 10.77.0.1 --port 2525 --out received.txt

One line per message accepted, flushed before the 250 answer: the harness counts doubles (a
Message-ID twice) and losses (never) from the file. Stops on SIGTERM.

With ``--hold PATH``: while PATH exists and names a client's address, that client's next message
is held unanswered (PATH.held appears meanwhile) and, once PATH is gone, refused with 451, never
counted: the harness cuts a deliverer's link while it waits for an answer the relay never gave.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import signal
import threading
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller


def sink_main(host: str, port: int, out: Path, hold: Path | None = None) -> None:

    lock = threading.Lock()
    handle = out.open("a")

    class Counting:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            if hold is not None and held(session.peer[0]):
                held_file = hold.with_name(hold.name + ".held")
                held_file.touch()
                while hold.exists():
                    await asyncio.sleep(0.05)
                held_file.unlink(missing_ok=True)
                return "451 4.3.0 held, not taken"
            head = bytes(envelope.original_content or envelope.content).split(b"\r\n\r\n")[0]
            found = re.search(rb"^Message-ID:\s*(<[^>]+>)", head, re.I | re.M)
            with lock:
                handle.write((found[1].decode() if found else "<none>") + "\n")
                handle.flush()
            return "250 OK"

    def held(peer: str) -> bool:
        try:
            return hold is not None and hold.read_text().strip() == peer
        except OSError:
            return False

    controller = Controller(Counting(), hostname=host, port=port)
    controller.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with contextlib.suppress(KeyboardInterrupt):
        stop.wait()
    controller.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--hold", type=Path, help="a file naming a client whose message to hold")
    args = parser.parse_args()
    sink_main(args.host, args.port, args.out, args.hold)


if __name__ == "__main__":
    main()
