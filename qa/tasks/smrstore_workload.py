"""Client workloads against a `smrstore_cluster` (ctx.smrstore), each a teuthology task
`smrstore_workload.<name>` that runs to completion and raises TaskFailed on any mismatch.
The clients are qa/ceph/osdqa.py's (every acknowledged write recorded client-side, read back
byte-exact) and Ceph's own CLIs (rados bench, rbd).

    - smrstore_workload.rados_bench:   {seconds: 20, size: 4194304, threads: 8, max_objects: 200}
    - smrstore_workload.omap_xattr:    {objects: 20, keys: 5000}
    - smrstore_workload.small_object_churn: {seconds: 60, objects: 400, size: 16384}
    - smrstore_workload.rbd:           {mib: 64, random4k: 2048}
    - smrstore_workload.rgw:           {keys: 2000}           (smrstore_cluster rgw: true)
    - smrstore_workload.ec_overwrites: {objects: 30, overwrites: 600}
    - smrstore_workload.verified_writes: {seconds: 90, names: 400, threads: 4}

Each prints (logs) its figures; a thrasher running beside it (smrstore_thrash) stops and
heals on its own exit, after the workload.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
from typing import Any, Dict

from tasks.smrstore_common import QA_CEPH, Cluster, TaskFailed, wait_until

log = logging.getLogger(__name__)


def _cl(ctx: Any) -> Cluster:
    cl = getattr(ctx, "smrstore", None)
    if cl is None:
        raise TaskFailed("no cluster: put smrstore_cluster before the workload in tasks:")
    return cl


def _cfg(config: Any, defaults: Dict[str, Any]) -> Dict[str, Any]:
    out = dict(defaults)
    out.update(config or {})
    unknown = set(out) - set(defaults)
    if unknown:
        raise TaskFailed("unknown keys %s (known: %s)" % (sorted(unknown), sorted(defaults)))
    return out


def rados_bench(ctx: Any, config: Any) -> None:
    c = _cfg(config, {"seconds": 20, "size": 4 << 20, "threads": 8, "pool": "bench", "max_objects": 200})
    cl = _cl(ctx)
    cl.create_pool(c["pool"], 16)
    base = ["rados", "-p", c["pool"], "bench", str(c["seconds"])]
    # --max-objects bounds what the bench writes: on small emulated drives an unbounded bench
    # outruns Ceph's full check (the OSD's statfs reaches the monitor seconds late).
    out = cl.run(base + ["write", "--no-cleanup", "-b", str(c["size"]), "-t", str(c["threads"]),
                         "--max-objects", str(c["max_objects"])], timeout=600)
    written = _field(out, "Total writes made")
    cl.note("rados bench write %d s, %d B objects: %d writes, %s MB/s" % (
        c["seconds"], c["size"], written, _field(out, "Bandwidth (MB/sec)", float)))
    for mode in ("seq", "rand"):
        out = cl.run(["rados", "-p", c["pool"], "bench", "10", mode, "-t", str(c["threads"])], timeout=600)
        cl.note("rados bench %s: %s reads, %s MB/s" % (mode, _field(out, "Total reads made"),
                                                      _field(out, "Bandwidth (MB/sec)", float)))
    res = cl.qa("bench-verify", "--pool", c["pool"], "--object-size", str(c["size"]), "--expect", str(written))
    cl.note("every bench object read back against the bench's pattern: %s" % res)


def _field(out: str, name: str, kind: type = int) -> Any:
    for line in out.splitlines():
        if line.strip().startswith(name + ":"):
            return kind(line.split(":", 1)[1].strip())
    raise TaskFailed("no '%s' in the output: %s" % (name, out[-400:]))


def omap_xattr(ctx: Any, config: Any) -> None:
    c = _cfg(config, {"objects": 20, "keys": 5000, "pool": "omx"})
    cl = _cl(ctx)
    cl.create_pool(c["pool"], 16)
    res = cl.qa("omap-xattr", "--pool", c["pool"], "--objects", str(c["objects"]), "--keys", str(c["keys"]))
    cl.note("omap and xattr round trips (bulk, paging, removals, clear): %s" % res)


def small_object_churn(ctx: Any, config: Any) -> None:
    """Small objects overwritten and deleted (the zones fill with dead records, GC reclaims
    them), then every surviving name verified against the client's journal."""
    c = _cfg(config, {"seconds": 60, "names": 400, "min_size": 1, "max_size": 65536, "threads": 4,
                      "delete_ratio": 0.3, "pool": "churn"})
    cl = _cl(ctx)
    cl.create_pool(c["pool"], 16)
    before = {i: cl.stats(i)["io"]["device_bytes"] for i in cl.osd_ids}
    journal = os.path.join(cl.work, "churn.journal")
    stop = os.path.join(cl.work, "churn.stop")
    res = cl.qa("writer", "--pool", c["pool"], "--prefix", "churn", "--journal", journal, "--stop-file", stop,
                "--names", str(c["names"]), "--threads", str(c["threads"]), "--min-size", str(c["min_size"]),
                "--max-size", str(c["max_size"]), "--delete-ratio", str(c["delete_ratio"]),
                "--seconds", str(c["seconds"]))
    cl.note("small-object churn: %s" % res)
    grown = {i: cl.stats(i)["io"]["device_bytes"] - before[i] for i in cl.osd_ids}
    if not all(v > 0 for v in grown.values()):
        raise TaskFailed("an OSD's device bytes did not grow under the churn: %s" % grown)
    cl.note("device bytes written per OSD: %s" % grown)
    cl.note("verified: %s" % cl.qa("verify", "--pool", c["pool"], "--journal", journal))


def verified_writes(ctx: Any, config: Any) -> None:
    """The thrash suites' client: writes, overwrites and deletes whose every acknowledgement
    is journalled, for `seconds`, then every name read back byte-exact (a lost acknowledged
    write, or a deleted object that came back, fails the job)."""
    c = _cfg(config, {"seconds": 90, "names": 400, "threads": 4, "max_size": 1 << 20, "delete_ratio": 0.2,
                      "pool": "vw"})
    cl = _cl(ctx)
    if c["pool"] not in cl.ceph_json("osd", "pool", "ls"):
        cl.create_pool(c["pool"], 16)
    journal = os.path.join(cl.work, "vw.journal")
    stop = os.path.join(cl.work, "vw.stop")
    res = cl.qa("writer", "--pool", c["pool"], "--prefix", "vw", "--journal", journal, "--stop-file", stop,
                "--names", str(c["names"]), "--threads", str(c["threads"]), "--max-size", str(c["max_size"]),
                "--delete-ratio", str(c["delete_ratio"]), "--seconds", str(c["seconds"]))
    cl.note("verified writes: %s" % res)
    ctx.smrstore_verify = ("vw", journal)


def rbd(ctx: Any, config: Any) -> None:
    """librbd through a verifying client: import, snapshot, unaligned overwrites, rollback,
    random 4 KiB writes; every step compared with a client-side model."""
    c = _cfg(config, {"mib": 64, "random4k": 2048, "pool": "rbdp"})
    cl = _cl(ctx)
    cl.create_pool(c["pool"], 16, app="rbd")
    cl.run(["rbd", "pool", "init", c["pool"]])
    base = os.path.join(cl.work, "rbd-base.img")
    with open(base, "wb") as f:
        f.write(os.urandom(c["mib"] << 20))
    img = "%s/img" % c["pool"]
    cl.run(["rbd", "import", "--no-progress", base, img], timeout=900)
    exp = os.path.join(cl.work, "rbd-export.img")
    cl.run(["rbd", "export", "--no-progress", img, exp], timeout=900)
    if _sha(exp) != _sha(base):
        raise TaskFailed("rbd export after import differs from the imported file")
    cl.run(["rbd", "snap", "create", img + "@s1"])
    res = cl.qa("rbd", "--pool", c["pool"], "--image", "img", "--base-file", base,
                "--model-out", os.path.join(cl.work, "m1.img"), "--step", "overwrite")
    cl.note("rbd: unaligned overwrites after a snapshot read back equal to the model: %s" % res)
    os.unlink(exp)
    cl.run(["rbd", "export", "--no-progress", img + "@s1", exp], timeout=900)
    if _sha(exp) != _sha(base):
        raise TaskFailed("rbd export of snapshot s1 differs from the original data")
    cl.run(["rbd", "snap", "rollback", "--no-progress", img + "@s1"], timeout=900)
    res = cl.qa("rbd", "--pool", c["pool"], "--image", "img", "--base-file", base,
                "--model-out", os.path.join(cl.work, "m2.img"), "--step", "random4k", "--count", str(c["random4k"]))
    os.unlink(exp)
    cl.run(["rbd", "export", "--no-progress", img, exp], timeout=900)
    if _sha(exp) != _sha(os.path.join(cl.work, "m2.img")):
        raise TaskFailed("rbd export after %d random 4 KiB writes differs from the model" % c["random4k"])
    cl.note("rbd: snapshot, rollback, %d random 4 KiB writes: export equals the model (%s)" % (c["random4k"], res))
    for leftover in (base, exp, os.path.join(cl.work, "m1.img"), os.path.join(cl.work, "m2.img")):
        if os.path.exists(leftover):
            os.unlink(leftover)


def _sha(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def rgw(ctx: Any, config: Any) -> None:
    """S3 through radosgw (boto3): buckets, small and multipart objects, one bucket of many
    keys listed with pagination, deletes."""
    c = _cfg(config, {"keys": 2000, "threads": 8})
    cl = _cl(ctx)
    port = getattr(ctx, "smrstore_rgw_port", None)
    if not port:
        raise TaskFailed("no radosgw: set `rgw: true` for smrstore_cluster")
    cl.run(["radosgw-admin", "user", "create", "--uid", "qa", "--display-name", "qa", "--access-key", "qaaccess",
            "--secret-key", "qasecret"])
    res = cl.qa("rgw", "--port", str(port), "--access", "qaaccess", "--secret", "qasecret", "--keys",
                str(c["keys"]), "--threads", str(c["threads"]))
    cl.note("S3 through radosgw: %s" % res)


def ec_overwrites(ctx: Any, config: Any) -> None:
    """An erasure-coded pool (k=2 m=1) with overwrites: unaligned partial writes, appends and
    truncates against a client-side model, re-read by a fresh client."""
    c = _cfg(config, {"objects": 30, "overwrites": 600})
    cl = _cl(ctx)
    if len(cl.osd_ids) < 3:
        raise TaskFailed("ec_overwrites needs 3 OSDs (k=2 m=1)")
    cl.ceph("osd", "erasure-code-profile", "set", "ec21", "k=2", "m=1", "crush-failure-domain=osd")
    cl.create_pool("ecp", 16, kind="erasure", profile="ec21")
    # Pacific allows EC overwrites only on BlueStore unless told otherwise.
    cl.ceph("config", "set", "mon", "mon_debug_no_require_bluestore_for_ec_overwrites", "true")
    cl.ceph("osd", "pool", "set", "ecp", "allow_ec_overwrites", "true")
    manifest = os.path.join(cl.work, "ec.manifest")
    res = cl.qa("ec", "--pool", "ecp", "--objects", str(c["objects"]), "--overwrites", str(c["overwrites"]),
                "--manifest", manifest)
    cl.note("EC overwrites byte-exact against the model: %s" % res)
    cl.note("EC objects re-read by a fresh client: %s" % cl.qa("verify", "--pool", "ecp", "--journal", manifest))


def console(ctx: Any, config: Any) -> None:
    """The web console's browser test (web/e2e/osds.spec.ts: Playwright driving Debian's
    chromium) against this cluster's mgr module: for every OSD what the console shows equals
    `ceph tell osd.N smrstore stats` read around it (bytes, WA, GC runs and state, free
    zones, every zone of every drive). Background GC is stopped on the last OSD first, so
    both GC states are shown. Needs web/dist and web/node_modules (web/run-tests.sh)."""
    c = _cfg(config, {"settle_seconds": 90})
    cl = _cl(ctx)
    web = os.path.abspath(os.path.join(QA_CEPH, "..", "..", "web"))
    for need in ("dist/index.html", "node_modules/@playwright/test"):
        if not os.path.exists(os.path.join(web, need)):
            raise TaskFailed("web/%s missing (web/run-tests.sh builds and installs it)" % need)
    import socket
    import time
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    cl.ceph("config", "set", "mgr", "mgr/smrstore/server_port", str(port))
    cl.ceph("config", "set", "mgr", "mgr/smrstore/sample_interval", "1")
    cl.ceph("mgr", "module", "enable", "smrstore", "--force")
    last = cl.osd_ids[-1]
    if json.loads(cl.ceph("tell", "osd.%d" % last, "smrstore", "gc", "stop"))["gc_auto"] is not False:
        raise TaskFailed("ceph tell osd.%d smrstore gc stop did not turn GC off" % last)

    def maps() -> str:
        return json.dumps([(d["io"]["device_bytes"], [x["zonemap"] for x in d["drives"]])
                           for d in (cl.stats(i) for i in cl.osd_ids)])

    def settled() -> bool:
        a = maps()
        time.sleep(3)
        return a == maps()
    wait_until("the OSDs at rest (device bytes and zone maps unchanged over 3 s)", settled, c["settle_seconds"])
    token = cl.ceph("smrstore", "token", "create", "qa-teuthology").strip()
    base = "http://127.0.0.1:%d" % port

    def answers() -> bool:
        import urllib.request
        req = urllib.request.Request(base + "/api/v1/summary", headers={"Authorization": "Bearer " + token})
        return urllib.request.urlopen(req, timeout=5).status == 200
    wait_until("the module's API answers on %s" % base, answers, 60)
    out = os.path.join(ctx.archive, "e2e")
    os.makedirs(out, exist_ok=True)
    env = {"SMRSTORE_E2E_URL": base, "SMRSTORE_E2E_TOKEN": token, "SMRSTORE_E2E_OUT": out,
           "SMRSTORE_E2E_OSDS": " ".join(str(i) for i in cl.osd_ids),
           "PLAYWRIGHT_HTML_OUTPUT_DIR": os.path.join(out, "report-osds")}
    res = cl.run(["npx", "--no-install", "playwright", "test", "--config", "playwright.config.ts",
                  "--project", "osds"], env=env, cwd=web, timeout=900)
    for line in res.strip().splitlines()[-3:]:
        cl.note("console: %s" % line.strip())

