"""`ceph-volume smrstore check-ceph`: may smrstore OSDs run on this ceph-osd build?

Contract
  command(argv, cluster) checks each binary (--binary, repeatable; default /usr/bin/ceph-osd
  and /usr/bin/ceph-objectstore-tool, with --osd-id only /usr/bin/ceph-osd) and returns 0
  when smrstore OSDs may run on every one, 1 when they must not (2: usage, from argparse).
  Per binary, three checks:
    preload  the preload library's own verdict, run inside the binary
             (SMRSTORE_PRELOAD_SELFTEST=state LD_PRELOAD=<library>, selftest.cc): a known
             build-id, the bytes at ObjectStore::create as recorded, both patches in place;
    vtables  the Pacific vtables our vtables were verified against, read from the binary's
             relocations, slot by slot against the record (abi/expected.py);
    layouts  only with the binary's debug info installed (ceph-osd-dbg): its type layouts
             against the recorded ones; else "not checked (ceph-osd-dbg not installed)".
             Reading them runs gdb for minutes the first time per build-id (then cached in
             /var/cache/smrstore/abi); with --osd-id only a cached result is used.
  Any failure refuses: ONE line on stderr, `check-ceph: BINARY VERSION build-id ID <why>:
  smrstore OSDs must not start on it (doc/operations.md, "Upgrades")`; without --quiet the
  checks are listed on stdout first (or the JSON document with --format json).
  --osd-id N is the systemd drop-in's ExecStartPre (osd.dropin_text). On refusal it appends
  the line to the OSD's own log (`ceph-conf --lookup log_file` for osd.N, else
  /var/log/ceph/CLUSTER-osd.N.log) and records it for the cluster with the OSD's own key
  (OSD_DATA/keyring, /var/lib/ceph/osd/CLUSTER-N/keyring by default, else the keyring its
  configuration names; `profile osd`): config-key
  daemon-private/osd.N/smrstore/check-ceph, the only place that key may write which the mgr
  can read (its `profile osd` mon caps allow config-key get/set under daemon-private/osd.N/
  and nothing else: no `log`, no other key, not even `config-key rm`; client.bootstrap-osd
  may write no config-key at all — qa/ceph/0010_check_ceph.sh shows each). The smrstore mgr
  module raises SMRSTORE_OSD_REFUSED from it. When a later check passes, the entry is
  overwritten with state "passed" (the OSD key cannot delete it). Reporting is bounded
  (--connect-timeout 5, 20 s per command) and never changes the verdict: a refusal stays
  exit 1 when the monitors cannot be reached, and says so in the OSD log.
Nothing else is changed: the binary runs only in self-test mode (its main() is not run).
Thread safety: none needed (one process).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from . import paths
from .abi import expected
from .abi.vtable_slots import ToolError, build_id

DEFAULT_BINARIES = ("/usr/bin/ceph-osd", "/usr/bin/ceph-objectstore-tool")
WHERE = '(doc/operations.md, "Upgrades")'
MUST_NOT = "smrstore OSDs must not start on it " + WHERE
REFUSAL_KEY = "daemon-private/osd.%s/smrstore/check-ceph"
SELFTEST_TIMEOUT = 120
CEPH_TIMEOUT = 20

_STATE_RE = re.compile(r"^selftest: (?P<exe>\S+) build-id (?P<bid>\S*) known=(?P<known>\d) "
                       r"option_patched=(?P<opt>\d) create_patched=(?P<create>\d)"
                       r"(?: refusal: (?P<refusal>.*))?$")


@dataclass
class Preload:
    """The preload library's verdict inside one binary (selftest.cc, mode state)."""
    ran: bool = False            # its self-test line was printed
    known: bool = False          # build-id in its table
    option_patched: bool = False
    create_patched: bool = False
    refusal: str = ""
    exit_status: Optional[int] = None
    output: List[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.ran and self.exit_status == 0 and self.option_patched and self.create_patched


@dataclass
class Verdict:
    binary: str
    version: str = "?"
    build_id: str = ""
    preload: Preload = field(default_factory=Preload)
    checks: List[expected.Check] = field(default_factory=list)
    reason: str = ""             # the one line, when it must not run

    @property
    def may_run(self) -> bool:
        return not self.reason


# --- the checks -----------------------------------------------------------------------------

def ceph_version(binary: str) -> str:
    """The installed package's version (16.2.15+ds-0+deb12u2), else '16.2.15' from `BINARY
    --version` (a copy, an extracted .deb), else '?'."""
    pkg, version = expected.owner_package(binary)
    if version:
        return version
    try:
        p = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60,
                           env=_clean_env())
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    m = re.search(r"ceph version (\S+)", p.stdout + p.stderr)
    return m.group(1) if m else "?"


def _clean_env() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_PRELOAD", "SMRSTORE_PRELOAD_SELFTEST", "SMRSTORE_PRELOAD_VERBOSE")}
    return env


def parse_selftest(out: str, status: Optional[int]) -> Preload:
    pre = Preload(exit_status=status, output=out.splitlines()[-20:])
    for line in out.splitlines():
        m = _STATE_RE.match(line.strip())
        if m:
            pre.ran = True
            pre.known = m.group("known") == "1"
            pre.option_patched = m.group("opt") == "1"
            pre.create_patched = m.group("create") == "1"
            pre.refusal = (m.group("refusal") or "").strip()
    return pre


def run_preload(binary: str, library: str) -> Preload:
    env = _clean_env()
    env.update(SMRSTORE_PRELOAD_SELFTEST="state", LD_PRELOAD=library)
    try:
        p = subprocess.run([binary], capture_output=True, text=True, timeout=SELFTEST_TIMEOUT,
                           env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return Preload(output=["no answer within %d s" % SELFTEST_TIMEOUT])
    except OSError as e:
        return Preload(output=[str(e)])
    return parse_selftest(p.stdout + p.stderr, p.returncode)


def preload_summary(pre: Preload, library: str) -> str:
    if pre.ok:
        return ("a build-id it knows; osd_objectstore accepts smrstore and ObjectStore::create "
                "is redirected (%s)" % library)
    if not pre.ran:
        if not os.path.exists(library):
            return "the preload library %s is missing (is smrstore installed?)" % library
        said = [x for x in pre.output if "ld.so" in x] or pre.output[-1:]
        return "the preload library %s did not run in it%s" % (
            library, (" (%s)" % said[0].strip()) if said else "")
    if not pre.known:
        return "refused: not a build-id it knows"
    return "refused: " + (pre.refusal or "not patched (exit %s)" % pre.exit_status)


def refusal_line(v: Verdict, library: str) -> str:
    """The one line, or '' when smrstore OSDs may run on v.binary."""
    who = "check-ceph: %s %s build-id %s" % (v.binary, v.version, v.build_id or "none")
    pre = v.preload
    if not os.path.exists(v.binary):
        return "check-ceph: %s: no such file: %s" % (v.binary, MUST_NOT)
    if not pre.ran:
        return "%s: %s: %s" % (who, preload_summary(pre, library), MUST_NOT)
    if not pre.known:
        return "%s is not a build smrstore was verified against: %s" % (who, MUST_NOT)
    if not pre.ok:
        return "%s: the preload library refuses it (%s): %s" % (
            who, pre.refusal or "not patched", MUST_NOT)
    for c in v.checks:
        if c.status == "differ":
            return "%s: its %s differ from those smrstore was verified against (%d: %s): %s" % (
                who, c.name, len(c.lines), c.first, MUST_NOT)
        if c.status == "error" and c.name == "vtables":
            return "%s: its vtables could not be checked (%s): %s" % (who, c.first, MUST_NOT)
    return ""


def check_binary(binary: str, library: str, read_debug_info: bool = True) -> Verdict:
    v = Verdict(binary)
    if os.path.exists(binary):
        v.version = ceph_version(binary)
        try:
            v.build_id = build_id(binary) or ""
        except ToolError:
            v.build_id = ""
        v.preload = run_preload(binary, library)
        v.checks = [expected.check_vtables(binary), expected.check_layouts(binary, read_debug_info)]
    v.reason = refusal_line(v, library)
    return v


# --- reporting --------------------------------------------------------------------------------

def plain(v: Verdict, library: str) -> List[str]:
    lines = ["%s: ceph %s, build-id %s" % (v.binary, v.version, v.build_id or "none")]
    if os.path.exists(v.binary):
        lines.append("  preload: " + preload_summary(v.preload, library))
    for c in v.checks:
        lines.append("  %s: %s" % (c.name, c.summary))
        lines += ["    " + x for x in c.lines[:20]]
    if v.may_run:
        lines.append("check-ceph: %s: smrstore OSDs may run on it" % v.binary)
    return lines


def to_json(verdicts: List[Verdict]) -> Dict[str, Any]:
    out = []
    for v in verdicts:
        d = asdict(v)
        d["may_run"] = v.may_run
        d["preload"]["ok"] = v.preload.ok
        out.append(d)
    return {"may_run": all(v.may_run for v in verdicts), "binaries": out,
            "reasons": [v.reason for v in verdicts if v.reason]}


def osd_setting(cluster: str, osd_id: str, option: str, default: str) -> str:
    """An option of osd.N as its configuration gives it (`ceph-conf --lookup`: the cluster's
    conf, or $CEPH_CONF), else default."""
    try:
        p = subprocess.run(["ceph-conf", "--cluster", cluster, "--name", "osd.%s" % osd_id,
                            "--lookup", option], capture_output=True, text=True, timeout=30)
        if p.returncode == 0 and p.stdout.strip().startswith("/"):
            return p.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        pass
    return default


def osd_log_path(cluster: str, osd_id: str) -> str:
    """The OSD's own log file."""
    return osd_setting(cluster, osd_id, "log_file",
                       "/var/log/ceph/%s-osd.%s.log" % (cluster, osd_id))


def append_log(path: str, line: str) -> Optional[str]:
    """Appends line as a Ceph-style log line; the error text when it cannot. A log file this
    creates gets its directory's owner (/var/log/ceph is ceph's): the unit runs its
    ExecStartPre as root, and ceph-osd, running as ceph, must still be able to append."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000+0000"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        existed = os.path.exists(path)
        with open(path, "a") as f:
            f.write("%s %d -1 %s\n" % (stamp, os.getpid(), line))
        if not existed:
            d = os.stat(os.path.dirname(path))
            os.chown(path, d.st_uid, d.st_gid)
    except OSError as e:
        return "%s: %s" % (path, e.strerror)
    return None


def osd_ceph(cluster: str, osd_id: str) -> List[str]:
    """The ceph CLI as the OSD itself (its own key), touching none of its files: no admin
    socket, no log file (both would be the OSD's own)."""
    cmd = ["ceph", "--cluster", cluster, "--name", "osd.%s" % osd_id, "--connect-timeout", "5",
           "--admin-socket=", "--log-file="]
    data = osd_setting(cluster, osd_id, "osd_data", paths.osd_path(cluster, osd_id))
    keyring = os.path.join(data, "keyring")
    if os.path.exists(keyring):   # else the one its configuration names
        cmd += ["--keyring", keyring]
    return cmd


def _ceph(cmd: List[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=CEPH_TIMEOUT,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, 110, "", "no answer within %d s" % CEPH_TIMEOUT)
    except OSError as e:
        return subprocess.CompletedProcess(cmd, 127, "", str(e))


def _err(p: subprocess.CompletedProcess) -> str:
    tail = [x for x in (p.stderr or "").splitlines() if x.strip() and "asok" not in x]
    return "exit %d%s" % (p.returncode, (": " + tail[-1]) if tail else "")


def report_refusal(cluster: str, osd_id: str, v: Verdict) -> Optional[str]:
    """Records the refusal for the mgr module; the error text when it could not."""
    base = osd_ceph(cluster, osd_id)
    epoch = None
    p = _ceph(base + ["osd", "dump", "-f", "json"])
    if p.returncode == 0:
        try:
            epoch = int(json.loads(p.stdout)["epoch"])
        except (ValueError, KeyError, TypeError):
            epoch = None
    doc = {"state": "refused", "line": v.reason, "binary": v.binary, "version": v.version,
           "build_id": v.build_id, "time": time.time(), "osdmap_epoch": epoch,
           "host": socket.gethostname()}
    p = _ceph(base + ["config-key", "set", REFUSAL_KEY % osd_id, json.dumps(doc)])
    return None if p.returncode == 0 else "config-key set %s: %s" % (REFUSAL_KEY % osd_id, _err(p))


def clear_refusal(cluster: str, osd_id: str) -> Optional[str]:
    """After a passing check: marks an earlier refusal of this OSD passed (the OSD's key may
    not delete keys). Nothing is written when there was none."""
    base = osd_ceph(cluster, osd_id)
    p = _ceph(base + ["config-key", "get", REFUSAL_KEY % osd_id])
    if p.returncode != 0:
        return None if p.returncode == 2 else "config-key get: %s" % _err(p)  # ENOENT: none
    try:
        if json.loads(p.stdout).get("state") != "refused":
            return None
    except (ValueError, AttributeError):
        pass
    doc = {"state": "passed", "time": time.time(), "host": socket.gethostname()}
    p = _ceph(base + ["config-key", "set", REFUSAL_KEY % osd_id, json.dumps(doc)])
    return None if p.returncode == 0 else "config-key set: %s" % _err(p)


# --- the command ---------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ceph-volume smrstore check-ceph",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="""May smrstore OSDs run on this ceph-osd build? Runs the preload library's own
check inside the binary (known build-id, the bytes at ObjectStore::create, both patches),
compares its vtables with the recorded ones and, when ceph-osd-dbg is installed, its type
layouts. Exit 0: they may; 1: they must not (one line on stderr says why). Check a new
package before installing it: apt-get download ceph-osd; dpkg-deb -x ceph-osd_*.deb DIR;
check-ceph --binary DIR/usr/bin/ceph-osd (doc/operations.md, "Upgrades").""")
    p.add_argument("--binary", action="append", metavar="PATH",
                   help="a ceph-osd / ceph-objectstore-tool to check (repeatable; default "
                        "/usr/bin/ceph-osd and /usr/bin/ceph-objectstore-tool, with --osd-id "
                        "/usr/bin/ceph-osd)")
    p.add_argument("--library", metavar="PATH",
                   help="the preload library (default %s)" % paths.preload_library())
    p.add_argument("--format", choices=("plain", "json"), default="plain")
    p.add_argument("--quiet", action="store_true", help="print nothing unless refused")
    p.add_argument("--osd-id", metavar="N",
                   help="the gate before osd.N starts: a refusal also goes to the OSD's log "
                        "and to `ceph health` (SMRSTORE_OSD_REFUSED)")
    return p


def command(argv: Sequence[str], cluster: str) -> int:
    a = parser().parse_args(list(argv))
    if a.osd_id is not None and not str(a.osd_id).isdigit():
        parser().error("--osd-id %r is not a number" % a.osd_id)
    library = a.library or paths.preload_library()
    binaries = a.binary or (["/usr/bin/ceph-osd"] if a.osd_id is not None else list(DEFAULT_BINARIES))
    # The gate before an OSD start reads layouts only from the cache (see expected.py).
    verdicts = [check_binary(b, library, read_debug_info=a.osd_id is None) for b in binaries]
    if a.format == "json":
        print(json.dumps(to_json(verdicts), indent=2))
    elif not a.quiet:
        for v in verdicts:
            print("\n".join(plain(v, library)))
    refused = [v for v in verdicts if not v.may_run]
    if a.osd_id is not None:
        notes: List[Optional[str]] = []
        if refused:
            log = osd_log_path(cluster, a.osd_id)
            notes.append(append_log(log, refused[0].reason))
            why = report_refusal(cluster, a.osd_id, refused[0])
            if why:
                notes.append(append_log(log, "check-ceph: could not record the refusal for "
                                             "ceph health (%s)" % why))
        else:
            why = clear_refusal(cluster, a.osd_id)
            if why and not a.quiet:
                print("check-ceph: could not clear osd.%s's earlier refusal (%s)" % (a.osd_id, why))
        for n in notes:
            if n and not a.quiet:
                print("check-ceph: could not write the OSD log: %s" % n)
    for v in refused:
        sys.stderr.write(v.reason + "\n")
    return 1 if refused else 0
