#!/usr/bin/python3
"""A client workload for smrstore OSDs: overwrites and deletes objects of one pool so that the
OSDs' zones fill with dead data and zone GC has to relocate and reclaim.

    rados_churn.py --pool POOL [--objects N] [--size BYTES] [--seconds S] [--threads T]
                   [--delete-ratio R] [--seed N] [--stop-file PATH] [--rate MBPS]

Each thread loops: pick an object of the key space (0..N-1) at random; with probability R
remove it (if it exists), else write it whole (write_full, S bytes of fresh pseudo-random
data, so every write is an overwrite once the key space is populated). Live data stays about
N * S * (1 - R) per replica; the bytes written grow without bound. Stops after --seconds
(0: until SIGTERM/SIGINT or until --stop-file exists), prints a line every 10 s and a summary
at the end: ops, bytes written, MB/s. Uses $CEPH_CONF (python3-rados, client.admin).
"""

import argparse
import os
import random
import signal
import sys
import threading
import time
from typing import Dict, List

import rados  # type: ignore  # Debian's python3-rados


def parse_size(s: str) -> int:
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    s = s.strip().lower()
    if s and s[-1] in mult:
        return int(float(s[:-1]) * mult[s[-1]])
    return int(s)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pool", required=True)
    ap.add_argument("--objects", type=int, default=64)
    ap.add_argument("--size", type=parse_size, default=4 << 20)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--delete-ratio", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rate", type=float, default=0.0, help="MB/s cap over all threads (0: none)")
    ap.add_argument("--stop-file", default="", help="stop when this file exists")
    ap.add_argument("--prefix", default="churn")
    a = ap.parse_args()
    if a.objects < 1 or a.size < 1 or a.threads < 1 or not 0 <= a.delete_ratio < 1:
        ap.error("--objects, --size, --threads must be positive; --delete-ratio in [0, 1)")

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    cluster = rados.Rados(conffile=os.environ.get("CEPH_CONF", ""))
    cluster.connect(timeout=60)
    stats: Dict[str, int] = {"writes": 0, "removes": 0, "bytes": 0, "errors": 0}
    lock = threading.Lock()
    t0 = time.monotonic()
    # Fresh data per write without paying for os.urandom each time: one random block,
    # rotated by a random offset and stamped with a counter.
    block = os.urandom(a.size + 4096)

    def worker(n: int) -> None:
        rnd = random.Random(a.seed * 1000 + n)
        io = cluster.open_ioctx(a.pool)
        try:
            while not stop.is_set():
                key = f"{a.prefix}-{rnd.randrange(a.objects)}"
                try:
                    if rnd.random() < a.delete_ratio:
                        try:
                            io.remove_object(key)
                            with lock:
                                stats["removes"] += 1
                        except rados.ObjectNotFound:
                            pass
                    else:
                        off = rnd.randrange(4096)
                        data = block[off:off + a.size - 16] + f"{time.time():16.6f}".encode()[:16]
                        io.write_full(key, data)
                        with lock:
                            stats["writes"] += 1
                            stats["bytes"] += len(data)
                except rados.Error as e:
                    with lock:
                        stats["errors"] += 1
                    print(f"churn: {key}: {e}", file=sys.stderr)
                    stop.wait(1.0)
                if a.rate > 0:
                    with lock:
                        ahead = stats["bytes"] / (a.rate * 1e6) - (time.monotonic() - t0)
                    if ahead > 0:
                        stop.wait(ahead)
        finally:
            io.close()

    threads: List[threading.Thread] = [threading.Thread(target=worker, args=(i,), daemon=True)
                                       for i in range(a.threads)]
    for t in threads:
        t.start()
    last = t0
    while not stop.is_set():
        stop.wait(0.5)
        now = time.monotonic()
        if a.seconds > 0 and now - t0 >= a.seconds:
            stop.set()
        if a.stop_file and os.path.exists(a.stop_file):
            stop.set()
        if now - last >= 10:
            last = now
            with lock:
                s = dict(stats)
            print(f"churn: {now - t0:.0f} s: {s['writes']} writes, {s['removes']} removes, "
                  f"{s['bytes'] / 1e6:.0f} MB, {s['bytes'] / 1e6 / (now - t0):.1f} MB/s, "
                  f"{s['errors']} errors", flush=True)
    for t in threads:
        t.join(timeout=120)
    cluster.shutdown()
    dt = time.monotonic() - t0
    print(f"churn: done in {dt:.0f} s: {stats['writes']} writes, {stats['removes']} removes, "
          f"{stats['bytes'] / 1e6:.0f} MB written ({stats['bytes'] / 1e6 / dt:.1f} MB/s), "
          f"{stats['errors']} errors", flush=True)
    return 1 if stats["errors"] and not stats["writes"] else 0


if __name__ == "__main__":
    sys.exit(main())
