#!/usr/bin/python3
"""Client side of the OSD suites (qa/ceph/0004-0006): workloads whose every acknowledged
write is recorded by the client, and byte-exact checks against those records.

    /usr/bin/python3 qa/ceph/osdqa.py SUBCOMMAND ...   (cluster from $CEPH_CONF, python3-rados)

Journal format (one record per line, appended only after the write returned; the last
record of a name wins):  PUT NAME SHA256 SIZE   |   DEL NAME

Subcommands (each prints one JSON line of figures on stdout, exits 1 on a mismatch):
  writer       threads of write_full/remove on a bounded working set until a stop file
               appears (or --seconds); records acknowledged ops in --journal
  verify       reads every name of one or more journals/manifests and compares
  bench-verify every `rados bench` object of a pool against the bench's own pattern
  omap-xattr   omap and xattr round trips (bulk, paging, removal, clear)
  ec           partial overwrites of objects in an (EC) pool against a client-side model
  rbd          librbd: import/snapshot/overwrite/rollback/4 KiB random writes vs a model
  rgw          S3 (boto3) through radosgw: buckets, small + multipart objects, one
               single-shard bucket of many keys listed with pagination, deletes
  pg-field     "PGID VALUE" lines of one field of `ceph pg ls-by-pool` (or one PG)
  pg-newer     exit 0 when every PG of a pg-field file has a newer value now
"""
import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import random
import sys
import threading
import time

import rados


def connect():
    r = rados.Rados(conffile=os.environ["CEPH_CONF"])
    r.connect(timeout=60)
    return r


def sha(b):
    return hashlib.sha256(b).hexdigest()


def emit(d):
    print(json.dumps(d, sort_keys=True), flush=True)


def load_journals(paths):
    """name -> (sha, size) or None (deleted); last record wins."""
    state = {}
    for p in paths:
        with open(p) as f:
            for line in f:
                w = line.split()
                if not w:
                    continue
                if w[0] == "PUT" and len(w) == 4:
                    state[w[1]] = (w[2], int(w[3]))
                elif w[0] == "DEL" and len(w) == 2:
                    state[w[1]] = None
                else:
                    raise SystemExit("bad journal line in %s: %r" % (p, line))
    return state


# ---------------------------------------------------------------------------- writer
def cmd_writer(a):
    r = connect()
    io = r.open_ioctx(a.pool)
    jf = open(a.journal, "a", buffering=1)
    jlock = threading.Lock()
    stop = threading.Event()
    t_end = time.time() + a.seconds if a.seconds else None
    stats = {"puts": 0, "dels": 0, "bytes": 0, "errors": 0, "max_latency_s": 0.0}
    slock = threading.Lock()
    first_err = []

    def worker(t):
        rng = random.Random("%s-%d-%d" % (a.prefix, t, os.getpid()))
        mine = [n for n in range(a.names) if n % a.threads == t]
        exists = set()
        while not stop.is_set():
            if os.path.exists(a.stop_file) or (t_end and time.time() > t_end):
                stop.set()
                break
            n = rng.choice(mine)
            name = "%s.%06d" % (a.prefix, n)
            t0 = time.time()
            try:
                if name in exists and rng.random() < a.delete_ratio:
                    io.remove_object(name)
                    rec, nbytes = "DEL %s\n" % name, 0
                    exists.discard(name)
                    kind = "dels"
                else:
                    size = rng.randint(a.min_size, a.max_size)
                    data = rng.randbytes(size)
                    io.write_full(name, data)
                    rec, nbytes = "PUT %s %s %d\n" % (name, sha(data), size), size
                    exists.add(name)
                    kind = "puts"
            except Exception as e:  # recorded, never silently retried
                with slock:
                    stats["errors"] += 1
                    if not first_err:
                        first_err.append("%s: %r" % (name, e))
                continue
            lat = time.time() - t0
            with jlock:
                jf.write(rec)
            with slock:
                stats[kind] += 1
                stats["bytes"] += nbytes
                stats["max_latency_s"] = max(stats["max_latency_s"], round(lat, 3))

    t0 = time.time()
    ths = [threading.Thread(target=worker, args=(t,)) for t in range(a.threads)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    dt = time.time() - t0
    jf.close()
    stats.update(seconds=round(dt, 1), mb_per_s=round(stats["bytes"] / dt / 1e6, 1),
                 ops_per_s=round((stats["puts"] + stats["dels"]) / dt, 1))
    if first_err:
        stats["first_error"] = first_err[0]
    emit(stats)
    io.close()
    r.shutdown()
    return 1 if stats["errors"] else 0


# ---------------------------------------------------------------------------- verify
def cmd_verify(a):
    state = load_journals(a.journal)
    r = connect()
    io = r.open_ioctx(a.pool)
    bad = []
    blk = threading.Lock()
    counts = {"present": 0, "absent": 0, "bytes": 0}

    def check(item):
        name, want = item
        try:
            if want is None:
                try:
                    io.stat(name)
                    err = "deleted but present"
                except rados.ObjectNotFound:
                    err = None
                    with blk:
                        counts["absent"] += 1
            else:
                data = io.read(name, want[1] + 1, 0)
                if len(data) != want[1]:
                    err = "size %d, want %d" % (len(data), want[1])
                elif sha(data) != want[0]:
                    err = "sha256 differs"
                else:
                    err = None
                    with blk:
                        counts["present"] += 1
                        counts["bytes"] += len(data)
        except Exception as e:
            err = repr(e)
        if err:
            with blk:
                bad.append("%s: %s" % (name, err))

    t0 = time.time()
    with cf.ThreadPoolExecutor(a.threads) as ex:
        list(ex.map(check, sorted(state.items())))
    out = dict(names=len(state), bad=len(bad), seconds=round(time.time() - t0, 1), **counts)
    if bad:
        out["first_bad"] = sorted(bad)[:10]
    emit(out)
    io.close()
    r.shutdown()
    return 1 if bad else 0


# ---------------------------------------------------------------------------- bench-verify
def bench_model(index, size):
    buf = bytearray(b"z" * size)
    s = (b"I'm the %16dth op!" % index) + b"\0"  # ObjBencher: snprintf over a 'z'-filled buffer
    s = s[:size]
    buf[:len(s)] = s
    return bytes(buf)


def cmd_bench_verify(a):
    r = connect()
    io = r.open_ioctx(a.pool)
    names = [o.key for o in io.list_objects() if o.key.startswith("benchmark_data_")]
    bad = []
    blk = threading.Lock()
    total = [0]

    def check(name):
        idx = int(name.rsplit("_object", 1)[1])
        try:
            data = io.read(name, a.object_size + 1, 0)
        except Exception as e:
            with blk:
                bad.append("%s: %r" % (name, e))
            return
        ok = len(data) == a.object_size and data == bench_model(idx, a.object_size)
        with blk:
            total[0] += len(data)
            if not ok:
                bad.append("%s: %d bytes, content differs from the bench pattern" % (name, len(data)))

    t0 = time.time()
    with cf.ThreadPoolExecutor(a.threads) as ex:
        list(ex.map(check, names))
    dt = time.time() - t0
    out = dict(objects=len(names), bad=len(bad), bytes=total[0], seconds=round(dt, 1),
               mb_per_s=round(total[0] / max(dt, 1e-6) / 1e6, 1))
    if a.expect is not None and len(names) != a.expect:
        bad.append("found %d bench objects, bench wrote %d" % (len(names), a.expect))
        out["bad"] = len(bad)
    if bad:
        out["first_bad"] = sorted(bad)[:10]
    emit(out)
    return 1 if bad else 0


# ---------------------------------------------------------------------------- omap/xattr
def omap_all(io, name):
    got, after = {}, ""
    while True:
        with rados.ReadOpCtx() as op:
            it, ret = io.get_omap_vals(op, after, "", 512)
            io.operate_read_op(op, name)
            page = list(it)
        for k, v in page:
            got[k] = v if v is not None else b""  # python3-rados gives None for an empty value
        if len(page) < 512:
            return got
        after = page[-1][0]


def cmd_omap_xattr(a):
    r = connect()
    io = r.open_ioctx(a.pool)
    rng = random.Random(7)
    model_omap, model_x = {}, {}
    problems = []
    for i in range(a.objects):
        name = "%s.%03d" % (a.prefix, i)
        io.write_full(name, rng.randbytes(rng.randint(0, 65536)))
        keys = ["k%06d/%s" % (j, "x" * (j % 40)) for j in range(a.keys if i == 0 else rng.randint(1, 300))]
        vals = [rng.randbytes(rng.choice([0, 1, 17, 100, 4096])) for _ in keys]
        for lo in range(0, len(keys), 1000):
            with rados.WriteOpCtx() as op:
                io.set_omap(op, tuple(keys[lo:lo + 1000]), tuple(vals[lo:lo + 1000]))
                io.operate_write_op(op, name)
        model_omap[name] = dict(zip(keys, vals))
        model_x[name] = {}
        for j in range(rng.randint(1, 8)):
            k = "user.a%d" % j
            v = rng.randbytes(rng.choice([0, 1, 250, 4000]))
            io.set_xattr(name, k, v)
            model_x[name][k] = v
    # removals: some omap keys, one xattr, one whole omap
    for i, name in enumerate(sorted(model_omap)):
        ks = sorted(model_omap[name])[::3]
        with rados.WriteOpCtx() as op:
            io.remove_omap_keys(op, tuple(ks))
            io.operate_write_op(op, name)
        for k in ks:
            del model_omap[name][k]
        if model_x[name]:
            k = sorted(model_x[name])[0]
            io.rm_xattr(name, k)
            del model_x[name][k]
        if i == 1:
            with rados.WriteOpCtx() as op:
                io.clear_omap(op)
                io.operate_write_op(op, name)
            model_omap[name] = {}
    nkeys = 0
    for name in sorted(model_omap):
        got = omap_all(io, name)
        nkeys += len(got)
        if got != model_omap[name]:
            problems.append("%s: omap differs (%d keys, want %d)" % (name, len(got), len(model_omap[name])))
        gx = {k: v for k, v in io.get_xattrs(name) if k.startswith("user.a")}
        if gx != model_x[name]:
            problems.append("%s: xattrs differ (%s vs %s)" % (name, sorted(gx), sorted(model_x[name])))
    out = dict(objects=a.objects, omap_keys=nkeys, xattrs=sum(len(v) for v in model_x.values()),
               bad=len(problems))
    if problems:
        out["first_bad"] = problems[:10]
    emit(out)
    return 1 if problems else 0


# ---------------------------------------------------------------------------- ec
def cmd_ec(a):
    r = connect()
    io = r.open_ioctx(a.pool)
    rng = random.Random(11)
    model = {}
    # whole objects of awkward sizes (not multiples of the 8 KiB stripe)
    for i in range(a.objects):
        name = "ec.%03d" % i
        data = rng.randbytes(rng.choice([1, 4095, 4097, 8191, 65536 + 3, 1 << 20, (3 << 20) + 5]))
        io.write_full(name, data)
        model[name] = bytearray(data)
    names = sorted(model)
    nwrites = 0
    for _ in range(a.overwrites):
        name = rng.choice(names)
        m = model[name]
        kind = rng.random()
        if kind < 0.1:  # append
            data = rng.randbytes(rng.randint(1, 20000))
            io.append(name, data)
            m.extend(data)
        elif kind < 0.15 and len(m) > 10:  # truncate
            n = rng.randint(1, len(m) - 1)
            io.trunc(name, n)
            del m[n:]
        else:  # partial overwrite inside or across the end, unaligned
            off = rng.randint(0, len(m))
            data = rng.randbytes(rng.choice([1, 7, 512, 4096, 5000, 8192, 70000]))
            io.write(name, data, off)
            if off + len(data) > len(m):
                m.extend(b"\0" * (off + len(data) - len(m)))
            m[off:off + len(data)] = data
        nwrites += 1
    bad = []
    for name in names:
        got = io.read(name, len(model[name]) + 1, 0)
        if got != bytes(model[name]):
            bad.append("%s: %d bytes read, model %d, sha differs" % (name, len(got), len(model[name])))
    with open(a.manifest, "w") as f:
        for name in names:
            f.write("PUT %s %s %d\n" % (name, sha(bytes(model[name])), len(model[name])))
    emit(dict(objects=len(names), overwrites=nwrites, bytes=sum(len(m) for m in model.values()),
              bad=len(bad), first_bad=bad[:5]))
    return 1 if bad else 0


# ---------------------------------------------------------------------------- rbd
def cmd_rbd(a):
    import rbd
    r = connect()
    io = r.open_ioctx(a.pool)
    out = {}
    with rbd.Image(io, a.image) as img:
        size = img.size()
        base = open(a.base_file, "rb").read()
        assert len(base) == size, "base file %d bytes, image %d" % (len(base), size)
        model = bytearray(base)
        rng = random.Random(5)
        if a.step == "overwrite":
            # unaligned overwrites after snapshot s1
            for _ in range(200):
                off = rng.randint(0, size - 1)
                data = rng.randbytes(min(rng.choice([1, 511, 4096, 65537, 1 << 20]), size - off))
                img.write(data, off)
                model[off:off + len(data)] = data
            got = img.read(0, size)
            out["overwrite_equal"] = got == bytes(model)
        elif a.step == "random4k":
            # 4 KiB random aligned writes, 16 in flight (aio), like rbd bench --io-size 4K
            n = a.count
            sem = threading.Semaphore(16)
            errs = []
            lats = []  # per-write latency, s (drive_bench.sh reports p50/p99)

            def done(comp, start):
                lats.append(time.monotonic() - start)
                if comp.get_return_value() < 0:
                    errs.append(comp.get_return_value())
                sem.release()
            t0 = time.time()
            comps = []
            for _ in range(n):
                blk = rng.randrange(size // 4096)
                data = rng.randbytes(4096)
                model[blk * 4096:(blk + 1) * 4096] = data
                sem.acquire()
                s0 = time.monotonic()
                comps.append(img.aio_write(data, blk * 4096, lambda c, s0=s0: done(c, s0)))
            for _ in range(16):
                sem.acquire()
            dt = time.time() - t0
            img.flush()
            lats.sort()

            def pct(p):
                return round(1000 * lats[min(len(lats) - 1, int(p * len(lats)))], 2) if lats else None
            out.update(writes=n, iops=round(n / dt), errors=len(errs), seconds=round(dt, 2),
                       p50_ms=pct(0.50), p99_ms=pct(0.99))
            got = img.read(0, size)
            out["read_equal"] = got == bytes(model)
        with open(a.model_out, "wb") as f:
            f.write(bytes(model))
    emit(out)
    ok = all(v for k, v in out.items() if k.endswith("_equal")) and not out.get("errors")
    return 0 if ok else 1


# ---------------------------------------------------------------------------- rgw
def cmd_rgw(a):
    import boto3
    import botocore.config
    cfg = botocore.config.Config(max_pool_connections=a.threads + 4,
                                 retries={"max_attempts": 1, "mode": "standard"},
                                 s3={"addressing_style": "path"})

    def client():
        return boto3.session.Session().client(
            "s3", endpoint_url="http://127.0.0.1:%d" % a.port, aws_access_key_id=a.access,
            aws_secret_access_key=a.secret, region_name="default", config=cfg)
    s3 = client()
    rng = random.Random(3)
    res = {}
    bad = []
    # 1. buckets, small objects, multipart
    for b in ("qa-small", "qa-multi"):
        s3.create_bucket(Bucket=b)
    res["buckets_listed"] = sorted(x["Name"] for x in s3.list_buckets()["Buckets"])
    small = {}
    for i in range(100):
        k = "dir%d/obj-%03d" % (i % 4, i)
        small[k] = rng.randbytes(rng.choice([0, 1, 100, 4096, 4097, 70000, 1 << 20]))
        s3.put_object(Bucket="qa-small", Key=k, Body=small[k])
    for k, v in small.items():
        got = s3.get_object(Bucket="qa-small", Key=k)["Body"].read()
        if got != v:
            bad.append("qa-small/%s differs (%d vs %d bytes)" % (k, len(got), len(v)))
    res["small_objects"] = len(small)
    parts = [rng.randbytes(5 << 20) for _ in range(3)] + [rng.randbytes((1 << 20) + 123)]
    whole = b"".join(parts)
    mp = s3.create_multipart_upload(Bucket="qa-multi", Key="big")
    etags = []
    for i, p in enumerate(parts, 1):
        e = s3.upload_part(Bucket="qa-multi", Key="big", PartNumber=i, UploadId=mp["UploadId"], Body=p)
        etags.append({"PartNumber": i, "ETag": e["ETag"]})
    s3.complete_multipart_upload(Bucket="qa-multi", Key="big", UploadId=mp["UploadId"],
                                 MultipartUpload={"Parts": etags})
    got = s3.get_object(Bucket="qa-multi", Key="big")["Body"].read()
    if got != whole:
        bad.append("multipart object differs (%d vs %d bytes)" % (len(got), len(whole)))
    rg = s3.get_object(Bucket="qa-multi", Key="big", Range="bytes=5242000-10486000")["Body"].read()
    if rg != whole[5242000:10486001]:
        bad.append("ranged read of the multipart object differs")
    res["multipart_bytes"] = len(whole)

    # 2. many keys in one bucket (index shard count set by the caller)
    s3.create_bucket(Bucket=a.bucket)
    keys = ["k/%05d/%s" % (i, "abcdefgh"[: i % 9]) for i in range(a.keys)]
    tls = threading.local()

    def put(k):
        c = getattr(tls, "c", None)
        if c is None:
            c = tls.c = client()
        c.put_object(Bucket=a.bucket, Key=k, Body=k.encode())
    t0 = time.time()
    with cf.ThreadPoolExecutor(a.threads) as ex:
        list(ex.map(put, keys))
    dt = time.time() - t0
    res.update(put_keys=len(keys), put_seconds=round(dt, 1), puts_per_s=round(len(keys) / dt, 1))
    t0 = time.time()
    listed, pages = [], 0
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=a.bucket, PaginationConfig={"PageSize": 1000}):
        pages += 1
        listed.extend(o["Key"] for o in page.get("Contents", []))
    res.update(list_pages=pages, listed=len(listed), list_seconds=round(time.time() - t0, 1))
    if listed != sorted(keys):
        bad.append("listing of %s: %d keys, %d expected, equal as sets: %s"
                   % (a.bucket, len(listed), len(keys), set(listed) == set(keys)))
    for k in rng.sample(keys, 50):
        if s3.get_object(Bucket=a.bucket, Key=k)["Body"].read() != k.encode():
            bad.append("%s/%s differs" % (a.bucket, k))
    if a.pause_file:  # let the caller inspect the index while the keys exist
        open(a.pause_file + ".ready", "w").close()
        t_end = time.time() + 120
        while not os.path.exists(a.pause_file) and time.time() < t_end:
            time.sleep(0.2)

    # 3. deletes
    t0 = time.time()
    for lo in range(0, len(keys), 1000):
        r = s3.delete_objects(Bucket=a.bucket, Delete={"Objects": [{"Key": k} for k in keys[lo:lo + 1000]], "Quiet": True})
        if r.get("Errors"):
            bad.append("delete_objects errors: %s" % r["Errors"][:3])
    left = s3.list_objects_v2(Bucket=a.bucket).get("KeyCount", -1)
    if left != 0:
        bad.append("%s holds %d keys after deleting all" % (a.bucket, left))
    for b, ks in ((a.bucket, []), ("qa-small", list(small)), ("qa-multi", ["big"])):
        for k in ks:
            s3.delete_object(Bucket=b, Key=k)
        s3.delete_bucket(Bucket=b)
    res["delete_seconds"] = round(time.time() - t0, 1)
    res["buckets_after"] = [x["Name"] for x in s3.list_buckets()["Buckets"]]
    if res["buckets_after"]:
        bad.append("buckets left: %s" % res["buckets_after"])
    res["bad"] = len(bad)
    res["first_bad"] = bad[:5]
    emit(res)
    return 1 if bad else 0


# ---------------------------------------------------------------------------- PG fields
def pg_fields(pool, pgid, field):
    import subprocess
    out = subprocess.run(["timeout", "60", "ceph", "--connect-timeout", "20", "pg", "ls-by-pool",
                          pool, "-f", "json"], check=True, capture_output=True, text=True).stdout
    d = json.loads(out)
    pgs = d["pg_stats"] if isinstance(d, dict) else d
    return {p["pgid"]: str(p[field]) for p in pgs if pgid is None or p["pgid"] == pgid}


def cmd_pg_field(a):
    for k, v in sorted(pg_fields(a.pool, a.pgid, a.field).items()):
        print(k, v)
    return 0


def cmd_pg_newer(a):
    before = dict(line.split(None, 1) for line in open(a.before).read().splitlines() if line)
    now = pg_fields(a.pool, a.pgid, a.field)
    return 0 if before and all(now.get(k, "").strip() > v.strip() for k, v in before.items()) else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sp = p.add_subparsers(dest="cmd", required=True)
    w = sp.add_parser("writer")
    w.add_argument("--pool", required=True)
    w.add_argument("--prefix", required=True)
    w.add_argument("--journal", required=True)
    w.add_argument("--stop-file", required=True)
    w.add_argument("--names", type=int, default=1000)
    w.add_argument("--threads", type=int, default=8)
    w.add_argument("--min-size", type=int, default=1)
    w.add_argument("--max-size", type=int, default=256 << 10)
    w.add_argument("--delete-ratio", type=float, default=0.0)
    w.add_argument("--seconds", type=float, default=0)
    v = sp.add_parser("verify")
    v.add_argument("--pool", required=True)
    v.add_argument("--journal", required=True, action="append")
    v.add_argument("--threads", type=int, default=8)
    b = sp.add_parser("bench-verify")
    b.add_argument("--pool", required=True)
    b.add_argument("--object-size", type=int, default=4 << 20)
    b.add_argument("--expect", type=int)
    b.add_argument("--threads", type=int, default=4)
    o = sp.add_parser("omap-xattr")
    o.add_argument("--pool", required=True)
    o.add_argument("--prefix", default="omx")
    o.add_argument("--objects", type=int, default=20)
    o.add_argument("--keys", type=int, default=5000)
    e = sp.add_parser("ec")
    e.add_argument("--pool", required=True)
    e.add_argument("--objects", type=int, default=30)
    e.add_argument("--overwrites", type=int, default=600)
    e.add_argument("--manifest", required=True)
    rb = sp.add_parser("rbd")
    rb.add_argument("--pool", required=True)
    rb.add_argument("--image", required=True)
    rb.add_argument("--base-file", required=True)
    rb.add_argument("--model-out", required=True)
    rb.add_argument("--step", choices=["overwrite", "random4k"], required=True)
    rb.add_argument("--count", type=int, default=4096)
    g = sp.add_parser("rgw")
    g.add_argument("--port", type=int, required=True)
    g.add_argument("--access", required=True)
    g.add_argument("--secret", required=True)
    g.add_argument("--bucket", default="qa-many")
    g.add_argument("--keys", type=int, default=10000)
    g.add_argument("--threads", type=int, default=16)
    g.add_argument("--pause-file")
    for nm in ("pg-field", "pg-newer"):
        x = sp.add_parser(nm)
        x.add_argument("--pool", required=True)
        x.add_argument("--pgid")
        x.add_argument("--field", default="last_deep_scrub_stamp")
        if nm == "pg-newer":
            x.add_argument("--before", required=True)
    a = p.parse_args()
    fn = {"writer": cmd_writer, "verify": cmd_verify, "bench-verify": cmd_bench_verify,
          "omap-xattr": cmd_omap_xattr, "ec": cmd_ec, "rbd": cmd_rbd, "rgw": cmd_rgw,
          "pg-field": cmd_pg_field, "pg-newer": cmd_pg_newer}[a.cmd]
    sys.exit(fn(a))


if __name__ == "__main__":
    main()
