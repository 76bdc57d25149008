"""A small authoritative DNS server on a loopback UDP port, for checks that ask DNS.

It answers from a dict: (name, type) -> the records in zone-file text, e.g.
``("example.org", "MX"): ["10 mx.example.org."]``; any other name gets NXDOMAIN, a known name
asked for another type an empty answer. Made with dnspython's message functions, as a real
server's answers are.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import dns.message
import dns.rcode
import dns.rdatatype
import dns.rrset


@contextmanager
def dns_server(records: dict[tuple[str, str], list[str]]) -> Iterator[tuple[str, int]]:
    """Serve ``records`` (by name without the final dot, and type) until the block ends."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                data, peer = sock.recvfrom(4096)
            except TimeoutError:
                continue
            query = dns.message.from_wire(data)
            answer = dns.message.make_response(query)
            question = query.question[0]
            name = question.name.to_text().rstrip(".")
            kind = dns.rdatatype.to_text(question.rdtype)
            if (name, kind) in records:
                answer.answer.append(dns.rrset.from_text_list(question.name, 300, "IN", kind,
                                                              records[name, kind]))
            elif not any(known == name for known, _ in records):
                answer.set_rcode(dns.rcode.NXDOMAIN)
            sock.sendto(answer.to_wire(), peer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()
    finally:
        stop.set()
        thread.join(timeout=2)
        sock.close()
