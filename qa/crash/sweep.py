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

--hybrid: the same on hybrid drives (emulator only: realms of CMR zones, whose write pointer
only the store keeps, or SMR zones; doc/smrstore-tool.8), with `smrstore-tool convert` ops
in the kill -9 mix (killed at random instants of the command, of the realm's drain and of
the drive's conversion) and convert ops in the power-cut batches. A convert changes no
object; the model keeps every realm's domain and checks it after each point (a realm no
conversion touched keeps its domain; an acknowledged convert's realm is in its new domain;
a killed one's in its old or new one), and a killed convert is followed by a convert of the
same realm that must succeed. rebuild-meta is left out unless --hybrid-rebuild.

Prints one summary line: points tried, acknowledged objects verified, failures.
Exit 0 only with >= 1 point and 0 failures. Seeded: --seed reproduces the op sequence,
sizes, contents and delays (kill timing relative to the process is wall-clock, so not
exact); each failure keeps a copy of the crashed store as it was before verification.
"""
import argparse
import os
import platform
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import zlib

COLLS = ["1.0_head", "2.0_head"]
NAMES = ["o%02d" % i for i in range(12)]
XATTRS = ["user.a", "user.b", "_", "snapset"]
OMAP_KEYS = ["k0", "k1", "k2", "kx_long_key_" + "y" * 40]
PUT_TEMP_GEN = "736d727075740000"  # smrstore-tool put's temporary copy (store_commands.cc)
NO_GEN = "ffffffffffffffff"
OTHER = {"cmr": "smr", "smr": "cmr"}
# The engine's log lines about realm conversions (store/hybrid_manager.cc), on stderr.
RE_CONVERTING = re.compile(r"smrstore: converting realm (\d+) of drive (\d+) to (cmr|smr)"
                           r"(?: \((\d+) live bytes)?")
RE_CONVERTED = re.compile(r"smrstore: realm (\d+) of drive (\d+) is (cmr|smr) now")
RE_CONV_FAILED = re.compile(r"smrstore: (?:the drive failed converting realm (\d+) of drive (\d+)"
                            r"|conversion of realm (\d+) of drive (\d+) abandoned)")
# A thread sleeping in the emulator's conversion (emulated_zoned_device.cc: the drive's
# convert_ms is a sleep; nothing else in the engine sleeps): clock_nanosleep / nanosleep.
SLEEP_SYSCALLS = {"x86_64": {"230", "35"}, "aarch64": {"115", "101"}}.get(platform.machine(), set())


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
        # Hybrid drives.
        self.realms = {}           # (drive, realm) -> "cmr" | "smr": the model's domains
        self.dump_realms = {}      # the same, as the last dump read them (with usage)
        self.realms_checked = 0    # realm domains checked against the model, over all points
        self.converts = {"acked": 0, "refused": 0, "killed": 0, "followups": 0, "to_smr": 0,
                         "to_cmr": 0, "by_policy": 0}
        self.kill_phases = {}      # where kills in a conversion landed (log lines + /proc)
        self.cut_phases = {}       # where power cuts during a conversion landed (--trace)
        # Power cuts with writes not yet flushed (lost or torn by the cut), by the kind of
        # zone written: "cmr" (a realm's CMR zone: random-write, its write pointer is the
        # store's), "smr", "conventional" (the permanent ones); from the --trace call lines.
        self.cut_unflushed = {"cmr": 0, "smr": 0, "conventional": 0}
        self.partial_cuts = 0      # cuts FaultInjectionDevice could not finish (helper CUTFAIL)
        self.conv_span = None      # s from the engine's "converting" line to "is ... now"
        self.pending_convert = None  # realm of a killed convert: the next op converts it
        self.live_cmr = self.live_smr = 0  # live bytes in CMR / SMR realms, summed over dumps
        self.conv_begun = self.conv_begun_live = 0  # conversions begun; with data to drain
        self.large = {}            # (where, large-op label) -> count (large_label)
        # Commands whose engine log says "metadata checkpoint failed" (counted, not a failure:
        # qa/crash/README.md, "Findings", metadata larger than one zone).
        self.ckpt_failed = 0

    def large_label(self, op):
        """The large-op kind of op (--big), or None."""
        k = op["kind"]
        if k in ("setomapvals", "writes"):
            return k
        if k in ("setxattr", "setomapval") and op.get("vlen", 0) >= 10 << 10:
            return k + ">=10K"
        if k in ("put-new", "overwrite", "put") and op["new"] is not None \
                and len(op["new"].data) > zone_cap(self.a):
            return "object>zone"
        return None

    def count_large(self, where, op):
        label = self.large_label(op)
        if label:
            self.large[(where, label)] = self.large.get((where, label), 0) + 1

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
        if self.a.hybrid:
            self.specs = ["emu:%s/d%d.img?zone_kib=%d&conv=%d&realms=%d&realm_cmr=%d&realm_smr=%d"
                          "&convert_ms=%d&realm_init=%s" % (
                              self.wd, i, self.a.zone_kib, self.a.conv, self.a.realms,
                              self.a.realm_cmr, self.a.realm_smr, self.a.convert_ms,
                              self.a.realm_init) for i in range(self.a.drives)]
        else:
            self.specs = ["emu:%s/d%d.img?zones=%d&zone_kib=%d&conv=%d%s" % (
                self.wd, i, z, self.a.zone_kib, self.a.plain_conv,
                "&cap_kib=%d" % self.a.cap_kib if self.a.cap_kib else "")
                for i in range(self.a.drives)]
        self.run_ok([self.tool, "mkfs", self.store] + self.specs
                    + ["--inline-max", str(self.a.inline_max), "--max-record", str(self.a.max_record),
                       "--journal-with-data", self.a.journal_with_data,
                       "--gc-read-ahead", self.a.gc_read_ahead] + self.a.mkfs_opts)
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
        self.pending_convert = None
        # Start with a few objects so every op kind has targets.
        for i in range(6):
            self.apply_unkilled(self.gen_put(new=True))
        if self.a.hybrid:
            # The realms as mkfs left them (realm_init), from the drives through the store.
            r = self.sh([self.helper, "dump", self.store], stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, check=True)
            self.parse_dump(r.stdout.decode())
            self.realms = {k: v[0] for k, v in self.dump_realms.items()}
            if len(self.realms) != self.a.drives * self.a.realms:
                raise Failure("the new store reports %d realms, not %d" % (
                    len(self.realms), self.a.drives * self.a.realms))

    def sh(self, cmd, **kw):
        """subprocess.run with the --op-timeout: a command that hangs is a failure."""
        try:
            return subprocess.run(cmd, timeout=self.a.op_timeout, **kw)
        except subprocess.TimeoutExpired:
            raise Failure("%s: no exit within %d s (hung; killed)" % (
                " ".join(cmd[:3]), self.a.op_timeout)) from None

    def run_ok(self, cmd, stdin=None):
        r = self.sh(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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
        elif r < 0.96 or not self.a.big:
            n = self.rng.randint((64 << 10) + 1, self.a.max_obj)  # user stream, several records
        else:
            # --big: larger than a zone (its capacity), up to 1.5 zones: spans zones
            cap = zone_cap(self.a)
            n = self.rng.randint(cap + 1, cap + cap // 2)
        return self.rng.randbytes(n)

    def big_value(self):
        """A value for setxattr / setomapval: mostly small, with --big 1 time in 6 tens to
        hundreds of KiB (bounded by txn_budget: one transaction's journal record must fit
        in a zone)."""
        if self.a.big and self.rng.random() < 1 / 6:
            hi = max(10 << 10, min(self.a.big_value_max, txn_budget(self.a)))
            return self.rng.randbytes(self.rng.randint(10 << 10, hi))
        return self.rng.randbytes(self.rng.choice([0, 1, 17, 100, 300, 2000]))

    def gen_setomapvals(self, key):
        """Many omap keys in one transaction (setomapvals / the helper's omapn): 100 up to
        --max-keys keys from a keyspace of 4000 (so later ones overwrite earlier ones), whose
        total stays within txn_budget."""
        n = self.rng.randint(100, self.a.max_keys)
        vlen = self.rng.choice([0, 8, 40, 100, 200])
        n = max(1, min(n, txn_budget(self.a) // (vlen + 16)))
        st = self.model[key].copy()
        lines = []
        for i in sorted(self.rng.sample(range(4000), n)):
            k, v = "m%04d" % i, self.rng.randbytes(vlen)
            st.omap[k] = v
            lines.append("%s %s\n" % (hx(k.encode()), hx(v)))
        p = self.new_file("".join(lines).encode())
        return {"kind": "setomapvals", "key": key, "new": st,
                "argv": ["setomapvals", self.store, key[0], key[1]], "stdin": p,
                "desc": "setomapvals %s/%s %d keys of %d bytes" % (key[0], key[1], n, vlen)}

    def gen_writes(self, key):
        """One transaction of 101..260 small writes to one object (the helper's `writes`):
        more small writes in one commit group than one pack record holds (100 entries,
        format/record_format.h kMaxPackEntries)."""
        cur = bytearray(self.model[key].data)
        n = self.rng.randint(101, 260)
        base = self.rng.randint(0, max(len(cur), 4096))
        stride = self.rng.randint(2048, 6144)
        lines = []
        for i in range(n):
            off = base + i * stride + self.rng.randint(0, 1024)
            chunk = self.rng.randbytes(self.rng.randint(1, 1024))
            if off > len(cur):
                cur.extend(b"\0" * (off - len(cur)))
            cur[off:off + len(chunk)] = chunk
            lines.append("%d %s\n" % (off, hx(chunk)))
        old = self.model[key]
        p = self.new_file("".join(lines).encode())
        return {"kind": "writes", "key": key, "new": Obj(bytes(cur), old.xattrs, old.omap),
                "line": "writes %s %s %s" % (key[0], hx(key[1].encode()), p),
                "desc": "writes %s/%s %d small writes" % (key[0], key[1], n)}

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
        if self.pending_convert is not None:
            # After a killed convert, a later convert of that realm must still work.
            realm, self.pending_convert = self.pending_convert, None
            op = self.gen_convert(realm)
            op["followup"] = True
            return op
        # convert last, and weight 0 without --hybrid: the draws of the other kinds are
        # those of a sweep without it (same seed, same ops).
        kinds = ["put", "rm", "setxattr", "setomapval", "gc", "rebuild-meta", "setomapvals",
                 "convert"]
        kind = self.rng.choices(kinds, weights=[w[k] for k in kinds])[0]
        if kind in ("rm", "setxattr", "setomapval", "setomapvals") and not present:
            kind = "put"
        if kind == "convert":
            return self.gen_convert()
        if kind == "setomapvals":
            return self.gen_setomapvals(self.rng.choice(present))
        if kind == "put":
            return self.gen_put()
        if kind == "rm":
            key = self.rng.choice(present)
            return {"kind": "rm", "key": key, "new": None, "argv": ["rm", self.store, key[0], key[1]],
                    "stdin": None, "desc": "rm %s/%s" % key}
        if kind in ("setxattr", "setomapval"):
            key = self.rng.choice(present)
            st = self.model[key].copy()
            val = self.big_value()
            if kind == "setxattr":
                name = self.rng.choice(XATTRS)
                st.xattrs[name] = val
            else:
                name = self.rng.choice(OMAP_KEYS)
                st.omap[name] = val
            p = self.new_file(val)
            return {"kind": kind, "key": key, "new": st, "vlen": len(val),
                    "argv": [kind, self.store, key[0], key[1], name], "stdin": p,
                    "desc": "%s %s/%s %s (%d bytes)" % (kind, key[0], key[1], name, len(val))}
        if kind == "gc":
            return {"kind": "gc", "key": None, "new": None,
                    "argv": ["gc", self.store, "--zones", str(self.rng.randint(1, 3))],
                    "stdin": None, "desc": "gc"}
        return {"kind": "rebuild-meta", "key": None, "new": None,
                "argv": ["rebuild-meta", self.store] + self.rng.sample(self.specs, len(self.specs))
                + ["--quiet"], "stdin": None, "desc": "rebuild-meta"}

    def gen_convert(self, realm=None):
        """smrstore-tool convert of a realm into its other domain (as the model has it):
        drains the realm, then the drive converts it. Changes no object. The realm is drawn
        among those holding live data (as the last dump had them: a drain that moves
        something) 3 times in 4, else among all."""
        if realm is None:
            live = sorted(r for r in self.realms if self.dump_realms.get(r, ("", 0, 0))[2] > 0)
            pool = live if live and self.rng.random() < 0.75 else sorted(self.realms)
            realm = self.rng.choice(pool)
        to = OTHER[self.realms[realm]]
        d, r = realm
        return {"kind": "convert", "key": None, "new": None, "realm": realm, "to": to,
                "argv": ["convert", self.store, "--drive", str(d), "--realm", str(r), "--to", to],
                "line": "convert %d %d %s" % (d, r, to), "stdin": None,
                "desc": "convert drive %d realm %d %s -> %s" % (d, r, self.realms[realm], to)}

    def commit_op(self, op):
        self.acked_ops += 1
        if op["kind"] == "convert":
            self.realms[op["realm"]] = op["to"]  # a completed convert: the realm is in `to`
            self.converts["acked"] += 1
            self.converts["to_" + op["to"]] += 1
            return
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
        p = subprocess.Popen([self.tool] + op["argv"], stdin=stdin, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        if op["stdin"]:
            stdin.close()
        # Its stderr, line by line as written (the engine logs a realm conversion's steps
        # there): (seconds since the start, line); "_conv" is set at the first "converting
        # realm" line, "_conv_t" is when (monotonic).
        op["_lines"], op["_conv"], op["_conv_t"] = [], threading.Event(), None

        def read():
            for raw in p.stderr:
                now = time.monotonic()
                line = raw.decode(errors="replace").rstrip("\n")
                op["_lines"].append((now - t0, line))
                if op["_conv_t"] is None and RE_CONVERTING.search(line):
                    op["_conv_t"] = now
                    op["_conv"].set()
        op["_reader"] = threading.Thread(target=read, daemon=True)
        op["_reader"].start()
        return p, t0

    def finish(self, op, p, t0):
        try:
            p.wait(timeout=self.a.op_timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            op["_reader"].join()
            p.stderr.close()
            raise Failure("%s: no exit within %d s (hung; killed); its stderr: %s" % (
                op["desc"], self.a.op_timeout,
                " | ".join(line for _, line in op["_lines"])[-1500:])) from None
        dur = time.monotonic() - t0
        op["_reader"].join()
        p.stderr.close()
        err = "\n".join(line for _, line in op["_lines"]).strip()
        if "metadata checkpoint failed" in err:
            self.ckpt_failed += 1
        if op["kind"] == "rebuild-meta" and p.returncode not in (0, -signal.SIGKILL):
            # A rebuild that failed on its own (refused: it wrote nothing): the metadata goes
            # back, so the store stays usable for the points after the failure.
            meta = os.path.join(self.store, "meta")
            if os.path.exists(meta + ".prev"):
                shutil.rmtree(meta, ignore_errors=True)
                os.rename(meta + ".prev", meta)
        return p.returncode, dur, err

    def refused(self, op, rc, err):
        """A convert the store refused as documented (`convert --help`: exit 1; kNoSpace, its
        live data does not fit elsewhere; kBusy): no realm changed. A follow-up convert
        (after a killed one) must not be refused."""
        if op["kind"] != "convert" or rc != 1 or op.get("followup"):
            return False
        if "NoSpace:" in err or "Busy:" in err:
            self.converts["refused"] += 1
            self.logline("refused %s: %s" % (op["desc"], err.splitlines()[-1] if err else ""))
            return True
        return False

    def apply_unkilled(self, op):
        """Runs op to its end; returns True (acknowledged) or False (a documented refusal)."""
        self.logline("intent %s" % op["desc"])
        p, t0 = self.start(op)
        rc, dur, err = self.finish(op, p, t0)
        k = op["kind"]
        if rc != 0:
            if self.refused(op, rc, err):
                return False
            if k == "rebuild-meta" and self.a.hybrid and "NotSupported" in err:
                # --hybrid-rebuild on an engine whose rebuild-meta refuses hybrid drives: a
                # failure (the option asks for what is not there), then the sweep goes on
                # without rebuild-meta.
                self.a.weights["rebuild-meta"] = 0
                raise Failure("--hybrid-rebuild: rebuild-meta refuses hybrid drives on this "
                              "build (it wrote nothing; the sweep goes on without it): %s" %
                              err.splitlines()[-1])
            if op.get("followup"):
                raise Failure("a convert after a killed convert of the same realm failed "
                              "(exit %d): %s" % (rc, err))
            raise Failure("uninterrupted %s failed (exit %d): %s" % (op["desc"], rc, err))
        self.logline("ack %s %.3fs" % (op["desc"], dur))
        self.commit_op(op)
        if k == "rebuild-meta":
            shutil.rmtree(os.path.join(self.store, "meta.prev"), ignore_errors=True)
        self.calib[k] = dur if k not in self.calib else 0.7 * self.calib[k] + 0.3 * dur
        if k == "convert":
            if op.get("followup"):
                self.converts["followups"] += 1
            span = self.conversion_span(op)
            if span is not None:
                self.conv_span = span if self.conv_span is None else 0.7 * self.conv_span + 0.3 * span
        return True

    def conversion_span(self, op):
        """Seconds from the engine's "converting realm" line to its "is ... now" line: the
        drain plus the drive's conversion (None when it did not log both)."""
        t_conv = t_done = None
        for t, line in op["_lines"]:
            if t_conv is None and RE_CONVERTING.search(line):
                t_conv = t
            elif t_conv is not None and RE_CONVERTED.search(line):
                t_done = t
                break
        return None if t_done is None else t_done - t_conv

    def sleeping_threads(self, pid):
        """Whether a thread of pid sleeps (the emulated drive converting a realm: its
        convert_ms is a sleep, and nothing else in the engine sleeps)."""
        try:
            for t in os.listdir("/proc/%d/task" % pid):
                with open("/proc/%d/task/%s/syscall" % (pid, t)) as f:
                    if f.read().split(" ", 1)[0] in SLEEP_SYSCALLS:
                        return True
        except OSError:
            pass
        return False

    def kill_phase(self, op, sleeping, began, before):
        """Where a kill landed relative to a realm conversion (the op's, or the store's own),
        from the engine's log lines (all of them written before the kill: the process is
        dead), whether a thread slept in the drive's conversion at the kill (`sleeping`) or
        was seen sleeping before it (`began`), and the realm's domain after the crash
        against `before` (a convert's realm in its new domain, not logged done: the drive
        had converted it, the store had not recorded it)."""
        state = None
        for _, line in op["_lines"]:
            if RE_CONVERTING.search(line):
                state = "converting"
            elif RE_CONVERTED.search(line) or RE_CONV_FAILED.search(line):
                state = "after"
        prefix = "" if op["kind"] == "convert" else "store's own conversion: "
        if state is None:
            return "before the drain (mounting)" if op["kind"] == "convert" else None
        if state == "after":
            return prefix + "after the conversion (unmounting)"
        if op["kind"] == "convert" and self.realms.get(op["realm"]) == op["to"] != before:
            return "after the drive converted, before the store recorded it"
        if sleeping:
            return prefix + "during the drive's conversion"
        if began:
            return prefix + "at the end of the drive's conversion (not committed)"
        return prefix + "during the drain"

    def kill_point(self, n):
        self.clear_files()
        pre = self.snapshot("pre")
        op = self.gen_op()
        k = op["kind"]
        # Calibration: an op kind not yet measured, and every 8th op, runs uninterrupted;
        # so does the convert that follows a killed one.
        if op.get("followup") or k not in self.calib or self.rng.random() < 0.125:
            try:
                acked = self.apply_unkilled(op)
            except Failure as e:
                # Kept like a crash point's failure: the store before the op, and after it.
                self.fail("point %d (uninterrupted %s)" % (n, op["desc"]), str(e),
                          self.snapshot("crashed", pre))
                return False
            ctx = "point %d (uninterrupted %s, %s)" % (n, op["desc"], "acked" if acked else "refused")
            try:
                allowed = self.realm_outcome(op, "acked" if acked else "refused", killed=False)
                if k == "rebuild-meta":
                    self.verify(ctx, {}, None, rebuilt=True, realms=allowed)
                else:
                    self.verify(ctx, {}, [], realms=allowed)
                self.after_commit(op, applied=acked)
            except Failure as e:
                self.fail(ctx, str(e), self.snapshot("crashed", pre))
            return False
        # Uniform over the whole run (a bit past it), or, half the time, over its second
        # half: a tool command spends its first half loading and mounting, and its writes
        # and commit come last. A convert, four times in five, is killed instead at a
        # delay counted from an event of its conversion: "drain" (2 in 5), from the engine's
        # "converting realm" line, uniform over 1.5x the drain's estimate (the measured
        # span to its "is ... now" line less convert_ms); "drive", from the drive's
        # conversion's start (a thread of the process sleeping in it, polled in /proc),
        # uniform over convert_ms; "commit", from that start, convert_ms - 3 ms to + 12 ms:
        # around the drive's commit point and the store's record of it.
        d = self.calib[k]
        timing = "whole"
        if k == "convert" and self.conv_span is not None:
            timing = self.rng.choices(["whole", "drain", "drive", "commit"], [1, 2, 1, 1])[0]
        cms = self.a.convert_ms / 1000.0
        if timing == "whole":
            delay = self.rng.uniform(0 if self.rng.random() < 0.5 else 0.5 * d, 1.15 * d)
        elif timing == "drain":
            delay = self.rng.uniform(0, 1.5 * max(0.003, self.conv_span - cms))
        elif timing == "drive":
            delay = self.rng.uniform(0, cms)
        else:
            delay = cms + self.rng.uniform(-0.003, 0.012)
        self.logline("intent %s kill-after %.4fs%s" % (op["desc"], delay, {
            "whole": "", "drain": " after the 'converting' line",
            "drive": " after the drive's conversion began",
            "commit": " after the drive's conversion began"}[timing]))
        p, t0 = self.start(op)
        ref, began = t0, False
        if timing != "whole":
            limit = t0 + 2 * d + 1
            while not op["_conv"].wait(0.002) and p.poll() is None and time.monotonic() < limit:
                pass
            ref = op["_conv_t"] if op["_conv_t"] is not None else time.monotonic()
            if timing in ("drive", "commit") and op["_conv_t"] is not None:
                while (p.poll() is None and time.monotonic() < limit
                       and not self.sleeping_threads(p.pid)):
                    time.sleep(0.0005)
                ref = time.monotonic()
                began = p.poll() is None
        left = ref + delay - time.monotonic()
        if left > 0:
            time.sleep(left)
        sleeping = False
        if p.poll() is None:
            if self.a.hybrid:
                sleeping = self.sleeping_threads(p.pid)
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
            if k == "convert":
                self.converts["killed"] += 1
                self.pending_convert = op["realm"]
        elif self.refused(op, rc, err):
            where = "refused"
        else:
            self.fail("point %d (%s, to be killed after %.4fs)" % (n, op["desc"], delay),
                      "%s failed (exit %d, not killed): %s" % (op["desc"], rc, err),
                      self.snapshot("crashed", pre))
            return False
        self.count_large("kill -9 " + where, op)
        ctx = "point %d (kill -9 of %s after %.4fs%s, %s)" % (
            n, op["desc"], delay, {"whole": "", "drain": " from its 'converting' line",
                                   "drive": " from the drive's conversion's start",
                                   "commit": " from the drive's conversion's start"}[timing], where)
        old_state = self.model.get(op["key"]) if op["key"] is not None else None
        old_domain = self.realms.get(op["realm"]) if k == "convert" else None
        snap = self.snapshot("crashed", pre)
        try:
            if where == "killed" and k == "rebuild-meta":
                self.after_killed_rebuild(ctx)
            inflight = {} if where != "killed" or op["key"] is None else {op["key"]: (0, op)}
            if where == "killed" and k in ("put-new", "overwrite"):
                self.temp_ok.add(op["key"])
            allowed = self.realm_outcome(op, where, killed=where == "killed")
            if k == "rebuild-meta":
                self.verify(ctx, {}, None, rebuilt=True, realms=allowed)
            else:
                self.verify(ctx, inflight, [op] if inflight else [], realms=allowed)
            # A killed op took effect if its object changed to its new state (one whose new
            # state is its old one cannot be told: it stays in doubt, harmlessly).
            self.after_commit(op, applied=where == "acked" or (
                op["key"] is not None and old_state != op["new"]
                and self.model.get(op["key"]) == op["new"]))
        except Failure as e:
            self.fail(ctx, str(e), snap)
        if where == "killed" and self.a.hybrid:
            phase = self.kill_phase(op, sleeping, began, old_domain)
            if phase:
                self.kill_phases[phase] = self.kill_phases.get(phase, 0) + 1
                self.logline("  killed %s" % phase)
        return where == "killed"

    # ---- realms of hybrid drives ----
    def realm_outcome(self, op, status, killed, lines=None, own=None):
        """What the realms may be after a point. `lines`: the engine's stderr (default: op's);
        `own`: {realm: (status, to)} of the point's convert ops, status "acked" (commit_op
        has put the realm in `to`), "killed" (in flight at the crash), "refused" (unchanged)
        or "unstarted". The store's own conversions are read from its log: a realm logged
        "is X now" is X (logged after the store committed it; the drive's conversion is
        durable); one logged "converting" but not done is unchanged when the command ended
        normally (a drain in progress is dropped at unmount, an activation is waited for and
        logged) and its old or new domain after a crash. Updates self.realms with the
        definitive ones; returns {realm: allowed domains} for the others that may differ
        from the model (check_realms: every other realm must be as the model has it)."""
        if not self.a.hybrid:
            return None
        if lines is None:
            lines = [line for _, line in op.get("_lines", [])]
        if own is None:
            own = {op["realm"]: (status, op["to"])} if op["kind"] == "convert" else {}
        state = {}
        for line in lines:
            m = RE_CONVERTING.search(line)
            if m:
                state[(int(m[2]), int(m[1]))] = ("converting", m[3])
                self.conv_begun += 1
                self.conv_begun_live += 1 if m[4] and int(m[4]) > 0 else 0
                continue
            m = RE_CONVERTED.search(line)
            if m:
                state[(int(m[2]), int(m[1]))] = ("done", m[3])
                continue
            m = RE_CONV_FAILED.search(line)
            if m:
                r, d = (m[1], m[2]) if m[1] is not None else (m[3], m[4])
                state[(int(d), int(r))] = ("failed", None)
        allowed = {}
        for realm, (what, to) in state.items():
            if realm in own or realm not in self.realms:
                continue  # the op's own realm: below; an unknown realm: check_realms says so
            if what == "done":
                self.converts["by_policy"] += 1
                self.realms[realm] = to
            elif what == "converting" and killed:
                allowed[realm] = {self.realms[realm], to}
        for realm, (st, to) in own.items():
            if st == "killed":
                logged = state.get(realm)
                allowed[realm] = {to} if logged == ("done", to) else {self.realms[realm], to}
        return allowed

    def check_realms(self, ctx, allowed):
        """Every realm's domain as the dump read it: as the model has it, or one of
        `allowed`'s domains for the realms a conversion may have changed at this point.
        Then the model takes the dump's."""
        if not self.a.hybrid:
            return
        got = self.dump_realms
        errors = []
        if set(got) != set(self.realms):
            errors.append("the store reports realms %s, the model has %s" % (
                sorted(got), sorted(self.realms)))
        for realm in sorted(set(got) & set(self.realms)):
            ok = (allowed or {}).get(realm, {self.realms[realm]})
            if got[realm][0] not in ok:
                errors.append("drive %d realm %d is %s, expected %s" % (
                    realm[0], realm[1], got[realm][0], " or ".join(sorted(ok))))
        if errors:
            raise Failure("; ".join(errors))
        self.realms_checked += len(got)
        self.realms = {k: v[0] for k, v in got.items()}
        for dom, _, live in got.values():
            if dom == "cmr":
                self.live_cmr += live
            else:
                self.live_smr += live

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
            r = self.sh([self.helper, "dump", self.store, "--data", self.dumpdir],
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
        r = self.sh([self.helper, "dump", self.store, "--data", self.dumpdir],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
        got = self.parse_dump(r.stdout.decode())
        self.model = {k: v for k, v in got.items() if k[2] == NO_GEN}
        self.model = {(k[0], k[1]): v for k, v in self.model.items()}
        self.in_doubt = []
        if self.a.hybrid:
            self.realms = {k: v[0] for k, v in self.dump_realms.items()}

    # ---- verification ----
    def parse_dump(self, text):
        got = {}
        self.dump_realms = {}
        for line in text.splitlines():
            if line.startswith("realm "):
                # realm DRIVE REALM DOMAIN in_use=N live=B [converting] (hybrid drives)
                f = line.split()
                kv = dict(x.split("=", 1) for x in f[4:] if "=" in x)
                self.dump_realms[(int(f[1]), int(f[2]))] = (f[3], int(kv.get("in_use", 0)),
                                                            int(kv.get("live", 0)))
                continue
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

    def verify(self, ctx, inflight, ops, rebuilt=False, realms=None):
        r = self.sh([self.tool, "fsck", self.store, "--deep"], stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise Failure("fsck --deep not clean (exit %d): %s %s" % (
                r.returncode, r.stdout.decode(errors="replace").strip()[-800:],
                r.stderr.decode(errors="replace").strip()))
        r = self.sh([self.helper, "dump", self.store, "--data", self.dumpdir],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise Failure("mount/dump failed: %s" % r.stderr.decode(errors="replace").strip())
        got = self.parse_dump(r.stdout.decode())
        self.check_realms(ctx, realms)
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
                    if 0.45 <= r < 0.60 and present and self.a.big:
                        # Many keys, or many small writes, in one transaction.
                        key = self.rng.choice(present)
                        if key in recent:
                            continue
                        if r < 0.52:
                            op = self.gen_setomapvals(key)
                            op["line"] = "omapn %s %s %s" % (key[0], hx(key[1].encode()),
                                                             op["stdin"])
                        else:
                            op = self.gen_writes(key)
                    elif r < 0.45 or not present:
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
                        while op["kind"] in ("gc", "rebuild-meta", "put-new", "overwrite",
                                             "convert"):
                            op = self.gen_op()
                        key = op["key"]
                        if key in recent:
                            continue
                        if op["kind"] == "rm":
                            op["line"] = "rm %s %s" % (key[0], hx(key[1].encode()))
                        elif op["kind"] == "setomapvals":
                            op["line"] = "omapn %s %s %s" % (key[0], hx(key[1].encode()),
                                                             op["stdin"])
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
        if self.a.hybrid and self.rng.random() < self.a.batch_convert:
            # A realm conversion in the batch (Store::ConvertRealm on a thread of its own:
            # the ops after it run during its drain), and mostly an await-activation after
            # it, so that the ops after that run, and make device calls, while the drive
            # converts the realm: a cut at one of them lands inside the drive's conversion.
            pos = self.rng.randint(0, len(ops))
            conv = self.gen_convert()
            extra = [conv]
            if pos < len(ops) and self.rng.random() < 0.7:
                extra.append({"kind": "await", "key": None, "new": None,
                              "line": "await-activation", "desc": "await-activation"})
            ops[pos:pos] = extra
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
        when = []
        if (self.a.hybrid and any(op["kind"] == "convert" for op in ops)
                and self.rng.random() < self.a.cut_activated):
            # The cut right after the drive converted the realm, before the store recorded
            # it (smrstore-crash --cut-when activated; a window without device calls).
            cut, when = 0, ["--cut-when", "activated"]
        script = "".join(op["line"] + "\n" for op in ops)
        with open(os.path.join(self.wd, "batch.txt"), "w") as f:
            f.write(script)
        self.logline("power batch (depth %d, cut at call %d, %s, seed %d):\n%s" % (
            depth, cut, mode, seed, script))
        # Hybrid: --trace 1 lists the mutating device calls on stderr, with the engine's
        # conversion log lines between them (where the cut landed in a conversion).
        hung = False
        try:
            r = subprocess.run([self.helper, "powercut", self.store, "--cut-at", str(cut), "--mode",
                                mode, "--seed", str(seed), "--depth", str(depth)] + when
                               + (["--trace", "1"] if self.a.hybrid else []), input=script.encode(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=self.a.op_timeout)
        except subprocess.TimeoutExpired as e:  # run() killed it
            hung = True
            r = subprocess.CompletedProcess(e.cmd, -signal.SIGKILL, e.stdout or b"", e.stderr or b"")
        out = r.stdout.decode().split("\n")
        errlines = r.stderr.decode(errors="replace").splitlines()
        if any("metadata checkpoint failed" in l for l in errlines):
            self.ckpt_failed += 1
        ctx = ("point %d (power cut %s at device call %d%s, seed %d, depth %d, %d ops; "
               "batch in %s)" % (n, mode, cut, " --cut-when activated" if when else "", seed,
                                  depth, len(ops), os.path.join(self.wd, "batch.txt")))
        snap = self.snapshot("crashed", pre)
        started, acked, failed, cutline, cutfail, done = set(), set(), {}, None, None, None
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
            elif f[0] == "CUTFAIL":
                cutfail = line
            elif f[0] == "DONE":
                done = int(f[1])
        if (cutfail and r.returncode == 3 and cutline is None and done is None
                and re.search(r"realm \d+ is converting", cutfail)):
            # FaultInjectionDevice::PowerCut stopped at an unflushed write in the zones of a
            # realm that is converting (they refuse I/O): the drives are as after a cut that
            # lost only what it had undone before that (newest first; the rest, and every
            # drive after that one, survived) - a state a power cut can leave too. Verified
            # as a cut (crash_helper.cc).
            self.partial_cuts += 1
            self.logline("  partial cut: %s" % cutfail)
            cutline = "CUT " + cutfail.split()[1]
            r = subprocess.CompletedProcess(r.args, 0, r.stdout, r.stderr)
        try:
            if r.returncode != 0 or (cutline is None and done is None):
                raise Failure("smrstore-crash powercut %s: %s" % (
                    "hung (no exit within %d s; killed; ops started %s, acknowledged %s)" % (
                        self.a.op_timeout, sorted(started), sorted(acked))
                    if hung else "exit %d" % r.returncode, "\n".join(l for l in errlines
                                             if not l.startswith("call ")).strip()[-500:]))
            refused = {i for i, msg in failed.items() if ops[i]["kind"] == "convert"
                       and msg.startswith(("NoSpace:", "Busy:"))}
            self.converts["refused"] += len(refused)
            failed = {i: msg for i, msg in failed.items() if i not in refused}
            if failed:
                raise Failure("ops failed before the cut: %s" % failed)
            if done is not None:
                self.calls_per_op = 0.7 * self.calls_per_op + 0.3 * done / (len(ops) + 2)
                self.power_uncut += 1
            else:
                self.points["power"] += 1
            inflight, own = {}, {}
            for i, op in enumerate(ops):
                if i in started:
                    self.count_large("power-cut batches, run", op)
                    if done is None and i not in acked:
                        self.count_large("power-cut batches, in flight at the cut", op)
                if i in acked:
                    self.commit_op(op)
                elif i in started and op["key"] is not None:
                    inflight[op["key"]] = (i, op)
                # ops never started, and gc, change nothing the model knows
                if op["kind"] == "convert":
                    own[op["realm"]] = ("acked" if i in acked else "refused" if i in refused
                                        else "killed" if i in started else "unstarted", op["to"])
                    if own[op["realm"]][0] == "killed" and done is None:
                        self.converts["killed"] += 1
            allowed = None
            if self.a.hybrid:
                englines = [l for l in errlines if l.startswith("smrstore: ")]
                allowed = self.realm_outcome(None, None, killed=done is None, lines=englines,
                                             own=own)
                at = int(cutline.split()[1]) if cutline else 0  # the call the cut replaced
                phase = self.cut_phase(errlines, at) if done is None else None
                if phase:
                    self.cut_phases[phase] = self.cut_phases.get(phase, 0) + 1
                    self.logline("  cut %s" % phase)
                if done is None:
                    for kind in self.unflushed_at_cut(errlines, at):
                        self.cut_unflushed[kind] += 1
            self.verify(ctx, inflight, ops, realms=allowed)
            if acked or any(self.model.get(o["key"]) == o["new"] for _, o in inflight.values()):
                self.in_doubt = []
            self.in_doubt += [o for _, o in sorted(inflight.values(), key=lambda x: x[0])
                              if self.model.get(o["key"]) != o["new"]]
        except Failure as e:
            self.fail(ctx, str(e), snap)
        return done is None

    def unflushed_at_cut(self, errlines, cut):
        """The kinds of zone ("cmr", "smr", "conventional") that held writes not flushed at
        the cut (each drive's writes since its last flush), from the --trace call lines. A
        realm's zone is CMR or SMR by its zone index (the two domains are index ranges)."""
        a = self.a
        zone_size = a.zone_kib << 10
        cmr_end = a.conv + a.realms * a.realm_cmr
        pending = {}  # drive path -> kinds written since its last flush
        for line in errlines:
            if not line.startswith("call "):
                continue
            f = line.split()
            if int(f[1]) >= cut:
                break  # the cut call itself does not happen
            if f[2] == "flush":
                pending.pop(f[3], None)
            elif f[2] == "write":
                z = int(f[4]) // zone_size
                kind = "conventional" if z < a.conv else "cmr" if z < cmr_end else "smr"
                pending.setdefault(f[3], set()).add(kind)
        return set().union(*pending.values()) if pending else set()

    def cut_phase(self, errlines, cut):
        """Where power cut `cut` landed relative to a realm conversion, from the --trace call
        lines and the engine's log lines between them."""
        state = None
        for line in errlines:
            if RE_CONVERTING.search(line):
                state = "during the drain"
            elif RE_CONVERTED.search(line) or RE_CONV_FAILED.search(line):
                state = None
            elif line.startswith("call "):
                f = line.split()
                at_cut = int(f[1]) == cut
                if f[2] == "activate":
                    if at_cut:
                        return "at the drive's conversion (it never starts)"
                    state = "during the drive's conversion"
                elif f[2] == "activated":
                    if at_cut:
                        return "right after the drive's conversion (the store has not recorded it)"
                    state = "after the drive's conversion, before the store recorded it"
                elif at_cut:
                    return state
        return None

    # ---- main ----
    def run(self):
        t0 = time.monotonic()
        a = self.a
        if a.hybrid:
            print("crash sweep: seed %d, %d kill -9 points + %d power cuts, %d hybrid drive(s) "
                  "(%d conventional + %d realms of %d CMR or %d SMR zones of %g MiB, conversion "
                  "%d ms, realms start %s), rebuild-meta %s, objects up to %d bytes, work dir %s" % (
                      a.seed, a.kill_points, a.power_points, a.drives, a.conv, a.realms,
                      a.realm_cmr, a.realm_smr, a.zone_kib / 1024.0, a.convert_ms, a.realm_init,
                      "in (--hybrid-rebuild)" if a.weights["rebuild-meta"] else "left out",
                      a.max_obj, a.dir), flush=True)
        else:
            print("crash sweep: seed %d, %d kill -9 points + %d power cuts, %d drive(s) of %d x %g "
                  "MiB zones, objects up to %d bytes, work dir %s" % (
                      a.seed, a.kill_points, a.power_points, a.drives, a.zones, a.zone_kib / 1024.0,
                      a.max_obj, a.dir), flush=True)
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
        if a.hybrid:
            c = self.converts
            nd = max(1, self.realms_checked // max(1, a.drives * a.realms))
            print("hybrid: converts acknowledged %d (to smr %d, to cmr %d; %d of them the "
                  "convert after a killed one), refused %d, killed %d; conversions begun %d (%d "
                  "with live data to drain), by the store's own policy %d done; realm domains "
                  "checked %d; live bytes per check in CMR realms %.0f KiB, in SMR realms "
                  "%.0f KiB" % (
                      c["acked"], c["to_smr"], c["to_cmr"], c["followups"], c["refused"],
                      c["killed"], self.conv_begun, self.conv_begun_live, c["by_policy"],
                      self.realms_checked,
                      self.live_cmr / nd / 1024.0, self.live_smr / nd / 1024.0))
            print("hybrid: kills in a conversion: %s; power cuts in a conversion: %s; power cuts "
                  "with unflushed writes in CMR zones %d, in SMR zones %d, in the permanent "
                  "conventional zones %d; partial cuts (unflushed writes in a converting realm "
                  "the fault wrapper could not undo) %d" % (
                      ", ".join("%s %d" % kv for kv in sorted(self.kill_phases.items())) or "none",
                      ", ".join("%s %d" % kv for kv in sorted(self.cut_phases.items())) or "none",
                      self.cut_unflushed["cmr"], self.cut_unflushed["smr"],
                      self.cut_unflushed["conventional"], self.partial_cuts))
        print("commands whose engine log says 'metadata checkpoint failed': %d" % self.ckpt_failed)
        if self.large:
            wheres = sorted({w for w, _ in self.large})
            print("large ops: %s" % "; ".join("%s: %s" % (w, ", ".join(
                "%s %d" % (l, n) for (w2, l), n in sorted(self.large.items()) if w2 == w))
                for w in wheres))
        print("crash sweep summary: seed %d%s: %d points tried (%d kill -9, %d power cuts), %d "
              "acknowledged objects verified, %d failures, %.0f s (kill -9 part %.0f s)" % (
                  a.seed, (" (%s)" % a.config_name if a.config_name else "")
                  + (" (hybrid drives)" if a.hybrid else ""),
                  self.points["kill"] + self.points["power"], self.points["kill"],
                  self.points["power"], self.verified, len(self.failures), dur, t_kill), flush=True)
        if self.log:
            self.log.close()
        ok = not self.failures and self.points["kill"] + self.points["power"] > 0
        if ok and not a.keep:
            shutil.rmtree(self.root, ignore_errors=True)
        self.duration = dur
        return 0 if ok else 1

    kill_epoch_mark = -1

    def progress(self, t0):
        print("  ... %d kill -9 + %d power points, %d verified, %d failures, %.0f s" % (
            self.points["kill"], self.points["power"], self.verified, len(self.failures),
            time.monotonic() - t0), flush=True)


def zone_cap(a):
    """Bytes a zone of the drives takes (its capacity when cap_kib < zone size)."""
    return (a.cap_kib or a.zone_kib) << 10


def txn_budget(a):
    """The payload one transaction of the large ops may carry (omap keys and values, a big
    value): 1/--budget-div of a zone (default 16). A commit group's journal record (about
    twice the payload of its transactions, and an object's xattrs ride along with every
    transaction on it) must fit in one zone: a larger one turns the store read-only (`a
    record of N bytes does not fit in a zone`, an engine limit: qa/crash/README.md), which
    --budget-div 3 reaches."""
    return zone_cap(a) // a.budget_div


# Drawn configurations (--configs): drive kinds and store options.
KINDS = ["zoned", "zoned-noconv", "zoned-cap", "hybrid"]


def draw_config(seed, i):
    """Configuration i of seed (depends on nothing else: replayable alone). c0 is always
    hybrid drives with the journal records after the data; c1 plain zoned drives."""
    rng = random.Random("%d:config:%d" % (seed, i))
    kind = "hybrid" if i == 0 else "zoned" if i == 1 else rng.choice(KINDS)
    c = {"kind": kind}
    c["zone_kib"] = rng.choice([512, 1024, 2048] if kind == "hybrid" else [256, 512, 1024, 2048])
    c["jwd"] = "on" if i == 0 else rng.choice(["on", "off"])
    c["ra"] = rng.choice(["on", "off"])
    c["inline"] = rng.choice([0, 512, 4096, 16384, 65536])
    c["pack"] = rng.choice([0, 4096, 32768, 65536])
    cap_kib = 0
    if kind == "zoned-cap":
        cap_kib = c["zone_kib"] - rng.choice([1, 2]) * c["zone_kib"] // 8  # 3/4 or 7/8 of it
    c["cap_kib"] = cap_kib
    cap = (cap_kib or c["zone_kib"]) << 10
    c["rec"] = rng.choice([x for x in [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20]
                           if x <= cap // 2])
    c["pin"] = rng.choice([0, 1, 2, 4])
    c["gc"] = rng.choice(["greedy", "cost-benefit", "lifetime"])
    c["wm"] = rng.choice(["0.03:0.01:0.05", "0.05:0.02:0.1", "0.1:0.05:0.2", "0:0:0.02"])
    c["fzm"] = rng.choice([64, 2, 0])
    c["conv"] = {"zoned": rng.choice([1, 2]), "zoned-noconv": 0,
                 "zoned-cap": rng.choice([0, 1]), "hybrid": 2}[kind]
    # Checkpoints in steps (checkpoint_step; 64K: many steps with commits between them on
    # these small stores) or at once (0), from a generator of its own so that every seed's
    # other draws stay as they were.
    c["ckpt"] = random.Random("%d:config:%d:ckpt" % (seed, i)).choice([65536, 65536, 0, 1 << 20])
    # GC slices sized by time and paced by bytes written (gc_slice_ms; 0: fixed slices paced
    # by groups), from a generator of its own as well.
    c["slice"] = random.Random("%d:config:%d:slice" % (seed, i)).choice([0, 10, 150])
    # About 48 MiB per drive (hybrid: its CMR capacity, at least 6 realms).
    c["zones"] = max(24, (48 << 10) // c["zone_kib"])
    c["realms"] = max(6, (24 << 10) // (3 * c["zone_kib"]))
    return c


def config_name(i, c):
    def k(n):
        return "%dM" % (n >> 20) if n >= (1 << 20) and n % (1 << 20) == 0 else "%dK" % (n >> 10) \
            if n % 1024 == 0 and n else str(n)
    drive = ("hybrid(%d realms)" % c["realms"] if c["kind"] == "hybrid"
             else "%s(%d zones)" % (c["kind"], c["zones"]))
    return ("c%d %s zone=%s%s conv=%d jwd=%s ra=%s inline=%s pack=%s rec=%s pin=%d gc=%s "
            "wm=%s fzm=%d ckpt=%s slice=%dms" % (i, drive, k(c["zone_kib"] << 10),
                                      " cap=%s" % k(c["cap_kib"] << 10) if c["cap_kib"] else "",
                                      c["conv"], c["jwd"], c["ra"], k(c["inline"]), k(c["pack"]),
                                      k(c["rec"]), c["pin"], c["gc"], c["wm"], c["fzm"],
                                      k(c["ckpt"]), c["slice"]))


def config_args(a, i, c):
    """The sweep options of configuration i (a copy of a)."""
    b = argparse.Namespace(**vars(a))
    b.weights = dict(a.weights)
    b.config_name = config_name(i, c)
    b.seed = random.Random("%d:sweep:%d" % (a.seed, i)).getrandbits(32)
    b.dir = os.path.join(a.dir, "c%d" % i)
    b.hybrid = c["kind"] == "hybrid"
    b.zone_kib, b.cap_kib, b.zones = c["zone_kib"], c["cap_kib"], c["zones"]
    b.plain_conv = c["conv"]
    if b.hybrid:
        b.conv, b.realms = c["conv"], c["realms"]
        b.hybrid_rebuild = True
        b.weights["convert"] = 20
    b.journal_with_data, b.gc_read_ahead = c["jwd"], c["ra"]
    b.inline_max, b.max_record = c["inline"], c["rec"]
    b.mkfs_opts = a.mkfs_opts + ["--pack-max", str(c["pack"]), "--journal-pinned-zones-max",
                                 str(c["pin"]), "--gc-policy", c["gc"], "--gc-free",
                                 c["wm"], "--gc-free-zones-max", str(c["fzm"]),
                                 "--opt", "checkpoint_step=%d,gc_slice_ms=%d" % (c["ckpt"],
                                                                                 c["slice"])]
    b.big = True
    return b


def run_configs(a):
    """--configs N: one sweep per drawn configuration, then a total line."""
    t0 = time.monotonic()
    only = None
    if a.only_config:
        only = {int(x.lstrip("c")) for x in a.only_config.split(",")}
    print("crash sweep: seed %d, %d configurations (%s), %d kill -9 points + %d power cuts "
          "each, work dir %s" % (a.seed, a.configs, "only " + a.only_config if only else "all",
                                 a.kill_points, a.power_points, a.dir), flush=True)
    totals = {"points": 0, "kill": 0, "power": 0, "verified": 0, "failures": 0, "configs": 0}
    failed = []
    for i in range(a.configs):
        if only is not None and i not in only:
            continue
        b = config_args(a, i, draw_config(a.seed, i))
        print("== config %s (replay: SMRSTORE_CRASH_SEED=%d SMRSTORE_CRASH_ONLY=c%d)" % (
            b.config_name, a.seed, i), flush=True)
        os.makedirs(b.dir, exist_ok=True)
        sw = Sweep(b)
        rc = sw.run()
        totals["configs"] += 1
        totals["kill"] += sw.points["kill"]
        totals["power"] += sw.points["power"]
        totals["verified"] += sw.verified
        totals["failures"] += len(sw.failures)
        if rc:
            failed.append("c%d" % i)
    dur = time.monotonic() - t0
    print("crash sweep total: seed %d: %d configurations, %d points tried (%d kill -9, %d power "
          "cuts), %d acknowledged objects verified, %d failures%s, %.0f s" % (
              a.seed, totals["configs"], totals["kill"] + totals["power"], totals["kill"],
              totals["power"], totals["verified"], totals["failures"],
              " (in %s)" % ", ".join(failed) if failed else "", dur), flush=True)
    if not failed and not a.keep:
        shutil.rmtree(a.dir, ignore_errors=True)
    return 1 if failed or not totals["configs"] else 0


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
    ap.add_argument("--zone-kib", type=int, default=None, help="zone size in KiB (overrides "
                    "--zone-mib)")
    ap.add_argument("--cap-kib", type=int, default=0, help="zone capacity below the zone size "
                    "(plain drives; 0: none)")
    ap.add_argument("--plain-conv", type=int, default=1, help="conventional zones of plain drives")
    ap.add_argument("--inline-max", type=int, default=4096)
    ap.add_argument("--max-record", type=int, default=65536)
    ap.add_argument("--mkfs-opt", dest="mkfs_opts", action="append", default=[],
                    help="one more mkfs argument (repeat: --mkfs-opt=--pack-max --mkfs-opt=0)")
    ap.add_argument("--big", action="store_true",
                    help="large ops: setomapvals of 100..--max-keys keys, xattr / omap values "
                         "of 10 KiB..--big-value-max, objects larger than a zone; power cuts: "
                         "transactions of many keys and of 101..260 small writes")
    ap.add_argument("--max-keys", type=int, default=3000)
    ap.add_argument("--budget-div", type=int, default=16,
                    help="a large op's payload is at most zone capacity / this (see txn_budget)")
    ap.add_argument("--big-value-max", type=int, default=300 << 10)
    ap.add_argument("--configs", type=int, default=0,
                    help="draw N configurations from the seed (drive kind, zone size and "
                         "capacity, conventional zones, journal with data, read-ahead, "
                         "inline-max, pack-max, max-record, pinned zones, GC policy and "
                         "watermarks; --big on) and run the sweep on each: --kill-points and "
                         "--power-points per configuration. c0 is always hybrid drives with "
                         "the journal after the data")
    ap.add_argument("--only-config", default="", help="with --configs: only these (c0,c3)")
    ap.add_argument("--max-obj", type=int, default=600 << 10)
    ap.add_argument("--batch", type=int, default=24, help="most ops in one power-cut run")
    ap.add_argument("--epoch-points", type=int, default=250, help="points per fresh store")
    ap.add_argument("--progress", type=int, default=100, help="progress line every N points")
    ap.add_argument("--no-snapshots", dest="snapshots", action="store_false",
                    help="do not keep a copy of the crashed store for failures")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--journal-with-data", choices=["auto", "on", "off"], default="auto",
                    help="mkfs --journal-with-data: the journal records after the data "
                         "(auto: off on these emulated drives, which have no timing model)")
    ap.add_argument("--gc-read-ahead", choices=["auto", "on", "off"], default="auto",
                    help="mkfs --gc-read-ahead: idle GC reads its victims ahead (auto: off on "
                         "these emulated drives, which have no timing model)")
    ap.add_argument("--op-timeout", type=int, default=120,
                    help="seconds a command may run before it counts as hung (a failure)")
    ap.add_argument("--weight", action="append", default=[], metavar="OP=W",
                    help="kill -9 op weight, e.g. rebuild-meta=0 (ops: put rm setxattr "
                         "setomapval gc rebuild-meta setomapvals convert; defaults 40 12 14 14 "
                         "14 6 0 0; with --hybrid: rebuild-meta 0 unless --hybrid-rebuild, "
                         "convert 20; with --big or --configs: setomapvals 8)")
    h = ap.add_argument_group("hybrid drives (emulator only; doc/smrstore-tool.8)")
    h.add_argument("--hybrid", action="store_true",
                   help="hybrid drives (CMR/SMR realms), convert ops in the kill -9 mix and in "
                        "the power-cut batches, realm domains checked after every point")
    h.add_argument("--hybrid-rebuild", action="store_true",
                   help="with --hybrid: rebuild-meta ops too (default weight 6; run.sh gives "
                        "it). An engine whose rebuild-meta refuses hybrid drives (before "
                        "5e0620d) counts that as one failure and the sweep goes on without it")
    h.add_argument("--realms", type=int, default=6, help="realms per drive")
    h.add_argument("--realm-cmr", type=int, default=3, help="CMR-domain zones per realm")
    h.add_argument("--realm-smr", type=int, default=4, help="SMR-domain zones per realm")
    h.add_argument("--conv", type=int, default=2, help="permanent conventional zones (>= 2)")
    h.add_argument("--convert-ms", type=int, default=150, help="the drive's conversion time")
    h.add_argument("--realm-init", choices=["cmr", "smr"], default="cmr",
                   help="every realm's domain at mkfs")
    h.add_argument("--batch-convert", type=float, default=0.6,
                   help="fraction of power-cut batches with a convert op")
    h.add_argument("--cut-activated", type=float, default=0.2,
                   help="fraction of those cut right after the drive converted the realm")
    a = ap.parse_args()
    if a.seed is None:
        a.seed = int.from_bytes(os.urandom(4), "little")
    a.weights = {"put": 40, "rm": 12, "setxattr": 14, "setomapval": 14, "gc": 14, "rebuild-meta": 6,
                 "setomapvals": 0, "convert": 0}
    if a.hybrid_rebuild and not a.hybrid:
        ap.error("--hybrid-rebuild needs --hybrid")
    if a.hybrid:
        a.weights["convert"] = 20
        if not a.hybrid_rebuild:
            a.weights["rebuild-meta"] = 0
    for w in a.weight:
        k, _, v = w.partition("=")
        if k not in a.weights or not v.replace(".", "", 1).isdigit():
            ap.error("--weight %s: expected OP=NUMBER with OP one of %s" % (w, " ".join(a.weights)))
        a.weights[k] = float(v)
    if a.weights["convert"] and not a.hybrid:
        ap.error("convert ops need --hybrid")
    if a.hybrid and a.weights["rebuild-meta"] and not a.hybrid_rebuild:
        ap.error("rebuild-meta on hybrid drives needs --hybrid-rebuild")
    if a.dir is None:
        import tempfile
        a.dir = tempfile.mkdtemp(prefix="smrstore-crash.", dir=os.environ.get("TMPDIR", "/var/tmp"))
    os.makedirs(a.dir, exist_ok=True)
    if a.zone_kib is None:
        a.zone_kib = a.zone_mib << 10
    a.config_name = ""
    if a.configs:
        for k, v in a.weights.items():
            if k == "setomapvals" and not any(w.startswith("setomapvals=") for w in a.weight):
                a.weights[k] = 8
        sys.exit(run_configs(a))
    if a.big and not any(w.startswith("setomapvals=") for w in a.weight):
        a.weights["setomapvals"] = 8
    sys.exit(Sweep(a).run())


if __name__ == "__main__":
    main()
