"""Task `smrstore_thrash`: disturbs a `smrstore_cluster` in a background thread while the
tasks after it run (as Ceph's thrashosds does), then heals and checks on exit.

    - smrstore_thrash:
        kind: osd_kill          # osd_kill | gc_pressure | pg_split_merge | drive_faults | realm_conversion
        interval: 20            # seconds between actions
        seed: 1

  osd_kill          kill -9 of a random OSD, restarted after `down_seconds` (one down at a time)
  gc_pressure       a churn client of its own (1 MiB objects overwritten) and `ceph tell osd.N
                    smrstore gc run` on every OSD each interval; on exit every OSD must have
                    reset zones since the start
  pg_split_merge    pg_num of every client pool doubled, then back to its first value, alternately
  drive_faults      an OSD stopped, one byte flipped in a marker object's data on its drive
                    file (the emulated drive), the OSD started again; on exit deep scrub must
                    find each flipped copy inconsistent, the engine's checksum error must be in
                    that OSD's log, `ceph pg repair` must fix it and the marker read back
                    byte-exact
  realm_conversion  hybrid drives only: a client of its own fills the store until the engine
                    converts CMR realms to SMR on some OSD (then deletes what it wrote); on exit
                    at least one conversion must have completed

Every kind must have acted at least once (`min_actions`, default 1) or the job fails: a
thrasher that did nothing proves nothing. On exit all OSDs are up and PGs clean.
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import random
import subprocess
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Optional

from tasks.smrstore_common import QA_CEPH, SYS_PY, Cluster, TaskFailed, wait_until

log = logging.getLogger(__name__)

SYSTEM_POOLS = {"device_health_metrics", ".mgr", "gcp", "realm"}


class Thrasher:
    def __init__(self, cl: Cluster, cfg: Dict[str, Any]) -> None:
        self.cl = cl
        self.cfg = cfg
        self.rng = random.Random(cfg["seed"])
        self.stop = threading.Event()
        self.actions = 0
        self.error: Optional[BaseException] = None
        self.thread = threading.Thread(target=self._loop, name="thrash-" + cfg["kind"], daemon=True)
        self.state: Dict[str, Any] = {}
        self.procs: List[subprocess.Popen] = []

    # -- the loop -----------------------------------------------------------------------------
    def _loop(self) -> None:
        step: Callable[[], None] = getattr(self, "step_" + self.cfg["kind"])
        try:
            getattr(self, "begin_" + self.cfg["kind"], lambda: None)()
            while not self.stop.wait(self.cfg["interval"] if self.actions else self.cfg["first_after"]):
                step()
        except BaseException as e:  # noqa: BLE001 - raised again in the task's exit
            log.exception("thrasher failed")
            self.error = e

    def done(self) -> None:
        self.stop.set()
        self.thread.join(timeout=600)
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
            p.wait(timeout=60)
        if self.thread.is_alive():
            raise TaskFailed("the thrasher did not stop within 600 s")
        if self.error:
            raise TaskFailed("thrasher %s: %s" % (self.cfg["kind"], self.error))
        getattr(self, "heal_" + self.cfg["kind"], lambda: None)()
        for i in self.cl.osd_ids:
            if self.cl.osd_pid(i) is None:
                self.cl.start_osd(i)
        for i in self.cl.osd_ids:
            self.cl.wait_up(i)
        self.cl.wait_clean(600)
        getattr(self, "check_" + self.cfg["kind"], lambda: None)()
        if self.actions < self.cfg["min_actions"]:
            raise TaskFailed("thrasher %s acted %d times, fewer than min_actions %d"
                             % (self.cfg["kind"], self.actions, self.cfg["min_actions"]))
        self.cl.note("thrasher %s: %d actions, healed, PGs clean" % (self.cfg["kind"], self.actions))

    def client_pools(self) -> List[str]:
        return [p for p in self.cl.ceph_json("osd", "pool", "ls") if p not in SYSTEM_POOLS]

    # -- osd_kill ---------------------------------------------------------------------------------
    def step_osd_kill(self) -> None:
        osd = self.cl.random_up_osd(self.rng)
        self.cl.kill_osd(osd, 9)
        self.cl.note("osd_kill: kill -9 osd.%d" % osd)
        if self.stop.wait(self.cfg["down_seconds"]):
            pass
        self.cl.start_osd(osd)
        self.cl.wait_up(osd, 300)
        self.actions += 1

    # -- pg_split_merge ---------------------------------------------------------------------------
    def step_pg_split_merge(self) -> None:
        pools = self.client_pools()
        if not pools:
            return
        split = self.actions % 2 == 0
        base: Dict[str, int] = self.state.setdefault("base", {})
        for p in pools:
            n = int(self.cl.ceph_json("osd", "pool", "get", p, "pg_num")["pg_num"])
            # Between the pool's first pg_num and twice that: a merge moves pg_num down
            # gradually, so the value read back may still be the split's.
            base.setdefault(p, n)
            want = base[p] * 2 if split else base[p]
            self.cl.ceph("osd", "pool", "set", p, "pg_num", str(want))
            self.cl.ceph("osd", "pool", "set", p, "pgp_num", str(want))
            self.cl.note("pg_split_merge: pool %s pg_num %d -> %d" % (p, n, want))
        self.actions += 1

    # -- gc_pressure ------------------------------------------------------------------------------
    def begin_gc_pressure(self) -> None:
        self.state["reset0"] = {i: self.cl.stats(i)["gc"]["zones_reset"] for i in self.cl.osd_ids}
        self.cl.create_pool("gcp", 8)
        self.procs.append(subprocess.Popen(
            [SYS_PY, os.path.join(QA_CEPH, "rados_churn.py"), "--pool", "gcp", "--objects", "40", "--size", "1M",
             "--threads", "2", "--seconds", "0", "--stop-file", os.path.join(self.cl.work, "gcp.stop")],
            env=self.cl.env, stdout=open(os.path.join(self.cl.work, "gcp.log"), "w"), stderr=subprocess.STDOUT))

    def step_gc_pressure(self) -> None:
        for i in self.cl.osd_ids:
            if self.cl.osd_pid(i) is None:
                continue
            r = json.loads(self.cl.ceph("tell", "osd.%d" % i, "smrstore", "gc", "run"))
            log.info("gc run osd.%d: %s", i, r)
        self.actions += 1

    def heal_gc_pressure(self) -> None:
        open(os.path.join(self.cl.work, "gcp.stop"), "w").close()

    def check_gc_pressure(self) -> None:
        now = {i: self.cl.stats(i)["gc"]["zones_reset"] for i in self.cl.osd_ids}
        grown = {i: now[i] - self.state["reset0"][i] for i in now}
        if not all(v > 0 for v in grown.values()):
            raise TaskFailed("gc_pressure: an OSD reset no zone under GC pressure: %s" % grown)
        self.cl.note("gc_pressure: zones reset per OSD during the job: %s" % grown)

    # -- drive_faults -----------------------------------------------------------------------------
    def step_drive_faults(self) -> None:
        if self.actions >= self.cfg["max_faults"]:
            return
        tok = "SMRQAFLIP%08x" % self.rng.getrandbits(32)
        obj = "flip.%d" % self.actions
        data = b""
        i = 0
        while len(data) < 65536:
            data += b"%s-%06d|" % (tok.encode(), i)
            i += 1
        data = data[:65536]
        path = os.path.join(self.cl.work, obj + ".data")
        with open(path, "wb") as f:
            f.write(data)
        pool = "flip"
        if pool not in self.cl.ceph_json("osd", "pool", "ls"):
            self.cl.create_pool(pool, 8)
        self.cl.run(["rados", "-p", pool, "put", obj, path])
        m = self.cl.ceph_json("osd", "map", pool, obj)
        victim = [o for o in m["acting"] if o != m["acting_primary"]][0] if len(m["acting"]) > 1 else m["acting_primary"]
        self.cl.ceph("osd", "set", "noout")
        pid = self.cl.osd_pid(victim)
        if pid is None:
            raise TaskFailed("drive_faults: osd.%d is not running" % victim)
        self.cl.kill_osd(victim, 15)
        drives = sorted(self._drive_files(victim))
        hits = _flip(tok + "-000000|", drives)
        self.cl.start_osd(victim)
        self.cl.ceph("osd", "unset", "noout")
        self.cl.wait_up(victim, 300)
        if not hits:
            raise TaskFailed("drive_faults: the pattern of %s was not found on osd.%d's drives %s"
                             % (obj, victim, drives))
        self.cl.note("drive_faults: %s in PG %s: flipped 1 byte on osd.%d (replica) at %s"
                     % (obj, m["pgid"], victim, hits))
        self.state.setdefault("flips", []).append((obj, path, m["pgid"], victim))
        self.actions += 1

    def _drive_files(self, osd: int) -> List[str]:
        with open("/var/lib/ceph/osd/%s-%d/smrstore_devices" % (self.cl.name, osd)) as f:
            return [s.split("?")[0][len("emu:"):] for s in f.read().split() if s.startswith("emu:")]

    def check_drive_faults(self) -> None:
        for obj, path, pgid, victim in self.state.get("flips", []):
            stamp = self._pg_stamp(pgid)
            self.cl.ceph("pg", "deep-scrub", pgid)
            wait_until("deep scrub of PG %s" % pgid, lambda: self._pg_stamp(pgid) != stamp, 300, 2)
            found = json.loads(self.cl.run(["rados", "list-inconsistent-obj", pgid, "--format=json"]))
            names = [x["object"]["name"] for x in found.get("inconsistents", [])]
            if obj not in names:
                raise TaskFailed("drive_faults: deep scrub of PG %s did not report %s inconsistent (%s)"
                                 % (pgid, obj, names))
            # The engine's own error line, through its log sink, in the victim's OSD log
            # (not on the daemon's stderr, which a daemonized OSD does not have).
            logf = os.path.join(self.cl.dir, "log", "osd.%d.log" % victim)
            with open(logf, errors="replace") as f:
                engine_lines = [ln.strip() for ln in f if "smrstore: crc mismatch reading drive" in ln]
            if not engine_lines:
                raise TaskFailed("drive_faults: osd.%d's log has no 'smrstore: crc mismatch reading drive' "
                                 "line after deep scrub read the flipped copy of %s" % (victim, obj))
            self.cl.note("drive_faults: osd.%d's log: %s" % (victim, engine_lines[-1][-160:]))
            self.cl.ceph("pg", "repair", pgid)
            wait_until("PG %s repaired (no inconsistent object)" % pgid, lambda: not self._inconsistent(pgid), 300, 3)
            got = os.path.join(self.cl.work, obj + ".got")
            self.cl.run(["rados", "-p", "flip", "get", obj, got])
            with open(got, "rb") as a, open(path, "rb") as b:
                if a.read() != b.read():
                    raise TaskFailed("drive_faults: %s read back differs after repair" % obj)
            self.cl.note("drive_faults: PG %s: deep scrub found %s inconsistent, repair fixed it, read back equal"
                         % (pgid, obj))
        self.cl.wait_clean(600)

    def _pg_stamp(self, pgid: str) -> str:
        d = self.cl.ceph_json("pg", pgid, "query")
        return str(d["info"]["history"]["last_deep_scrub_stamp"])

    def _inconsistent(self, pgid: str) -> bool:
        st = self.cl.ceph_json("pg", pgid, "query")["state"]
        return "inconsistent" in st or "repair" in st

    # -- realm_conversion -------------------------------------------------------------------------
    def begin_realm_conversion(self) -> None:
        if not self.cl.hybrid:
            raise TaskFailed("realm_conversion needs hybrid drives (qa/objectstore/smrstore-hybrid.yaml)")
        self.state["conv0"] = self._conversions()
        self.cl.create_pool("realm", 16)
        self.state["written"] = 0

    def _conversions(self) -> Dict[int, int]:
        return {i: sum(d["hybrid"]["conversions"] for d in self.cl.stats(i)["drives"]) for i in self.cl.osd_ids}

    def step_realm_conversion(self) -> None:
        if self.actions:
            return
        # Fill toward the point where the engine converts CMR realms (more capacity in SMR),
        # 4 MiB at a time, watching the OSDs' conversion counters; stop at 75 % raw use.
        blob = os.path.join(self.cl.work, "realm.blob")
        with open(blob, "wb") as f:
            f.write(os.urandom(4 << 20))
        n = 0
        while not self.stop.is_set():
            for _ in range(8):
                self.cl.run(["rados", "-p", "realm", "put", "r.%d" % n, blob])
                n += 1
            conv = self._conversions()
            if any(conv[i] > self.state["conv0"][i] for i in conv):
                self.cl.note("realm_conversion: conversions per OSD %s after %d MiB written" % (conv, n * 4))
                self.actions += 1
                break
            df = self.cl.ceph_json("df")
            if df["stats"]["total_used_raw_ratio"] > 0.75:
                raise TaskFailed("realm_conversion: %.0f %% used and no realm converted (%s)"
                                 % (100 * df["stats"]["total_used_raw_ratio"], conv))
        self.state["written"] = n
        for i in range(n):
            self.cl.run(["rados", "-p", "realm", "rm", "r.%d" % i])


def _flip(token: str, files: List[str]) -> List[str]:
    """Flips one byte (8th of the token) in every occurrence of token in the files."""
    tok = token.encode()
    hits = []
    for p in files:
        fd = os.open(p, os.O_RDWR)
        try:
            size = os.fstat(fd).st_size
            off = 0
            found = []
            while off < size:
                try:
                    d = os.lseek(fd, off, os.SEEK_DATA)
                except OSError:
                    break
                h = os.lseek(fd, d, os.SEEK_HOLE)
                pos = d
                while pos < h:
                    n = min(32 << 20, h - pos)
                    buf = os.pread(fd, n + len(tok), pos)
                    i = buf.find(tok)
                    while i != -1 and i < n:
                        found.append(pos + i)
                        i = buf.find(tok, i + 1)
                    pos += n
                off = h
            for o in found:
                b = os.pread(fd, 1, o + 7)
                os.pwrite(fd, bytes([b[0] ^ 0x01]), o + 7)
                hits.append("%s:%d" % (os.path.basename(p), o))
        finally:
            os.close(fd)
    return hits


@contextlib.contextmanager
def task(ctx: Any, config: Any) -> Iterator[None]:
    cfg: Dict[str, Any] = {"kind": "osd_kill", "interval": 20, "first_after": 10, "seed": 1, "down_seconds": 5,
                           "min_actions": 1, "max_faults": 2}
    cfg.update(config or {})
    unknown = set(cfg) - {"kind", "interval", "first_after", "seed", "down_seconds", "min_actions", "max_faults"}
    if unknown:
        raise TaskFailed("smrstore_thrash: unknown keys %s" % sorted(unknown))
    if not hasattr(Thrasher, "step_" + cfg["kind"]):
        raise TaskFailed("smrstore_thrash: unknown kind %s" % cfg["kind"])
    cl = getattr(ctx, "smrstore", None)
    if cl is None:
        raise TaskFailed("no cluster: put smrstore_cluster before smrstore_thrash in tasks:")
    t = Thrasher(cl, cfg)
    t.thread.start()
    try:
        yield
    finally:
        t.done()
        v = getattr(ctx, "smrstore_verify", None)
        if v:
            cl.note("after the thrashing, every acknowledged write read back: %s"
                    % cl.qa("verify", "--pool", v[0], "--journal", v[1]))
