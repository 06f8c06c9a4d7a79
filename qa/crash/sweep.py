#!/usr/bin/env python3
"""Crash sweep (issue 15, item 5): kill -9 at random instants and power cuts, then verify.

Two kinds of crash points, on small emulated drives (qa/crash/README.md):

* kill -9: one smrstore-tool command at a time (put of a new object, put over an existing
  one, rm, setxattr, setomapval, gc, rebuild-meta) is killed with SIGKILL after a random
  delay drawn uniformly over that command's measured duration (a bit past it, so some
  finish). The driver logs each op's intent before starting it and its ack (exit 0) after.
* power cut: smrstore-crash runs a batch of transactions (up to --depth in flight, group
  commits) on drives wrapped in FaultInjectionDevice and cuts the power at a random
  mutating device call: unflushed writes are lost (or torn), the process ends at once.

After every point: `smrstore-tool fsck --deep` must be clean; a one-mount dump
(smrstore-crash dump --data) must show every acknowledged write byte-exact (data, xattrs,
omap), every object the model says is absent absent, and each op in flight at the crash
all-or-nothing (the object's old state or its new one, never a mix; for power cuts the ops
that took effect must be a prefix of those in flight, as commits are ordered). A killed
rebuild-meta is followed by a fresh rebuild (the operator's fix) and the same checks.

Prints one summary line: points tried, acknowledged objects verified, failures.
Exit 0 only with >= 1 point and 0 failures. Seeded: --seed reproduces the op sequence,
sizes, contents and delays (kill timing relative to the process is wall-clock, so not
exact); each failure keeps a copy of the crashed store as it was before verification.
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import zlib

COLLS = ["1.0_head", "2.0_head"]
NAMES = ["o%02d" % i for i in range(12)]
XATTRS = ["user.a", "user.b", "_", "snapset"]
OMAP_KEYS = ["k0", "k1", "k2", "kx_long_key_" + "y" * 40]
PUT_TEMP_GEN = "736d727075740000"  # smrstore-tool put's temporary copy (store_commands.cc)
NO_GEN = "ffffffffffffffff"


class Failure(Exception):
    pass


def hx(b):
    return b.hex() if b else "-"


def unhx(s):
    return b"" if s == "-" else bytes.fromhex(s)


class Obj:
    __slots__ = ("data", "xattrs", "omap")

    def __init__(self, data=b"", xattrs=None, omap=None):
        self.data = data
        self.xattrs = dict(xattrs or {})
        self.omap = dict(omap or {})

    def copy(self):
        return Obj(self.data, self.xattrs, self.omap)

    def __eq__(self, o):
        return (isinstance(o, Obj) and self.data == o.data and self.xattrs == o.xattrs
                and self.omap == o.omap)

    def describe(self):
        return "size=%d crc=%08x xattrs=%s omap=%s" % (
            len(self.data), zlib.crc32(self.data), sorted(self.xattrs), sorted(self.omap))


def describe(state):
    return "absent" if state is None else state.describe()


class Sweep:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.tool = a.tool
        self.helper = a.helper
        self.root = a.dir
        self.points = {"kill": 0, "power": 0}
        self.kills_by_op = {}
        self.done_before_kill = 0
        self.verified = 0          # acknowledged objects compared byte-exact, summed over points
        self.absent_checked = 0    # objects the model says are absent, checked absent
        self.acked_ops = 0
        self.failures = []
        self.calib = {}            # op kind -> measured duration of an uninterrupted run (s)
        self.calls_per_op = 4.0    # power cuts: mutating device calls per op (learned)
        self.outcomes = {"old": 0, "new": 0}
        self.power_uncut = 0       # power-cut runs whose ops all ran before the cut
        self.log = None
        self.epoch = -1

    # ---- store set-up ----
    def new_epoch(self):
        self.epoch += 1
        self.wd = os.path.join(self.root, "epoch%03d" % self.epoch)
        shutil.rmtree(self.wd, ignore_errors=True)
        os.makedirs(self.wd)
        self.store = os.path.join(self.wd, "st")
        self.files = os.path.join(self.wd, "files")
        self.dumpdir = os.path.join(self.wd, "dump")
        os.makedirs(self.files)
        os.makedirs(self.dumpdir)
        z = self.a.zones
        self.specs = ["emu:%s/d%d.img?zones=%d&zone_mib=%d&conv=1" % (self.wd, i, z, self.a.zone_mib)
                      for i in range(self.a.drives)]
        self.run_ok([self.tool, "mkfs", self.store] + self.specs
                    + ["--inline-max", "4096", "--max-record", "65536"])
        for c in COLLS:
            self.run_ok([self.tool, "mkcoll", self.store, c])
        self.model = {}            # (coll, name) -> Obj; absent keys are absent objects
        self.temp_ok = set()       # (coll, name) whose killed put may have left its temp copy
        # Ops cut by a crash that did not take effect but whose journal record may be the
        # newest on the drives (no commit since confirmed or voided it): rebuild-meta replays
        # that record, as the drives cannot tell it from an acknowledged last commit
        # (doc/format.md, "The commit in doubt"). Any one of them may be the newest (each
        # later one may have died before its mount wrote its marker), several may be about
        # the same object; at most one comes back, whole, and only in a rebuild. An
        # acknowledged op (its mount wrote its marker at once) or a complete rebuild settles
        # them all.
        self.in_doubt = []
        self.nfile = 0
        self.log = open(os.path.join(self.wd, "ops.log"), "w")
        # Start with a few objects so every op kind has targets.
        for i in range(6):
            self.apply_unkilled(self.gen_put(new=True))

    def run_ok(self, cmd, stdin=None):
        r = subprocess.run(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise Failure("%s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                              r.stderr.decode(errors="replace").strip()))
        return r.stdout.decode(errors="replace")

    def logline(self, s):
        self.log.write(s + "\n")
        self.log.flush()

    # ---- op generation (a dict: kind, key, new state, argv, stdin file) ----
    def rand_data(self):
        r = self.rng.random()
        if r < 0.08:
            n = 0
        elif r < 0.3:
            n = self.rng.randint(1, 4096)          # inline in RocksDB
        elif r < 0.6:
            n = self.rng.randint(4097, 64 << 10)   # small-data stream
        else:
            n = self.rng.randint((64 << 10) + 1, self.a.max_obj)  # user stream, several records
        return self.rng.randbytes(n)

    def new_file(self, data):
        self.nfile += 1
        p = os.path.join(self.files, "f%d" % self.nfile)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def clear_files(self):
        for f in os.listdir(self.files):
            os.unlink(os.path.join(self.files, f))

    def existing(self):
        return sorted(self.model)

    def gen_put(self, new=None):
        absent = [(c, n) for c in COLLS for n in NAMES if (c, n) not in self.model]
        present = self.existing()
        if new is None:
            new = not present or (absent and self.rng.random() < 0.4)
        key = self.rng.choice(absent if (new and absent) else (present or absent))
        data = self.rand_data()
        old = self.model.get(key)
        st = Obj(data, old.xattrs if old else None, old.omap if old else None)
        p = self.new_file(data)
        kind = "put-new" if old is None else "overwrite"
        return {"kind": kind, "key": key, "new": st, "argv": ["put", self.store, key[0], key[1], p],
                "stdin": None, "desc": "%s %s/%s %d bytes" % (kind, key[0], key[1], len(data))}

    def gen_op(self):
        present = self.existing()
        w = self.a.weights
        kinds = ["put", "rm", "setxattr", "setomapval", "gc", "rebuild-meta"]
        kind = self.rng.choices(kinds, weights=[w[k] for k in kinds])[0]
        if kind in ("rm", "setxattr", "setomapval") and not present:
            kind = "put"
        if kind == "put":
            return self.gen_put()
        if kind == "rm":
            key = self.rng.choice(present)
            return {"kind": "rm", "key": key, "new": None, "argv": ["rm", self.store, key[0], key[1]],
                    "stdin": None, "desc": "rm %s/%s" % key}
        if kind in ("setxattr", "setomapval"):
            key = self.rng.choice(present)
            st = self.model[key].copy()
            val = self.rng.randbytes(self.rng.choice([0, 1, 17, 100, 300, 2000]))
            if kind == "setxattr":
                name = self.rng.choice(XATTRS)
                st.xattrs[name] = val
            else:
                name = self.rng.choice(OMAP_KEYS)
                st.omap[name] = val
            p = self.new_file(val)
            return {"kind": kind, "key": key, "new": st,
                    "argv": [kind, self.store, key[0], key[1], name], "stdin": p,
                    "desc": "%s %s/%s %s (%d bytes)" % (kind, key[0], key[1], name, len(val))}
        if kind == "gc":
            return {"kind": "gc", "key": None, "new": None,
                    "argv": ["gc", self.store, "--zones", str(self.rng.randint(1, 3))],
                    "stdin": None, "desc": "gc"}
        return {"kind": "rebuild-meta", "key": None, "new": None,
                "argv": ["rebuild-meta", self.store] + self.rng.sample(self.specs, len(self.specs))
                + ["--quiet"], "stdin": None, "desc": "rebuild-meta"}

    def commit_op(self, op):
        self.acked_ops += 1
        if op["key"] is None:
            return
        if op["new"] is None:
            self.model.pop(op["key"], None)
        else:
            self.model[op["key"]] = op["new"]
        if op["kind"] in ("put-new", "overwrite"):
            self.temp_ok.discard(op["key"])

    # ---- running ops ----
    def start(self, op):
        if op["kind"] == "rebuild-meta":
            meta = os.path.join(self.store, "meta")
            shutil.rmtree(meta + ".prev", ignore_errors=True)
            os.rename(meta, meta + ".prev")
        stdin = open(op["stdin"], "rb") if op["stdin"] else subprocess.DEVNULL
        t0 = time.monotonic()
        p = subprocess.Popen([self.tool] + op["argv"], stdin=stdin, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        if op["stdin"]:
            stdin.close()
        return p, t0

    def finish(self, op, p, t0):
        out, err = p.communicate()
        dur = time.monotonic() - t0
        return p.returncode, dur, err.decode(errors="replace").strip()

    def apply_unkilled(self, op):
        self.logline("intent %s" % op["desc"])
        p, t0 = self.start(op)
        rc, dur, err = self.finish(op, p, t0)
        if rc != 0:
            raise Failure("uninterrupted %s failed (exit %d): %s" % (op["desc"], rc, err))
        self.logline("ack %s %.3fs" % (op["desc"], dur))
        self.commit_op(op)
        if op["kind"] == "rebuild-meta":
            shutil.rmtree(os.path.join(self.store, "meta.prev"), ignore_errors=True)
        k = op["kind"]
        self.calib[k] = dur if k not in self.calib else 0.7 * self.calib[k] + 0.3 * dur
        return dur

    def kill_point(self, n):
        self.clear_files()
        pre = self.snapshot("pre")
        op = self.gen_op()
        k = op["kind"]
        # Calibration: an op kind not yet measured, and every 8th op, runs uninterrupted.
        if k not in self.calib or self.rng.random() < 0.125:
            self.apply_unkilled(op)
            ctx = "point %d (uninterrupted %s, acked)" % (n, op["desc"])
            try:
                if k == "rebuild-meta":
                    self.verify(ctx, {}, None, rebuilt=True)
                else:
                    self.verify(ctx, {}, [])
                self.after_commit(op, applied=True)
            except Failure as e:
                self.fail(ctx, str(e), self.snapshot("crashed", pre))
            return False
        # Uniform over the whole run (a bit past it), or, half the time, over its second
        # half: a tool command spends its first half loading and mounting, and its writes
        # and commit come last.
        d = self.calib[k]
        delay = self.rng.uniform(0 if self.rng.random() < 0.5 else 0.5 * d, 1.15 * d)
        self.logline("intent %s kill-after %.4fs" % (op["desc"], delay))
        p, t0 = self.start(op)
        left = t0 + delay - time.monotonic()
        if left > 0:
            time.sleep(left)
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
        rc, dur, err = self.finish(op, p, t0)
        if rc == 0:
            self.logline("ack %s %.3fs (finished before the kill)" % (op["desc"], dur))
            self.done_before_kill += 1
            self.commit_op(op)
            if k == "rebuild-meta":
                shutil.rmtree(os.path.join(self.store, "meta.prev"), ignore_errors=True)
            where = "acked"
        elif rc == -signal.SIGKILL:
            self.logline("killed %s after %.4fs" % (op["desc"], dur))
            self.points["kill"] += 1
            self.kills_by_op[k] = self.kills_by_op.get(k, 0) + 1
            where = "killed"
        else:
            raise Failure("%s failed (exit %d, not killed): %s" % (op["desc"], rc, err))
        ctx = "point %d (kill -9 of %s after %.4fs, %s)" % (n, op["desc"], delay, where)
        old_state = self.model.get(op["key"]) if op["key"] is not None else None
        snap = self.snapshot("crashed", pre)
        try:
            if where == "killed" and k == "rebuild-meta":
                self.after_killed_rebuild(ctx)
            inflight = {} if where == "acked" or op["key"] is None else {op["key"]: (0, op)}
            if where == "killed" and k in ("put-new", "overwrite"):
                self.temp_ok.add(op["key"])
            if k == "rebuild-meta":
                self.verify(ctx, {}, None, rebuilt=True)
            else:
                self.verify(ctx, inflight, [op] if inflight else [])
            # A killed op took effect if its object changed to its new state (one whose new
            # state is its old one cannot be told: it stays in doubt, harmlessly).
            self.after_commit(op, applied=where == "acked" or (
                op["key"] is not None and old_state != op["new"]
                and self.model.get(op["key"]) == op["new"]))
        except Failure as e:
            self.fail(ctx, str(e), snap)
        return where == "killed"

    def compare_rebuilt(self, got, ctx, count=True):
        """A store rebuilt by rebuild-meta: the acknowledged state, or that state with exactly
        one op in doubt applied whole (the newest journal record, whichever op wrote it:
        every op killed after it may have died before its mount wrote its marker). Never two,
        never part of one. Two ops in doubt on one object are two candidates."""
        first = None
        for cand in [None] + self.in_doubt[::-1]:
            saved = (self.verified, self.absent_checked, dict(self.outcomes), self.acked_ops)
            try:
                self.compare(got, {} if cand is None else {cand["key"]: (0, cand)}, ctx,
                             count=count, ordered=False)
            except Failure as e:
                self.verified, self.absent_checked, self.outcomes, self.acked_ops = saved
                first = first or e
                continue
            if cand is not None and self.model.get(cand["key"]) == cand["new"]:
                self.in_doubt = []  # it came back: committed now (compare committed it)
            return
        raise Failure("%s (nor is the store that state with one op in doubt applied: %s)" % (
            first, "; ".join(o["desc"] for o in self.in_doubt) or "none in doubt"))

    def after_commit(self, op, applied):
        """Keeps self.in_doubt: an op that took effect (its mount wrote a marker at once, since
        a85da55, which voids the records its database lacks, or it committed) settles the
        records before it, gc included; so does a complete rebuild (it replayed the one in
        doubt or none, and a later rebuild reads the same records); an op with an object cut
        before it took effect joins them; a killed gc (perhaps without a marker) changes
        nothing."""
        if op["kind"] == "rebuild-meta" or applied:
            self.in_doubt = []
        elif op["key"] is not None:
            self.in_doubt.append(op)

    def after_killed_rebuild(self, ctx):
        """A killed rebuild-meta: what it left must not mount as a partial store; the fix
        (remove it, rebuild again) must give the whole store back."""
        meta = os.path.join(self.store, "meta")
        problem = None
        if os.path.exists(meta):
            r = subprocess.run([self.helper, "dump", self.store, "--data", self.dumpdir],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if r.returncode == 0:
                # It mounted: then it must be the complete store (checked as any other).
                try:
                    # A complete rebuild killed before it exited may apply one op in doubt.
                    self.compare_rebuilt(self.parse_dump(r.stdout.decode()), ctx, count=False)
                except Failure as e:
                    problem = ("a killed rebuild-meta left a metadata directory that mounts "
                               "but differs: %s" % e)
            shutil.rmtree(meta)
        self.run_ok([self.tool, "rebuild-meta", self.store] + self.specs + ["--quiet"])
        shutil.rmtree(meta + ".prev", ignore_errors=True)
        if problem:
            raise Failure(problem)

    def snapshot(self, what, pre=None):
        """A copy of the store and its drives: "pre" before a point's op, "crashed" right
        after the crash, before any verification; both are kept for a failure."""
        if not self.a.snapshots:
            return None
        snap = os.path.join(self.wd, "snap", what)
        shutil.rmtree(snap, ignore_errors=True)
        os.makedirs(snap)
        subprocess.run(["cp", "-a", "--sparse=always", self.store] +
                       [s.split(":", 1)[1].split("?")[0] for s in self.specs] + [snap], check=True)
        return os.path.join(self.wd, "snap")

    def fail(self, ctx, msg, snap):
        n = len(self.failures)
        line = "FAIL %s: %s" % (ctx, msg)
        print(line, flush=True)
        self.logline(line)
        kept = ""
        if snap:
            kept = os.path.join(self.root, "failure%d" % n)
            shutil.rmtree(kept, ignore_errors=True)
            os.rename(snap, kept)
            shutil.copy(os.path.join(self.wd, "ops.log"), kept)
            if os.path.exists(os.path.join(self.wd, "batch.txt")):
                shutil.copy(os.path.join(self.wd, "batch.txt"), kept)
            shutil.copytree(self.files, os.path.join(kept, "files"))
            print("  kept in %s: pre/ (the store before the point's op), crashed/ (right after "
                  "the crash), ops.log; the drive specs name %s, so copy one of them back there "
                  "to reproduce (smrstore-tool fsck %s --deep; smrstore-crash dump %s)" %
                  (kept, self.wd, self.store, self.store), flush=True)
        self.failures.append(line)
        # Re-read the store's state into the model so later points test from where it is.
        try:
            self.resync()
        except Exception as e:  # the store is unusable: start a new one
            print("  store unusable after the failure (%s): new store" % e, flush=True)
            self.log.close()
            self.new_epoch()

    def resync(self):
        r = subprocess.run([self.helper, "dump", self.store, "--data", self.dumpdir],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
        got = self.parse_dump(r.stdout.decode())
        self.model = {k: v for k, v in got.items() if k[2] == NO_GEN}
        self.model = {(k[0], k[1]): v for k, v in self.model.items()}
        self.in_doubt = []

    # ---- verification ----
    def parse_dump(self, text):
        got = {}
        for line in text.splitlines():
            if not line.startswith("obj "):
                continue
            f = line.split()
            coll, name, gen = f[1], unhx(f[2]).decode(), f[3]
            kv = dict(x.split("=", 1) for x in f[4:])
            if "error" in kv:
                raise Failure("%s/%s: read failed: %s" % (coll, name,
                                                          unhx(kv["error"]).decode(errors="replace")))
            if "ERR" in (kv["hdr"], kv["xattrs"], kv["omap"]):
                raise Failure("%s/%s: attribute or omap read failed" % (coll, name))
            path = os.path.join(self.dumpdir, "%s.%s.%s" % (coll, f[2], gen))
            data = None
            if os.path.exists(path):
                with open(path, "rb") as fh:
                    data = fh.read()
                os.unlink(path)
            if data is None or len(data) != int(kv["size"]) or zlib.crc32(data) != int(kv["crc"]):
                data = ("size=%s crc=%s" % (kv["size"], kv["crc"])).encode() if data is None else data
            xs = {} if kv["xattrs"] == "-" else dict(
                (unhx(a).decode(), unhx(b)) for a, b in (x.split(":") for x in kv["xattrs"].split(",")))
            om = {} if kv["omap"] == "-" else dict(
                (unhx(a).decode(), unhx(b)) for a, b in (x.split(":") for x in kv["omap"].split(",")))
            got[(coll, name, gen)] = Obj(data, xs, om)
        if not text.rstrip().splitlines() or not text.rstrip().splitlines()[-1].startswith("end "):
            raise Failure("dump incomplete")
        return got

    def verify(self, ctx, inflight, ops, rebuilt=False):
        r = subprocess.run([self.tool, "fsck", self.store, "--deep"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise Failure("fsck --deep not clean (exit %d): %s %s" % (
                r.returncode, r.stdout.decode(errors="replace").strip()[-800:],
                r.stderr.decode(errors="replace").strip()))
        r = subprocess.run([self.helper, "dump", self.store, "--data", self.dumpdir],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise Failure("mount/dump failed: %s" % r.stderr.decode(errors="replace").strip())
        got = self.parse_dump(r.stdout.decode())
        if rebuilt:
            self.compare_rebuilt(got, ctx)
        else:
            self.compare(got, inflight, ctx, ordered=ops is not None)

    def compare(self, got, inflight, ctx, count=True, ordered=True):
        """inflight: key -> (position among the ops in flight, op). Updates the model with
        each in-flight op's outcome."""
        errors = []
        heads = {(c, n): v for (c, n, g), v in got.items() if g == NO_GEN}
        for (c, n, g) in got:
            if g == NO_GEN:
                continue
            if g == PUT_TEMP_GEN and (c, n) in self.temp_ok:
                continue  # a killed put's temporary copy (documented; the next put removes it)
            errors.append("unexpected object %s/%s generation %s" % (c, n, g))
        applied = {}
        for key in set(heads) | set(self.model) | set(inflight) | set(
                (c, n) for c in COLLS for n in NAMES):
            have = heads.get(key)
            old = self.model.get(key)
            if key in inflight:
                pos, op = inflight[key]
                new = op["new"]
                if have == old:
                    applied[pos] = False
                elif have == new:
                    applied[pos] = True
                else:
                    errors.append("%s/%s (in flight: %s) is neither its old state [%s] nor its "
                                  "new one [%s]: [%s]" % (key[0], key[1], op["desc"], describe(old),
                                                          describe(new), describe(have)))
                continue
            if have != old:
                errors.append("%s/%s acknowledged as [%s], reads back [%s]" % (
                    key[0], key[1], describe(old), describe(have)))
            elif count:
                if old is None:
                    self.absent_checked += 1
                else:
                    self.verified += 1
        # Ops in flight that took effect must be a prefix of them (commits are ordered).
        if ordered and applied and len(inflight) > 1:
            seq = [applied[p] for p in sorted(applied)]
            if True in seq and False in seq[:max(i for i, x in enumerate(seq) if x)]:
                errors.append("ops in flight took effect out of order: %s" % seq)
        if errors:
            raise Failure("; ".join(errors[:6]) + (" (+%d more)" % (len(errors) - 6)
                                                   if len(errors) > 6 else ""))
        for pos, op in ((p, o) for p, o in inflight.values()):
            if applied.get(pos):
                self.commit_op(op)
                self.outcomes["new"] += 1
            else:
                self.outcomes["old"] += 1

    # ---- power cuts ----
    def gen_batch(self, depth):
        """Ops for one power-cut run: no object twice within `depth` ops (so at most one op
        per object is in flight: callbacks run in order), applied to a scratch model."""
        saved, ops, recent = self.model, [], []
        self.model = {k: v.copy() for k, v in saved.items()}
        try:
            for _ in range(self.rng.randint(4, self.a.batch)):
                for _try in range(20):
                    r = self.rng.random()
                    present = self.existing()
                    if r < 0.08:
                        ops.append({"kind": "gc", "key": None, "new": None,
                                    "line": "gc %d" % self.rng.randint(1, 3), "desc": "gc"})
                        recent = []
                        break
                    if r < 0.45 or not present:
                        op = self.gen_put()
                        key = op["key"]
                        if key in recent:
                            continue
                        if op["kind"] == "overwrite" and self.rng.random() < 0.4 and op["new"].data:
                            # a partial overwrite instead of a whole replace
                            cur = self.model[key].data
                            off = self.rng.randint(0, len(cur))
                            chunk = self.rng.randbytes(self.rng.randint(1, 200000))
                            data = cur[:off] + chunk + cur[off + len(chunk):]
                            op["new"] = Obj(data, op["new"].xattrs, op["new"].omap)
                            p = self.new_file(chunk)
                            op["line"] = "write %s %s %d %s" % (key[0], hx(key[1].encode()), off, p)
                            op["kind"], op["desc"] = "write", "write %s/%s %d+%d" % (key[0], key[1], off, len(chunk))
                        else:
                            op["line"] = "put %s %s %s" % (key[0], hx(key[1].encode()), op["argv"][4])
                            op["kind"] = "put"
                    else:
                        op = self.gen_op()
                        while op["kind"] in ("gc", "rebuild-meta", "put-new", "overwrite"):
                            op = self.gen_op()
                        key = op["key"]
                        if key in recent:
                            continue
                        if op["kind"] == "rm":
                            op["line"] = "rm %s %s" % (key[0], hx(key[1].encode()))
                        else:
                            name = op["argv"][4]
                            with open(op["stdin"], "rb") as fh:
                                val = fh.read()
                            op["line"] = "%s %s %s %s %s" % (
                                "setattr" if op["kind"] == "setxattr" else "omap", key[0],
                                hx(key[1].encode()), hx(name.encode()), hx(val))
                    ops.append(op)
                    recent = (recent + [key])[-(depth - 1):] if depth > 1 else []
                    self.commit_scratch(op)
                    break
        finally:
            self.model = saved
        return ops

    def commit_scratch(self, op):
        if op["key"] is None:
            return
        if op["new"] is None:
            self.model.pop(op["key"], None)
        else:
            self.model[op["key"]] = op["new"]

    def power_point(self, n):
        depth = self.rng.choice([1, 2, 4, 8])
        self.clear_files()
        pre = self.snapshot("pre")
        ops = self.gen_batch(depth)
        est = max(4, int(self.calls_per_op * (len(ops) + 2) * 1.1))
        cut = self.rng.randint(1, est)
        mode = self.rng.choice(["lose", "torn"])
        seed = self.rng.getrandbits(32)
        script = "".join(op["line"] + "\n" for op in ops)
        with open(os.path.join(self.wd, "batch.txt"), "w") as f:
            f.write(script)
        self.logline("power batch (depth %d, cut at call %d, %s, seed %d):\n%s" % (
            depth, cut, mode, seed, script))
        r = subprocess.run([self.helper, "powercut", self.store, "--cut-at", str(cut), "--mode", mode,
                            "--seed", str(seed), "--depth", str(depth)], input=script.encode(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out = r.stdout.decode().split("\n")
        ctx = ("point %d (power cut %s at device call %d, seed %d, depth %d, %d ops; "
               "batch in %s)" % (n, mode, cut, seed, depth, len(ops),
                                  os.path.join(self.wd, "batch.txt")))
        snap = self.snapshot("crashed", pre)
        started, acked, failed, cutline, done = set(), set(), {}, None, None
        for line in out:
            f = line.split(" ", 2)
            if f[0] == "S":
                started.add(int(f[1]))
            elif f[0] == "A":
                acked.add(int(f[1]))
            elif f[0] == "F":
                failed[int(f[1])] = f[2] if len(f) > 2 else ""
            elif f[0] == "CUT":
                cutline = line
            elif f[0] == "DONE":
                done = int(f[1])
        try:
            if r.returncode != 0 or (cutline is None and done is None):
                raise Failure("smrstore-crash powercut exit %d: %s" % (
                    r.returncode, r.stderr.decode(errors="replace").strip()[-500:]))
            if failed:
                raise Failure("ops failed before the cut: %s" % failed)
            if done is not None:
                self.calls_per_op = 0.7 * self.calls_per_op + 0.3 * done / (len(ops) + 2)
                self.power_uncut += 1
            else:
                self.points["power"] += 1
            inflight = {}
            for i, op in enumerate(ops):
                if i in acked:
                    self.commit_op(op)
                elif i in started and op["key"] is not None:
                    inflight[op["key"]] = (i, op)
                # ops never started, and gc, change nothing the model knows
            self.verify(ctx, inflight, ops)
            if acked or any(self.model.get(o["key"]) == o["new"] for _, o in inflight.values()):
                self.in_doubt = []
            self.in_doubt += [o for _, o in sorted(inflight.values(), key=lambda x: x[0])
                              if self.model.get(o["key"]) != o["new"]]
        except Failure as e:
            self.fail(ctx, str(e), snap)
        return done is None

    # ---- main ----
    def run(self):
        t0 = time.monotonic()
        a = self.a
        print("crash sweep: seed %d, %d kill -9 points + %d power cuts, %d drive(s) of %d x %d MiB "
              "zones, objects up to %d bytes, work dir %s" % (
                  a.seed, a.kill_points, a.power_points, a.drives, a.zones, a.zone_mib, a.max_obj,
                  a.dir), flush=True)
        n = 0
        per_epoch = a.epoch_points
        while self.points["kill"] < a.kill_points:
            if self.epoch < 0 or (self.points["kill"] and self.points["kill"] % per_epoch == 0 and
                                  self.kill_epoch_mark != self.points["kill"]):
                self.kill_epoch_mark = self.points["kill"]
                if self.log:
                    self.log.close()
                self.new_epoch()
            n += 1
            try:
                self.kill_point(n)
            except (Failure, OSError, subprocess.SubprocessError) as e:
                self.fail("point %d" % n, str(e), None)
            if a.progress and n % a.progress == 0:
                self.progress(t0)
        t_kill = time.monotonic() - t0
        if a.power_points:
            if self.log:
                self.log.close()
            self.new_epoch()
            mark = 0
            while self.points["power"] < a.power_points:
                if self.points["power"] and self.points["power"] % per_epoch == 0 and mark != self.points["power"]:
                    mark = self.points["power"]
                    self.log.close()
                    self.new_epoch()
                n += 1
                try:
                    self.power_point(n)
                except (Failure, OSError, subprocess.SubprocessError) as e:
                    self.fail("point %d" % n, str(e), None)
                if a.progress and n % a.progress == 0:
                    self.progress(t0)
        dur = time.monotonic() - t0
        print("kills landed by op: %s; ops that finished before their kill: %d; in-flight ops "
              "found applied %d, not applied %d; absent objects checked %d; %d ops acknowledged; "
              "power-cut runs that ended before their cut %d" % (
                  ", ".join("%s %d" % kv for kv in sorted(self.kills_by_op.items())),
                  self.done_before_kill, self.outcomes["new"], self.outcomes["old"],
                  self.absent_checked, self.acked_ops, self.power_uncut))
        print("crash sweep summary: seed %d: %d points tried (%d kill -9, %d power cuts), %d "
              "acknowledged objects verified, %d failures, %.0f s (kill -9 part %.0f s)" % (
                  a.seed, self.points["kill"] + self.points["power"], self.points["kill"],
                  self.points["power"], self.verified, len(self.failures), dur, t_kill), flush=True)
        if self.log:
            self.log.close()
        ok = not self.failures and self.points["kill"] + self.points["power"] > 0
        if ok and not a.keep:
            shutil.rmtree(self.root, ignore_errors=True)
        return 0 if ok else 1

    kill_epoch_mark = -1

    def progress(self, t0):
        print("  ... %d kill -9 + %d power points, %d verified, %d failures, %.0f s" % (
            self.points["kill"], self.points["power"], self.verified, len(self.failures),
            time.monotonic() - t0), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", required=True)
    ap.add_argument("--helper", required=True, help="smrstore-crash (build/qa/crash/)")
    ap.add_argument("--kill-points", type=int, default=1000)
    ap.add_argument("--power-points", type=int, default=200)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--dir", default=None, help="work directory (default: a new one in $TMPDIR)")
    ap.add_argument("--drives", type=int, default=2)
    ap.add_argument("--zones", type=int, default=24)
    ap.add_argument("--zone-mib", type=int, default=2)
    ap.add_argument("--max-obj", type=int, default=600 << 10)
    ap.add_argument("--batch", type=int, default=24, help="most ops in one power-cut run")
    ap.add_argument("--epoch-points", type=int, default=250, help="points per fresh store")
    ap.add_argument("--progress", type=int, default=100, help="progress line every N points")
    ap.add_argument("--no-snapshots", dest="snapshots", action="store_false",
                    help="do not keep a copy of the crashed store for failures")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--weight", action="append", default=[], metavar="OP=W",
                    help="kill -9 op weight, e.g. rebuild-meta=0 (ops: put rm setxattr "
                         "setomapval gc rebuild-meta; defaults 40 12 14 14 14 6)")
    a = ap.parse_args()
    if a.seed is None:
        a.seed = int.from_bytes(os.urandom(4), "little")
    if a.dir is None:
        import tempfile
        a.dir = tempfile.mkdtemp(prefix="smrstore-crash.", dir=os.environ.get("TMPDIR", "/var/tmp"))
    a.weights = {"put": 40, "rm": 12, "setxattr": 14, "setomapval": 14, "gc": 14, "rebuild-meta": 6}
    for w in a.weight:
        k, _, v = w.partition("=")
        if k not in a.weights or not v.replace(".", "", 1).isdigit():
            ap.error("--weight %s: expected OP=NUMBER with OP one of %s" % (w, " ".join(a.weights)))
        a.weights[k] = float(v)
    os.makedirs(a.dir, exist_ok=True)
    sys.exit(Sweep(a).run())


if __name__ == "__main__":
    main()
