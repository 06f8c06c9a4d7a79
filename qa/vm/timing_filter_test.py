#!/usr/bin/python3
"""Checks nbdkit-smrtiming-filter.so (src/tools/nbdkit/nbdkit_timing_filter.cc), the HDD timing model
under the VM's zoned device in qa/vm/peers.sh PEERS_DEVICE=hdd, through a real nbdkit and a
real NBD client (Debian's nbdkit and python3-libnbd):
  - data written through it reads back (it passes I/O to the file plugin unchanged);
  - its counters classify I/Os as HeadModel does: sequential, short forward skip, seek;
  - the device time it booked is what the model gives for those I/Os, and the requests
    took at least that long (the filter makes the client wait);
  - the counters file is kept up to date while a client is connected (peers.sh takes
    per-system deltas from it);
  - nbdkit refuses to start without mbps= or seek_ms=, or with a bad number, and says why.
usage: timing_filter_test.py FILTER.so
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import nbd

MB = 1000 * 1000
MIB = 1 << 20


def serve(filt, img, sock, stats, *params):
    return subprocess.Popen(
        ["nbdkit", "--foreground", "--unix", sock, f"--filter={filt}", "file", img,
         *params, f"stats={stats}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_socket(sock, proc):
    for _ in range(100):
        if os.path.exists(sock):
            return
        if proc.poll() is not None:
            raise AssertionError(f"nbdkit exited: {proc.stderr.read()}")
        time.sleep(0.05)
    raise AssertionError("nbdkit did not create its socket")


def closed_stats(path, reads):
    """Whether the counters file shows at least `reads` reads (the close-time write)."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)["reads"] >= reads
    except (OSError, ValueError, KeyError):
        return False


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print(f"ok: {what}")


def main():
    filt = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        img, sock, stats = (os.path.join(d, n) for n in ("disk.img", "nbd.sock", "stats.json"))
        with open(img, "wb") as f:
            f.truncate(64 * MIB)
        # 100 MB/s, 20 ms seek.
        proc = serve(filt, img, sock, stats, "mbps=100", "seek_ms=20")
        try:
            wait_socket(sock, proc)
            h = nbd.NBD()
            h.connect_unix(sock)
            a = bytes((i * 7) & 0xFF for i in range(MIB))
            b = bytes((i * 13 + 1) & 0xFF for i in range(MIB))
            t0 = time.monotonic()
            h.pwrite(a, 0)            # at the head (0): sequential
            h.pwrite(b, MIB)          # continues it: sequential
            h.pwrite(a, 3 * MIB)      # a 1 MiB forward gap: a skip
            h.pwrite(b, 40 * MIB)     # far: a seek
            got = h.pread(MIB, MIB)   # backwards: a seek
            elapsed = time.monotonic() - t0
            check(got == b, "a 1 MiB block written through the filter reads back unchanged")
            check(h.pread(MIB, 40 * MIB) == b, "so does one written after a seek")  # seek
            h.shutdown()
            # The counters are written at the connection's close, which the server runs after
            # the client's disconnect: wait for it (bounded) before stopping the server, or
            # the stop can win the race and leave the file as the first write left it.
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not closed_stats(stats, 2):
                time.sleep(0.05)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        with open(stats, encoding="utf-8") as f:
            s = json.load(f)
        print(json.dumps(s))
        check((s["writes"], s["reads"]) == (4, 2), "4 writes and 2 reads were charged")
        check((s["sequential"], s["skips"], s["seeks"]) == (2, 1, 3),
              "classified as 2 sequential, 1 short skip, 3 seeks")
        # 6 MiB transferred + a 1 MiB gap passed over + 3 seeks (the read-ahead credit does
        # not apply: no read continues the previous I/O).
        model = (7 * MIB) / (100 * MB) + 3 * 0.020
        check(abs(s["busy_seconds"] - model) < 1e-6,
              f"device time booked {s['busy_seconds']:.6f} s = the model's {model:.6f} s")
        check(elapsed >= 5 * MIB / (100 * MB) + 2 * 0.020,
              f"the client waited for it: first five requests took {elapsed:.3f} s")

        # While connected, the counters are written at most once a second as I/O flows.
        os.remove(stats)
        if os.path.exists(sock):
            os.remove(sock)
        proc = serve(filt, img, sock, stats, "mbps=100", "seek_ms=20")
        try:
            wait_socket(sock, proc)
            h = nbd.NBD()
            h.connect_unix(sock)
            h.pwrite(a, 0)
            time.sleep(1.1)
            h.pwrite(b, MIB)
            check(os.path.exists(stats), "the counters file exists while connected")
            with open(stats, encoding="utf-8") as f:
                live = json.load(f)
            check(live["writes"] >= 1, f"counters written while connected: {live['writes']} writes")
            h.shutdown()
        finally:
            proc.terminate()
            proc.wait(timeout=10)

        # Bad configuration: a clear error, no server.
        for params, word in ((["seek_ms=8"], "mbps"), (["mbps=100"], "seek_ms"),
                             (["mbps=fast", "seek_ms=8"], "mbps=fast")):
            p = subprocess.run(["nbdkit", "--foreground", "--unix", sock, f"--filter={filt}",
                                "file", img, *params], capture_output=True, text=True,
                               timeout=20)
            check(p.returncode != 0 and word in p.stderr,
                  f"nbdkit refuses {' '.join(params)}: {p.stderr.strip().splitlines()[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
