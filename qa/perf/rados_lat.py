#!/usr/bin/python3
"""Per-operation latency of RADOS writes or reads (python3-rados aio), for osd_bench.sh.

Usage: rados_lat.py POOL write|read|rewrite SIZE SECONDS [INFLIGHT [PREFIX]]

write: writes objects lat.<n> of SIZE bytes (random payload, one buffer reused) for SECONDS
with INFLIGHT (default 16) operations in flight; read: reads back the objects a write run
left (lat.0 .. lat.<count-1>, count from the pool's objects), cycling, for SECONDS.
With PREFIX (qa/perf/drive_bench.sh): read reads the pool's objects whose names start with
PREFIX in a random order (seeded), and rewrite overwrites them (write_full of SIZE bytes,
random order) for SECONDS, so the live data stays what it was: a steady-state write.
Prints one JSON line: ops, bytes, seconds, MB/s, ops/s, latency p50/p99/max in ms.
Completion callbacks run on librados threads; the main thread only keeps INFLIGHT going.
"""
from __future__ import annotations

import json
import os
import random
import sys
import threading
import time
from typing import List

import rados  # python3-rados


def main(argv: List[str]) -> int:
    if len(argv) not in (4, 5, 6) or argv[1] not in ("write", "read", "rewrite"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    pool, mode, size, seconds = argv[0], argv[1], int(argv[2]), float(argv[3])
    inflight = int(argv[4]) if len(argv) >= 5 else 16
    prefix = argv[5] if len(argv) == 6 else None
    if mode == "rewrite" and prefix is None:
        print("rados_lat: rewrite needs a PREFIX", file=sys.stderr)
        return 2
    cluster = rados.Rados(conffile=os.environ.get("CEPH_CONF", ""))
    cluster.connect(timeout=30)
    ioctx = cluster.open_ioctx(pool)
    payload = os.urandom(size)
    names: List[str] = []
    if mode in ("read", "rewrite"):
        want = prefix if prefix is not None else "lat."
        names = sorted(o.key for o in ioctx.list_objects() if o.key.startswith(want))
        if not names:
            print(f"rados_lat: no {want}* objects to {mode} (run a write first)", file=sys.stderr)
            return 1
        if prefix is not None:
            random.Random(1).shuffle(names)
    lock = threading.Lock()
    slots = threading.Semaphore(inflight)
    lat: List[float] = []
    errors: List[int] = []
    done_bytes = [0]

    def finish(start: float, nbytes: int, ret: int) -> None:
        with lock:
            lat.append(time.monotonic() - start)
            if ret < 0:
                errors.append(ret)
            else:
                done_bytes[0] += nbytes
        slots.release()

    t0 = time.monotonic()
    n = 0
    while time.monotonic() - t0 < seconds:
        slots.acquire()
        start = time.monotonic()
        if mode in ("write", "rewrite"):
            name = f"lat.{n}" if mode == "write" else names[n % len(names)]
            ioctx.aio_write_full(name, payload,
                                 oncomplete=lambda c, s=start: finish(s, size, c.get_return_value()))
        else:
            name = names[n % len(names)]
            ioctx.aio_read(name, size, 0,
                           lambda c, data, s=start: finish(s, len(data) if data else 0,
                                                           c.get_return_value()))
        n += 1
    for _ in range(inflight):  # wait for the tail
        slots.acquire()
    elapsed = time.monotonic() - t0
    ioctx.close()
    cluster.shutdown()
    lat.sort()

    def pct(p: float) -> float:
        return round(1000 * lat[min(len(lat) - 1, int(p * len(lat)))], 2) if lat else 0.0

    print(json.dumps({"mode": mode, "size": size, "inflight": inflight, "ops": len(lat),
                      "errors": len(errors), "bytes": done_bytes[0],
                      "seconds": round(elapsed, 2),
                      "mb_s": round(done_bytes[0] / elapsed / 1e6, 2),
                      "ops_s": round(len(lat) / elapsed, 1),
                      "p50_ms": pct(0.50), "p99_ms": pct(0.99),
                      "max_ms": round(1000 * lat[-1], 2) if lat else 0.0}))
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
