"""What the smrstore tasks share: the local cluster a job runs (set by `smrstore_cluster`
as ctx.smrstore), commands against it, and waits.

Contract: every command runs with the job's CEPH_CONF and raises CommandFailed (with the
command's stderr tail) when it fails; waits raise TaskFailed naming what they waited for.
Thread safety: a Cluster may be used from the job's thread and one thrasher thread; the
OSD set (`osd_ids`, `down`) is guarded by `lock`.
"""
from __future__ import annotations

import json
import logging
import os
import random
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

log = logging.getLogger(__name__)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
QA_CEPH = os.path.join(REPO, "qa", "ceph")
SYS_PY = "/usr/bin/python3"  # python3-rados lives in Debian's python, not the venv


class TaskFailed(Exception):
    """A check of a task did not hold."""


class CommandFailed(TaskFailed):
    pass


def tool_path() -> str:
    return os.environ.get("SMRSTORE_TOOL", os.path.join(REPO, "build", "src", "tools", "smrstore-tool"))


def osd_lib_path() -> str:
    return os.environ.get("SMRSTORE_OSD_LIB",
                          os.path.join(REPO, "build", "src", "os", "smrstore", "osd", "libsmrstore_osd.so"))


def pidfile_pid(path: str) -> Optional[int]:
    """The pid a daemon wrote into `path` if that process is still the one running under it
    (as qa/ceph/lib.sh's ceph_pidfile_pid): a stopped daemon's pid file stays behind and its
    pid is soon another process's — once another job's OSD, which a cleanup then stopped.
    A process that started after the pid file was written is not the daemon that wrote it."""
    try:
        with open(path) as f:
            pid = int(f.read().strip())
        written = os.stat(path).st_mtime
        with open("/proc/%d/stat" % pid) as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/stat") as f:
            btime = next(int(ln.split()[1]) for ln in f if ln.startswith("btime "))
    except (OSError, ValueError, IndexError, StopIteration):
        return None
    started = btime + ticks // os.sysconf("SC_CLK_TCK")
    return pid if started <= written else None


def wait_until(what: str, fn: Callable[[], bool], timeout: float, interval: float = 1.0) -> float:
    """Calls fn until it returns true; returns the seconds it took, raises TaskFailed after
    timeout."""
    t0 = time.monotonic()
    while True:
        try:
            if fn():
                took = time.monotonic() - t0
                log.info("ok: %s (%.0f s)", what, took)
                return took
        except (CommandFailed, ValueError, KeyError) as e:  # not yet answering
            log.debug("%s: %s", what, e)
        if time.monotonic() - t0 > timeout:
            raise TaskFailed("timed out after %.0f s waiting for %s" % (timeout, what))
        time.sleep(interval)


@dataclass
class Cluster:
    """One job's cluster: mon.a, mgr.x (qa/ceph/lib.sh) and OSDs made by `ceph-volume
    smrstore` (cluster name `name`, host paths /var/lib/ceph/osd/NAME-N)."""
    dir: str
    name: str
    env: Dict[str, str]
    work: str
    osd_ids: List[int] = field(default_factory=list)
    down: set = field(default_factory=set)
    pool_size: int = 2
    hybrid: bool = False
    mgr_url: Optional[str] = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    events: List[str] = field(default_factory=list)

    # -- commands -------------------------------------------------------------------------
    def run(self, args: Sequence[str], timeout: float = 600, check: bool = True,
            env: Optional[Dict[str, str]] = None, cwd: Optional[str] = None) -> str:
        e = dict(self.env)
        if env:
            e.update(env)
        log.debug("run: %s", " ".join(args))
        p = subprocess.run(list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e,
                           timeout=timeout, text=True, cwd=cwd or self.work)
        if check and p.returncode != 0:
            raise CommandFailed("%s: exit %d: %s" % (" ".join(args)[:200], p.returncode,
                                                     p.stderr.strip()[-600:]))
        return p.stdout

    def ceph(self, *args: str, timeout: float = 120) -> str:
        return self.run(["ceph", "--connect-timeout", "30"] + list(args), timeout=timeout)

    def ceph_json(self, *args: str, timeout: float = 120) -> Any:
        return json.loads(self.ceph(*(list(args) + ["-f", "json"]), timeout=timeout))

    def qa(self, *args: str, timeout: float = 1800) -> str:
        """qa/ceph/osdqa.py (the verifying librados/librbd/S3 clients)."""
        return self.run([SYS_PY, os.path.join(QA_CEPH, "osdqa.py")] + list(args), timeout=timeout).strip()

    def stats(self, osd: int) -> Dict[str, Any]:
        return json.loads(self.ceph("tell", "osd.%d" % osd, "smrstore", "stats"))

    def note(self, what: str) -> None:
        log.info("%s", what)
        with self.lock:
            self.events.append("%.0f %s" % (time.time(), what))

    # -- pools ------------------------------------------------------------------------------
    def create_pool(self, name: str, pgs: int = 16, kind: str = "replicated",
                    profile: Optional[str] = None, app: str = "rados") -> None:
        args = ["osd", "pool", "create", name, str(pgs), str(pgs), kind]
        if profile:
            args.append(profile)
        self.ceph(*args)
        if kind == "replicated":
            self.ceph("osd", "pool", "set", name, "size", str(self.pool_size))
            self.ceph("osd", "pool", "set", name, "min_size", str(max(1, self.pool_size - 1)))
        self.ceph("osd", "pool", "application", "enable", name, app)
        self.wait_clean(300)

    # -- OSDs -------------------------------------------------------------------------------
    def osd_pid(self, osd: int) -> Optional[int]:
        return pidfile_pid(os.path.join(self.dir, "run", "osd.%d.pid" % osd))

    def start_osd(self, osd: int) -> None:
        """What a container's entrypoint runs after `ceph-volume smrstore activate
        --no-systemd`: Debian's ceph-osd with the smrstore library preloaded."""
        env = dict(self.env)
        env.pop("CEPH_CONF", None)
        env["LD_PRELOAD"] = osd_lib_path()
        # ceph-volume's mkfs ran as root and may have made the log file: the daemon (--setuser
        # ceph) must be able to write it, or its log stays empty.
        logf = os.path.join(self.dir, "log", "osd.%d.log" % osd)
        if not os.path.exists(logf):
            open(logf, "a").close()
        shutil.chown(logf, "ceph", "ceph")
        with open(os.path.join(self.dir, "log", "osd.%d.out" % osd), "ab") as out:
            p = subprocess.run(["ceph-osd", "--cluster", self.name, "-i", str(osd), "--setuser", "ceph",
                                "--setgroup", "ceph"], stdout=out, stderr=out, env=env, timeout=120)
        if p.returncode != 0:
            raise CommandFailed("ceph-osd %d did not start (exit %d); see %s/log/osd.%d.out"
                                % (osd, p.returncode, self.dir, osd))
        with self.lock:
            self.down.discard(osd)

    def kill_osd(self, osd: int, sig: int = 9) -> None:
        pid = self.osd_pid(osd)
        if pid is None:
            raise TaskFailed("osd.%d has no live pid to kill" % osd)
        with self.lock:
            self.down.add(osd)
        os.kill(pid, sig)
        t0 = time.monotonic()
        while self.osd_pid(osd) is not None and time.monotonic() - t0 < 120:
            time.sleep(0.2)
        if self.osd_pid(osd) is not None:
            raise TaskFailed("osd.%d (pid %d) still running after signal %d" % (osd, pid, sig))

    def osd_up(self, osd: int) -> bool:
        d = self.ceph_json("osd", "dump")
        for o in d["osds"]:
            if o["osd"] == osd:
                return bool(o["up"]) and bool(o["in"])
        return False

    def wait_up(self, osd: int, timeout: float = 180) -> None:
        wait_until("osd.%d up and in" % osd, lambda: self.osd_up(osd), timeout)

    def pg_states(self) -> Dict[str, int]:
        s = self.ceph_json("pg", "stat")
        s = s.get("pg_summary", s)
        return {x["name"]: x["num"] for x in s.get("num_pg_by_state", [])}

    def wait_clean(self, timeout: float = 300) -> float:
        def clean() -> bool:
            st = self.pg_states()
            return sum(st.values()) > 0 and set(st) == {"active+clean"}
        took = wait_until("every PG active+clean", clean, timeout, interval=2)
        time.sleep(6)  # PG stats reach the mgr every 5 s: a stale "clean" must not pass
        wait_until("every PG still active+clean", clean, timeout, interval=2)
        return took

    def random_up_osd(self, rng: random.Random) -> int:
        with self.lock:
            up = [i for i in self.osd_ids if i not in self.down]
        return rng.choice(up)
