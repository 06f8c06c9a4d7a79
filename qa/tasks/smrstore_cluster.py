"""Task `smrstore_cluster`: a one-host Ceph 16.2.15 cluster whose OSDs are smrstore, made
the way an operator makes them.

    roles: [[mon.a, mgr.x, osd.0, osd.1, osd.2, client.0]]   # clusters/ fragment
    tasks:
    - smrstore_cluster:
        pool_size: 2            # replicas of the pools workloads create (min_size one less)
        mgr_module: true        # the smrstore mgr module (REST, /metrics, health checks)
        rgw: false              # a radosgw on a free port (ctx.smrstore_rgw_port)
        conf: {osd: {...}}      # ceph.conf sections, as Ceph's ceph task takes them
        smrstore:
          drives_per_osd: 2
          drive: "zones=96&zone_mib=16&conv=2"   # emulated HM-SMR drive (doc/tools)
          settings: {gc_policy: greedy}          # smrstore.conf keys (ceph-volume --conf)
        deep_scrub: true        # at the end: deep-scrub every PG, no inconsistency

Overrides merge as for Ceph's ceph task: `overrides: ceph:` (the objectstore fragments of
qa/objectstore/ set `conf: osd: osd objectstore: smrstore` and `smrstore:` there).

The monitor and manager come from qa/ceph/lib.sh (private ports, cephx, no systemd); every
OSD is made by Debian's ceph-volume with the smrstore plugin (`ceph-volume smrstore prepare
--data DRIVE... [--conf K=V]`, `activate --all --no-systemd`) and started as a container
entrypoint starts it (LD_PRELOAD of libsmrstore_osd.so, --setuser ceph). At the end: PGs
clean, optional deep scrub with no inconsistent PG, then every OSD stopped and its log
checked (no heartbeat timeout, no crash report), and the host's /etc/ceph and
/var/lib/ceph entries of the job's cluster name (smrtXXXXXX, from the job's archive path)
removed.
"""
from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import logging
import os
import shutil
import subprocess
import time
from typing import Any, Dict, Iterator, List

import teuthology.misc as misc

from tasks.smrstore_common import (QA_CEPH, REPO, Cluster, CommandFailed, TaskFailed, tool_path,
                                   osd_lib_path, wait_until)

log = logging.getLogger(__name__)

def cluster_name(archive: str) -> str:
    """The job's own cluster name (host paths /etc/ceph/NAME.conf, /var/lib/ceph/osd/NAME-N),
    so that two jobs on one host do not meet, and never "ceph" or 0011's "smrcv"."""
    return "smrt" + hashlib.sha1(os.path.abspath(archive).encode()).hexdigest()[:6]


def _roles(ctx: Any) -> List[str]:
    return [r for host in ctx.config.get("roles", []) for r in host]


def _conf_lines(section: Dict[str, Any]) -> List[str]:
    return ["%s = %s" % (k, str(v).lower() if isinstance(v, bool) else v) for k, v in section.items()]


def _host_clean(name: str) -> None:
    for p in glob.glob("/var/lib/ceph/osd/%s-*" % name):
        shutil.rmtree(p, ignore_errors=True)
    for p in ["/etc/ceph/%s.conf" % name, "/var/lib/ceph/bootstrap-osd/%s.keyring" % name] + \
            glob.glob("/etc/ceph/smrstore/%s-*.json" % name):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(p)


def _lib(fn: str, *args: str, env: Dict[str, str], timeout: float = 600) -> None:
    p = subprocess.run(["bash", "-c", '. "%s/lib.sh" && %s "$@"' % (QA_CEPH, fn), fn] + list(args),
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    for line in p.stdout.splitlines():
        log.info("lib.sh: %s", line)
    if p.returncode != 0:
        raise CommandFailed("%s %s: exit %d" % (fn, " ".join(args), p.returncode))


def _osd_log_problems(d: str) -> List[str]:
    bad = []
    for f in sorted(glob.glob(os.path.join(d, "log", "osd.*.log"))):
        with open(f, errors="replace") as fh:
            for line in fh:
                if "had timed out" in line or "Caught signal" in line:
                    bad.append("%s: %s" % (os.path.basename(f), line.strip()[:200]))
                    break
    for c in glob.glob(os.path.join(d, "crash", "*")):
        bad.append("crash report %s" % os.path.basename(c))
    return bad


def _deep_scrub(cl: Cluster, timeout: float = 600) -> str:
    """Deep-scrubs every PG, waits until each PG's deep-scrub stamp moved, and fails on an
    inconsistent PG (`rados list-inconsistent-pg`)."""
    before = _scrub_stamps(cl)
    for p in before:
        cl.ceph("pg", "deep-scrub", p)
    wait_until("deep scrub of %d PGs" % len(before),
               lambda: all(s != before[p] for p, s in _scrub_stamps(cl).items()), timeout, interval=3)
    bad = {}
    for pool in cl.ceph_json("osd", "pool", "ls"):
        found = json.loads(cl.run(["rados", "list-inconsistent-pg", pool]) or "[]")
        if found:
            bad[pool] = found
    if bad:
        raise TaskFailed("deep scrub found inconsistent PGs: %s" % bad)
    return "deep scrub of %d PGs: no inconsistent PG" % len(before)


def _scrub_stamps(cl: Cluster) -> Dict[str, str]:
    d = cl.ceph_json("pg", "ls")
    rows = d["pg_stats"] if isinstance(d, dict) else d
    return {p["pgid"]: p["last_deep_scrub_stamp"] for p in rows}


@contextlib.contextmanager
def task(ctx: Any, config: Any) -> Iterator[None]:
    config = dict(config or {})
    misc.deep_merge(config, ctx.config.get("overrides", {}).get("ceph", {}))
    conf = config.get("conf", {}) or {}
    osd_conf = dict(conf.get("osd", {}) or {})
    store = osd_conf.get("osd objectstore", "smrstore")
    if store != "smrstore":
        raise TaskFailed("smrstore_cluster provisions smrstore OSDs through ceph-volume smrstore; "
                         "osd objectstore = %s is not one" % store)
    sm = config.get("smrstore", {}) or {}
    roles = _roles(ctx)
    osd_ids = sorted(int(r.split(".")[1]) for r in roles if r.startswith("osd."))
    if not osd_ids or osd_ids != list(range(len(osd_ids))):
        raise TaskFailed("roles must name osd.0..osd.N-1, got %s" % roles)
    for need in (tool_path(), osd_lib_path()):
        if not os.path.exists(need):
            raise TaskFailed("%s not found (make build)" % need)

    work = os.path.join(ctx.archive, "work")
    cdir = os.path.join(ctx.archive, "cluster")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ)
    env.pop("CEPH_CONF", None)
    env["CEPH_QA_EXTRA_CONF"] = "\n".join(_conf_lines(conf.get("global", {}) or {}))
    site = os.path.join(work, "site")
    name = cluster_name(ctx.archive)
    _host_clean(name)
    _lib("ceph_volume_plugin_site", site, env=env)
    env["PYTHONPATH"] = site
    env["SMRSTORE_TOOL"] = tool_path()
    env["SMRSTORE_OSD_LIB"] = osd_lib_path()
    t0 = time.monotonic()
    args = [cdir, "--cephx", "--no-osd"]
    if config.get("mgr_module", True):
        args += ["--mgr-module-path", os.path.join(REPO, "mgr-module")]
    _lib("ceph_cluster_start", *args, env=env)
    env["CEPH_CONF"] = os.path.join(cdir, "ceph.conf")
    cl = Cluster(dir=cdir, name=name, env=env, work=work,
                 pool_size=int(config.get("pool_size", min(2, len(osd_ids)))),
                 hybrid="realms=" in str(sm.get("drive", "")))
    ctx.smrstore = cl
    ok = False
    try:
        for d in ("log", "run", "crash"):
            os.chmod(os.path.join(cdir, d), 0o1777)
        os.chmod(ctx.archive, 0o755)
        os.chmod(work, 0o755)
        # Deep scrubs of every PG at the end run three at a time per OSD, not one.
        cl.ceph("config", "set", "osd", "osd_max_scrubs", "3")
        for who in ("mon", "mgr"):
            for k, v in (conf.get(who, {}) or {}).items():
                cl.ceph("config", "set", who, k.replace(" ", "_"), str(v))
        # The host's view: Ceph's default OSD paths, the job's [osd] section.
        with open(os.path.join(cdir, "ceph.conf")) as f:
            host_conf = [ln for ln in f.read().splitlines()
                         if not ln.startswith(("keyring =", "osd data =", "osd objectstore =", "osd journal ="))]
        host_conf += ["", "[osd]"] + _conf_lines(osd_conf)
        with open("/etc/ceph/%s.conf" % name, "w") as f:
            f.write("\n".join(host_conf) + "\n")
        os.makedirs("/var/lib/ceph/bootstrap-osd", exist_ok=True)
        cl.ceph("auth", "get-or-create", "client.bootstrap-osd", "mon", "allow profile bootstrap-osd",
                "-o", "/var/lib/ceph/bootstrap-osd/%s.keyring" % name)

        # Drives: emulated HM-SMR (or hybrid) drives, owned by the ceph user as Debian's
        # units run the OSDs.
        ddir = os.path.join(ctx.archive, "drives")
        os.makedirs(ddir, exist_ok=True)
        os.chmod(ddir, 0o755)
        per = int(sm.get("drives_per_osd", 2))
        spec = str(sm.get("drive", "zones=96&zone_mib=16&conv=2"))
        settings = sm.get("settings", {}) or {}
        cv = ["ceph-volume", "--cluster", name, "--log-path", work, "smrstore"]
        hostenv = dict(env)
        hostenv.pop("CEPH_CONF")
        for i in osd_ids:
            drives = []
            for j in range(per):
                d = "emu:%s/osd%d-d%d.img?%s" % (ddir, i, j, spec)
                cl.run([tool_path(), "mkdev", d])
                drives.append(d.split("?")[0])
            a = list(cv) + ["prepare"]
            for d in drives:
                a += ["--data", d]
            for k, v in settings.items():
                a += ["--conf", "%s=%s" % (k, str(v).lower() if isinstance(v, bool) else v)]
            out = cl.run(a, env=hostenv, timeout=300)
            cl.note("ceph-volume smrstore prepare osd.%d: %s" % (i, out.strip().splitlines()[0] if out.strip() else ""))
        cl.run(list(cv) + ["activate", "--all", "--no-systemd"], env=hostenv, timeout=300)
        for i in osd_ids:
            cl.start_osd(i)
        cl.osd_ids = list(osd_ids)
        for i in osd_ids:
            cl.wait_up(i)
        meta = cl.ceph_json("osd", "metadata", "0")
        if meta.get("osd_objectstore") != "smrstore":
            raise TaskFailed("osd.0 metadata says osd_objectstore %s" % meta.get("osd_objectstore"))
        if config.get("rgw"):
            _start_rgw(ctx, cl)
        cl.note("cluster up: %d smrstore OSDs (%d drives each, %s, settings %s) in %.0f s"
                % (len(osd_ids), per, spec, settings or "defaults", time.monotonic() - t0))
        yield
        ok = True
    finally:
        problems: List[str] = []
        try:
            if ok:
                cl.wait_clean(600)
                if config.get("deep_scrub", True):
                    cl.note(_deep_scrub(cl))
        except Exception as e:  # noqa: BLE001 - reported as the job's failure below
            problems.append("at the end: %s" % e)
        for i in cl.osd_ids:
            pid = cl.osd_pid(i)
            if pid:
                with contextlib.suppress(OSError):
                    os.kill(pid, 15)
        with contextlib.suppress(Exception):
            _lib("ceph_cluster_stop", cdir, env=env, timeout=300)
        problems += _osd_log_problems(cdir)
        if not ok or problems:  # keep what a failure needs: the OSD dirs (RocksDB, settings)
            for d in glob.glob("/var/lib/ceph/osd/%s-*" % name):
                with contextlib.suppress(OSError):
                    shutil.copytree(d, os.path.join(ctx.archive, "osd-dirs", os.path.basename(d)), symlinks=True)
        _host_clean(name)
        if ok and not problems:
            shutil.rmtree(os.path.join(ctx.archive, "drives"), ignore_errors=True)
        if problems and ok:
            raise TaskFailed("; ".join(problems))
        for p in problems:
            log.error("%s", p)


def _start_rgw(ctx: Any, cl: Cluster) -> None:
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    os.makedirs(os.path.join(cl.dir, "rgw.x"), exist_ok=True)
    cl.ceph("auth", "get-or-create", "client.rgw.x", "mon", "allow rw", "osd", "allow rwx", "mgr", "allow rw",
            "-o", os.path.join(cl.dir, "keyring.client.rgw.x"))
    cl.run(["radosgw", "-n", "client.rgw.x", "-c", cl.env["CEPH_CONF"],
            "--rgw-frontends", "beast endpoint=127.0.0.1:%d" % port])
    import urllib.request

    def answers() -> bool:
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=5)
            return True
        except urllib.error.HTTPError:
            return True
        except OSError:
            return False
    wait_until("radosgw answering on 127.0.0.1:%d" % port, answers, 180)
    ctx.smrstore_rgw_port = port
