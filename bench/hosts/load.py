"""The load process of bench/hosts: open-loop HTTP/1.1 requests at a fixed rate, from a plan.

    python bench/hosts/load.py --plan PLAN.json --out RESULT.json

Its own process (not the harness's): only the standard library, so it starts at once and its
event loop shares nothing with the processes it measures. Request n is sent at start + n / rate
whatever the earlier ones are doing (an open loop), each on its own connection; its latency
counts from that planned time, so a slow server cannot hide its queue by slowing the client.
A confirm is what a player does: the move page, the confirm page (its CSRF token and session
cookie), then the POST; its POST alone is timed as "confirm".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit


async def fetch(
    host: str,
    port: int,
    method: str,
    path: str,
    *,
    cookie: str = "",
    form: str = "",
    timeout: float = 30,
) -> tuple[int, dict[str, str], str]:
    """One HTTP/1.1 request on its own connection: (status, headers, body)."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        head = [
            f"{method} {path} HTTP/1.1",
            f"Host: {host}",
            "Connection: close",
            "User-Agent: pbem-hosts-bench",
        ]
        if cookie:
            head.append(f"Cookie: {cookie}")
        body = form.encode()
        if method == "POST":
            head += [
                "Content-Type: application/x-www-form-urlencoded",
                f"Content-Length: {len(body)}",
            ]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        raw = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    header, _, content = raw.partition(b"\r\n\r\n")
    lines = header.decode("latin-1").split("\r\n")
    if not lines or not lines[0].startswith("HTTP/"):
        raise ValueError("not an HTTP answer")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        key, _, value = line.partition(":")
        if key.lower() == "set-cookie":
            headers["set-cookie"] = value.strip().split(";")[0]
        else:
            headers[key.lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        content = unchunk(content)
    return int(lines[0].split()[1]), headers, content.decode(errors="replace")


def unchunk(data: bytes) -> bytes:
    out, rest = b"", data
    while rest:
        size, _, rest = rest.partition(b"\r\n")
        length = int(size.split(b";")[0] or b"0", 16)
        if length == 0:
            break
        out, rest = out + rest[:length], rest[length + 2 :]
    return out


async def drive(plan: dict[str, Any]) -> dict[str, Any]:
    """Open-loop load: request n is sent at start + n / rate."""

    base = urlsplit(plan["base"])
    host, port = base.hostname or "", base.port or 80
    rate, seconds = float(plan["rate"]), float(plan["seconds"])
    total = int(rate * seconds)
    confirms = list(plan["confirms"])
    rng = random.Random(int(rate * 1000))
    # Each confirm takes three requests (move page, confirm page, POST); spread them evenly.
    kinds = ["confirm"] * len(confirms)
    pages = list(plan["pages"])
    kinds += [pages[n % len(pages)] for n in range(max(0, total - 3 * len(confirms)))]
    rng.shuffle(kinds)
    took: dict[str, list[float]] = {}
    statuses: Counter[str] = Counter()
    errors: list[str] = []
    applied: list[int] = []

    def note(label: str, planned: float, status: int) -> None:
        took.setdefault(label, []).append(time.monotonic() - planned)
        statuses[f"{label} {status}"] += 1

    async def page(label: str, planned: float) -> None:
        path = rng.choice(plan["pages"][label])
        try:
            status, _, _ = await fetch(host, port, "GET", path, cookie=plan["cookie"])
        except (TimeoutError, OSError, ValueError) as error:
            errors.append(f"{label}: {error!r}")
            return
        note(label, planned, status)
        if status != 200:
            errors.append(f"{label} {path}: {status}")

    async def confirm(item: list[Any], planned: float) -> None:
        game_id, _, link, move = item
        path = urlsplit(link).path
        try:
            status, headers, _ = await fetch(host, port, "GET", path)
            note("move page", planned, status)
            cookie = headers.get("set-cookie", "")
            status2, headers2, body = await fetch(
                host, port, "GET", f"{path}/confirm?{urlencode({'move': move})}", cookie=cookie
            )
            cookie = headers2.get("set-cookie", cookie)
            token = re.search(r'name="csrf_token" value="([^"]+)"', body)
            if status != 200 or status2 != 200 or token is None:
                errors.append(f"confirm page of game {game_id}: {status} {status2}")
                return
            posted = time.monotonic()
            status3, _, _ = await fetch(
                host,
                port,
                "POST",
                f"{path}/confirm",
                cookie=cookie,
                form=f"csrf_token={quote(token[1])}&move={quote(move)}",
            )
            note("confirm", posted, status3)
        except (TimeoutError, OSError, ValueError) as error:
            errors.append(f"confirm of game {game_id}: {error!r}")
            return
        # 303: to the game page; 302: a turn of several steps goes on to its next one.
        if status3 in (302, 303):
            applied.append(game_id)
        else:
            errors.append(f"confirm of game {game_id}: POST answered {status3}")

    if plan.get("confirms_only"):
        return await confirms_only(host, port, confirms, rate, note, errors, applied, took,
                                   statuses)
    start = time.monotonic() + 0.2
    tasks = []
    step = 1 / rate
    at = start
    for kind in kinds:
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        if kind == "confirm":
            tasks.append(asyncio.create_task(confirm(confirms.pop(), at)))
            at += 3 * step
        else:
            tasks.append(asyncio.create_task(page(kind, at)))
            at += step
    await asyncio.gather(*tasks)
    return {
        "took": took,
        "statuses": dict(statuses),
        "errors": errors,
        "applied": applied,
        "seconds": time.monotonic() - start,
    }


async def confirms_only(host: str, port: int, confirms: list[list[Any]], rate: float,
                        note: Any, errors: list[str], applied: list[int],
                        took: dict[str, list[float]], statuses: Counter[str]) -> dict[str, Any]:
    """Players who looked at their move earlier and now confirm it: each one's move page and
    confirm page first (four at a time, not timed), then the POSTs alone at ``rate`` a second,
    open loop, each timed from its planned moment."""
    gate = asyncio.Semaphore(4)
    ready: list[tuple[int, str, str, str, str]] = []

    async def look(item: list[Any]) -> None:
        game_id, _, link, move = item
        path = urlsplit(link).path
        async with gate:
            try:
                status, headers, _ = await fetch(host, port, "GET", path)
                cookie = headers.get("set-cookie", "")
                status2, headers2, body = await fetch(
                    host, port, "GET", f"{path}/confirm?{urlencode({'move': move})}",
                    cookie=cookie)
            except (TimeoutError, OSError, ValueError) as error:
                errors.append(f"confirm page of game {game_id}: {error!r}")
                return
        token = re.search(r'name="csrf_token" value="([^"]+)"', body)
        if status != 200 or status2 != 200 or token is None:
            errors.append(f"confirm page of game {game_id}: {status} {status2}")
            return
        ready.append((game_id, path, headers2.get("set-cookie", cookie), token[1], move))

    await asyncio.gather(*(look(item) for item in confirms))

    async def post(game_id: int, path: str, cookie: str, token: str, move: str,
                   planned: float) -> None:
        try:
            status, _, _ = await fetch(host, port, "POST", f"{path}/confirm", cookie=cookie,
                                       form=f"csrf_token={quote(token)}&move={quote(move)}")
        except (TimeoutError, OSError, ValueError) as error:
            errors.append(f"confirm of game {game_id}: {error!r}")
            return
        note("confirm", planned, status)
        if status in (302, 303):
            applied.append(game_id)
        else:
            errors.append(f"confirm of game {game_id}: POST answered {status}")

    start = time.monotonic() + 0.2
    tasks = []
    for n, (game_id, path, cookie, token, move) in enumerate(ready):
        at = start + n / rate
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        tasks.append(asyncio.create_task(post(game_id, path, cookie, token, move, at)))
    await asyncio.gather(*tasks)
    return {"took": took, "statuses": dict(statuses), "errors": errors, "applied": applied,
            "seconds": time.monotonic() - start}


def quantiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 2:
        only = values[0] if values else 0.0
        return only, only, only
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return cuts[49], cuts[94], cuts[98]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    result = asyncio.run(drive(json.loads(args.plan.read_text())))
    args.out.write_text(json.dumps(result))


if __name__ == "__main__":
    main()
