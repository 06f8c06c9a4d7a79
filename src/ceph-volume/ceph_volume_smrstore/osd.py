"""prepare, activate, list and zap of smrstore OSDs.

Contract
  prepare: checks every drive and the metadata device first (drives.refusal) and changes
    nothing when one is refused. Then, as ceph-volume does for BlueStore: a cephx key, `ceph
    osd new FSID [ID]` with client.bootstrap-osd, the OSD directory
    /var/lib/ceph/osd/CLUSTER-ID (on --meta-device, formatted xfs and mounted there), its
    keyring and monmap, `smrstore_devices` (the drives by stable name), `smrstore.conf`,
    then `ceph-osd --mkfs --osd-objectstore smrstore` with the preload library. A failure
    after `osd new` purges the new OSD id again (`ceph osd purge-new`), as ceph-volume's
    lvm prepare does. Last, the host record /etc/ceph/smrstore/CLUSTER-ID-FSID.json.
  activate: from the record; checks that each drive is present and carries this store's
    label (a swapped or missing drive is refused: the OSD is not started), gives the drives
    and the directory to the ceph user, mounts the metadata device. With systemd: the
    per-instance drop-in (LD_PRELOAD and the check-ceph gate, only for this OSD's unit),
    ceph-volume@smrstore-ID-FSID enabled (activation at boot), ceph-osd@ID enabled and
    started. --no-systemd: only the checks and the files, for a container entrypoint that
    starts ceph-osd itself with LD_PRELOAD.
  list: the records of this host with each drive's state (present, label), or the label of
    given drives. zap: wipes drives (smrstore-tool wipe), or a whole OSD of this host by id
    (its drives, its metadata device or directory, its unit drop-in and record); removing the
    id from the cluster stays the operator's `ceph osd purge`/`destroy`, as for any OSD.
Errors are raised as SmrstoreError with one line for the operator.
Thread safety: none needed (one ceph-volume process).
"""
from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import time
import uuid
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import drives, paths


class SmrstoreError(Exception):
    pass


# --- small helpers --------------------------------------------------------------------------

def _run(cmd: Sequence[str], stdin: Optional[str] = None, env: Optional[Dict[str, str]] = None,
         check: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run(list(cmd), input=stdin, capture_output=True, text=True,
                       env=env)
    _log(cmd, p)
    if check and p.returncode != 0:
        tail = (p.stderr.strip() or p.stdout.strip()).splitlines()
        raise SmrstoreError("%s failed (exit %d)%s" % (" ".join(cmd[:4]), p.returncode,
                                                       (": " + tail[-1]) if tail else ""))
    return p


def _log(cmd: Sequence[str], p: subprocess.CompletedProcess) -> None:
    try:
        import logging
        logger = logging.getLogger("ceph_volume_smrstore")
        logger.info("Running command: %s -> %d", " ".join(cmd), p.returncode)
        for line in (p.stdout or "").splitlines():
            logger.info("stdout %s", line)
        for line in (p.stderr or "").splitlines():
            logger.info("stderr %s", line)
    except Exception:  # logging must never break provisioning
        pass


def _bootstrap(cluster: str) -> List[str]:
    return ["ceph", "--cluster", cluster, "--name", "client.bootstrap-osd",
            "--keyring", "/var/lib/ceph/bootstrap-osd/%s.keyring" % cluster]


def _chown_ceph(path: str, recursive: bool = False) -> None:
    try:
        import pwd
        pw = pwd.getpwnam("ceph")
    except KeyError:
        return  # no ceph user (a bare test host): root runs the daemons
    targets = [path]
    if recursive:
        for root, dirs, files in os.walk(path):
            targets += [os.path.join(root, n) for n in dirs + files]
    for t in targets:
        os.chown(t, pw.pw_uid, pw.pw_gid, follow_symlinks=True)


def load_records(cluster: Optional[str] = None) -> List[Dict]:
    out = []
    for f in sorted(glob.glob(os.path.join(paths.RECORD_DIR, "*.json"))):
        try:
            with open(f) as fh:
                r = json.load(fh)
        except (OSError, ValueError) as e:
            raise SmrstoreError("%s: unreadable OSD record (%s)" % (f, e))
        r["_file"] = f
        if cluster is None or r.get("cluster") == cluster:
            out.append(r)
    return out


def find_record(cluster: str, osd_id: str, osd_fsid: Optional[str] = None) -> Dict:
    for r in load_records(cluster):
        if str(r["osd_id"]) == str(osd_id) and (osd_fsid is None or r["osd_fsid"] == osd_fsid):
            return r
    raise SmrstoreError("no smrstore OSD %s%s of cluster %s on this host (%s)" % (
        osd_id, (" " + osd_fsid) if osd_fsid else "", cluster, paths.RECORD_DIR))


def _owner_of(cluster: str) -> Dict[str, str]:
    """Drive path (stable name, and emu file) -> 'osd.N' for this host's records."""
    owners = {}
    for r in load_records(cluster):
        for dev in r["devices"]:
            owners[dev["path"]] = "osd.%s" % r["osd_id"]
    return owners


def _write(path: str, text: str, mode: int = 0o644) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(tmp, mode)
    os.replace(tmp, path)


# --- prepare --------------------------------------------------------------------------------

CONF_KEYS = ("on_transaction_error", "throttle_bytes", "device_class", "gc_policy",
             "gc_reserve_zones", "gc_start_free", "gc_urgent_free", "gc_stop_free",
             "gc_free_zones_max", "gc_idle_slice", "gc_idle_yield", "gc_read_ahead",
             "journal_with_data", "inline_max", "pack_max", "separate_streams")


def parse_conf(items: Sequence[str]) -> List[Tuple[str, str]]:
    out = []
    for it in items:
        k, sep, v = it.partition("=")
        k, v = k.strip(), v.strip()
        if not sep or not k or not v:
            raise SmrstoreError("--conf %r: expected KEY=VALUE" % it)
        if k not in CONF_KEYS:
            raise SmrstoreError("--conf %s: unknown smrstore.conf key (known: %s)" % (k, ", ".join(CONF_KEYS)))
        out.append((k, v))
    return out


def _check_meta_device(arg: str, force: bool) -> str:
    try:
        import stat as st
        s = os.stat(arg)
    except OSError as e:
        raise SmrstoreError("--meta-device %s: %s" % (arg, e.strerror))
    if not st.S_ISBLK(s.st_mode):
        raise SmrstoreError("--meta-device %s is not a block device" % arg)
    real = os.path.realpath(arg)
    name = os.path.basename(real)
    zoned = drives._read(os.path.join(drives.SYS_BLOCK, name, "queue/zoned"))
    if zoned and zoned != "none":
        raise SmrstoreError("--meta-device %s is a zoned drive (%s); the metadata (RocksDB) "
                            "needs a conventional flash device" % (arg, zoned))
    holders = drives._mounted(name, s.st_rdev)
    try:
        holders += ["used by %s" % h for h in os.listdir(os.path.join(drives.SYS_BLOCK, name, "holders"))]
    except OSError:
        pass
    if not holders:
        busy = drives._exclusive_open(real)
        if busy:
            holders.append(busy)
    if holders:
        raise SmrstoreError("--meta-device %s is in use: %s" % (arg, "; ".join(holders)))
    sigs = drives._blkid(real)
    if sigs and not force:
        raise SmrstoreError("--meta-device %s holds data (%s); refusing to destroy it (zap it "
                            "first, or --force)" % (arg, ", ".join(sigs)))
    return drives.stable_name(real, name)


def prepare(cluster: str, data: Sequence[str], meta_device: Optional[str] = None,
            osd_id: Optional[str] = None, osd_fsid: Optional[str] = None,
            device_class: Optional[str] = None, conf: Sequence[str] = (),
            force: bool = False, setuser: bool = True) -> Dict:
    if not data:
        raise SmrstoreError("give at least one --data drive")
    settings = parse_conf(conf)
    if device_class:
        settings = [kv for kv in settings if kv[0] != "device_class"] + [("device_class", device_class)]
    if osd_fsid is not None:
        try:
            osd_fsid = str(uuid.UUID(osd_fsid))
        except ValueError:
            raise SmrstoreError("--osd-fsid %r is not a UUID" % osd_fsid)
    if osd_id is not None and not str(osd_id).isdigit():
        raise SmrstoreError("--osd-id %r is not a number" % osd_id)
    # 1. Every check before anything changes.
    owners = _owner_of(cluster)
    found: List[drives.Drive] = []
    problems = []
    for arg in data:
        try:
            d = drives.inspect(arg)
        except drives.DriveError as e:
            problems.append(str(e))
            continue
        if any(d.path == o.path for o in found):
            problems.append("%s is given twice" % arg)
            continue
        why = drives.refusal(d, force, owners.get(d.path))
        if why:
            problems.append(why)
        found.append(d)
    meta_stable = _check_meta_device(meta_device, force) if meta_device else None
    if problems:
        raise SmrstoreError("; ".join(problems) + " (nothing was changed)")
    bootstrap = "/var/lib/ceph/bootstrap-osd/%s.keyring" % cluster
    if not os.path.exists(bootstrap):
        raise SmrstoreError("%s not found: this host cannot create OSDs (copy the cluster's "
                            "client.bootstrap-osd keyring there)" % bootstrap)
    preload = paths.preload_library()
    if not os.path.exists(preload):
        raise SmrstoreError("%s not found: is smrstore installed?" % preload)
    if osd_id is not None:
        tree = json.loads(_run(_bootstrap(cluster) + ["osd", "tree", "-f", "json"]).stdout)
        node = [n for n in tree.get("nodes", []) + tree.get("stray", []) if str(n.get("id")) == str(osd_id)]
        if node and node[0].get("status") != "destroyed":
            raise SmrstoreError("osd.%s exists and is not destroyed; --osd-id reuses only a "
                                "destroyed id (nothing was changed)" % osd_id)
    # 2. The OSD in the cluster.
    fsid = osd_fsid or str(uuid.uuid4())
    secret = _run(["ceph-authtool", "--gen-print-key"]).stdout.strip()
    cmd = _bootstrap(cluster) + ["-i", "-", "osd", "new", fsid] + ([str(osd_id)] if osd_id is not None else [])
    new_id = _run(cmd, stdin=json.dumps({"cephx_secret": secret})).stdout.strip()
    if not new_id.isdigit():
        raise SmrstoreError("ceph osd new answered %r, not an OSD id" % new_id)
    path = paths.osd_path(cluster, new_id)
    mounted = False
    try:
        # 3. Wipe what --force allowed us to destroy, then the OSD directory.
        for d in found:
            if d.store_uuid or d.signatures:
                _run([paths.tool(), "wipe", d.spec, "--force"])
        os.makedirs(path, exist_ok=True)
        if os.listdir(path) and not os.path.ismount(path):
            raise SmrstoreError("%s is not empty" % path)
        if meta_device:
            _run(["mkfs.xfs", "-f", "-L", "smrstore-meta", "-m", "uuid=%s" % fsid, meta_device])
            _run(["mount", "-t", "xfs", "-o", "noatime", meta_device, path])
            mounted = True
        _run(["ceph-authtool", os.path.join(path, "keyring"), "--create-keyring",
              "--name", "osd.%s" % new_id, "--add-key", secret])
        _run(_bootstrap(cluster) + ["mon", "getmap", "-o", os.path.join(path, "activate.monmap")])
        _write(os.path.join(path, "smrstore_devices"), " ".join(d.spec for d in found) + "\n")
        conf_text = "# smrstore settings of osd.%s (doc/operations.md, \"Settings\"), written by ceph-volume smrstore prepare\n" % new_id
        conf_text += "".join("%s = %s\n" % kv for kv in settings)
        _write(os.path.join(path, "smrstore.conf"), conf_text)
        for d in found:
            _chown_ceph(d.path)
        _chown_ceph(path, recursive=True)
        env = dict(os.environ, LD_PRELOAD=preload)
        mkfs = ["ceph-osd", "--cluster", cluster, "--osd-objectstore", "smrstore", "--mkfs",
                "-i", new_id, "--monmap", os.path.join(path, "activate.monmap"),
                "--keyfile", "-", "--osd-data", path, "--osd-uuid", fsid]
        if setuser:
            mkfs += ["--setuser", "ceph", "--setgroup", "ceph"]
        _run(mkfs, stdin=secret, env=env)
        if not os.path.exists(os.path.join(path, "type")) or \
                open(os.path.join(path, "type")).read().strip() != "smrstore":
            raise SmrstoreError("ceph-osd --mkfs did not make a smrstore OSD in %s (is the "
                                "preload refused? run `ceph-volume smrstore check-ceph`)" % path)
        labels = [drives.label(d.spec) for d in found]
    except BaseException as e:
        _rollback(cluster, new_id, path, mounted)
        if isinstance(e, SmrstoreError):
            raise SmrstoreError("%s (osd.%s was purged again)" % (e, new_id))
        raise
    if mounted:
        _run(["umount", path])
    record = {
        "cluster": cluster, "osd_id": int(new_id), "osd_fsid": fsid, "type": "smrstore",
        "store_uuid": labels[0].get("store_uuid"),
        "meta_device": meta_stable, "osd_path": path,
        "devices": [{"path": d.path, "spec": d.spec, "kernel_name": d.kernel_name,
                     "emulated": d.emulated, "size_bytes": d.size_bytes,
                     "drive_uuid": lab.get("drive_uuid"), "drive_index": lab.get("drive_index")}
                    for d, lab in zip(found, labels)],
        "settings": dict(settings), "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    os.makedirs(paths.RECORD_DIR, exist_ok=True)
    _write(paths.record_path(cluster, new_id, fsid), json.dumps(record, indent=2) + "\n")
    return record


def _rollback(cluster: str, osd_id: str, path: str, mounted: bool) -> None:
    if mounted:
        _run(["umount", path], check=False)
    elif os.path.isdir(path):
        shutil.rmtree(path, ignore_errors=True)
    _run(_bootstrap(cluster) + ["osd", "purge-new", "osd.%s" % osd_id, "--yes-i-really-mean-it"],
         check=False)


# --- activate -------------------------------------------------------------------------------

def verify_drives(record: Dict) -> List[str]:
    """Problems that forbid starting the OSD: a drive missing, or carrying another store or
    another position (swapped)."""
    problems = []
    for dev in record["devices"]:
        try:
            lab = drives.label(dev["spec"])
        except drives.DriveError as e:
            problems.append("%s: %s" % (dev["path"], e))
            continue
        if not os.path.exists(dev["path"]):
            problems.append("%s is missing" % dev["path"])
        elif not lab.get("smrstore"):
            problems.append("%s holds no smrstore label (wiped or replaced?)" % dev["path"])
        elif lab.get("store_uuid") != record["store_uuid"] or lab.get("drive_uuid") != dev["drive_uuid"]:
            problems.append("%s holds drive %s of store %s, not drive %s of %s" % (
                dev["path"], lab.get("drive_uuid"), lab.get("store_uuid"), dev["drive_uuid"],
                record["store_uuid"]))
    return problems


def _systemctl(*args: str) -> None:
    _run(["systemctl"] + list(args))


# Debian's ceph-osd@.service runs `ceph-osd -f --cluster ${CLUSTER} --id %i --setuser ceph
# --setgroup ceph` after ExecStartPre=ceph-osd-prestart.sh. The preload goes on ceph-osd's
# command line only (through env), never into the unit's Environment=: every ExecStartPre
# (a shell script, check-ceph in python3) would then load it too and fail, since the library
# resolves against Ceph's own symbols (found in the VM of qa/vm/host).
STOCK_EXECSTART = "/usr/bin/ceph-osd -f --cluster ${CLUSTER} --id %i --setuser ceph --setgroup ceph"


def dropin_text(osd_id: str) -> str:
    return ("# Written by ceph-volume smrstore activate: only this OSD's unit runs ceph-osd with\n"
            "# the preload library that makes Debian's ceph-osd run smrstore, and only after\n"
            "# check-ceph found the installed ceph-osd a build it was verified against\n"
            "# (doc/operations.md, \"Upgrades\"). The rest of the stock unit (its hardening,\n"
            "# ceph-osd-prestart.sh, restarts) is kept.\n"
            "[Service]\n"
            "# The gate reads the binary's relocations and asks the monitors; in the TCG VM of\n"
            "# qa/vm/host right after a boot that took more than the default 90 s.\n"
            "TimeoutStartSec=600\n"
            "ExecStartPre=/usr/sbin/ceph-volume smrstore check-ceph --osd-id %s --quiet\n"
            "ExecStart=\n"
            "ExecStart=/usr/bin/env LD_PRELOAD=%s %s\n"
            % (osd_id, paths.preload_library(), STOCK_EXECSTART))


def activate(cluster: str, osd_id: str, osd_fsid: Optional[str], systemd: bool = True) -> Dict:
    record = find_record(cluster, osd_id, osd_fsid)
    path = record["osd_path"]
    if record.get("meta_device"):
        os.makedirs(path, exist_ok=True)
        if not os.path.ismount(path):
            if not os.path.exists(record["meta_device"]):
                raise SmrstoreError("osd.%s: metadata device %s is missing (the OSD was not "
                                    "started)" % (osd_id, record["meta_device"]))
            _run(["mount", "-t", "xfs", "-o", "noatime", record["meta_device"], path])
    problems = verify_drives(record)
    if problems:
        raise SmrstoreError("osd.%s not activated: %s" % (osd_id, "; ".join(problems)))
    if not os.path.exists(os.path.join(path, "type")):
        raise SmrstoreError("osd.%s: %s holds no OSD (type file missing)" % (osd_id, path))
    for dev in record["devices"]:
        _chown_ceph(dev["path"])
    _chown_ceph(path, recursive=True)
    if systemd:
        dropin = paths.dropin_path(str(record["osd_id"]))
        os.makedirs(os.path.dirname(dropin), exist_ok=True)
        _write(dropin, dropin_text(str(record["osd_id"])))
        _systemctl("daemon-reload")
        _systemctl("enable", "ceph-volume@smrstore-%s-%s" % (record["osd_id"], record["osd_fsid"]))
        _systemctl("enable", "--runtime", "ceph-osd@%s" % record["osd_id"])
        _systemctl("start", "ceph-osd@%s" % record["osd_id"])
    return record


# --- list and zap ---------------------------------------------------------------------------

def listing(cluster: str, devices: Sequence[str] = ()) -> Dict[str, Dict[str, Any]]:
    if devices:
        out: Dict[str, Dict[str, Any]] = {}
        for arg in devices:
            d = drives.inspect(arg)
            out[arg] = {"path": d.path, "spec": d.spec, "zoned": d.zoned, "in_use": d.holders,
                        "signatures": d.signatures, "label": d.label}
        return out
    result: Dict[str, Dict[str, Any]] = {}
    for r in load_records(cluster):
        devs = []
        for dev in r["devices"]:
            # "ok": the drive carries this OSD's label; "in use": something holds it (its
            # running OSD, normally), so its label cannot be read now.
            state = "ok"
            try:
                d = drives.inspect(dev["spec"])
                if d.holders:
                    state = "in use (%s)" % "; ".join(d.holders)
                elif not d.label.get("smrstore"):
                    state = "no label"
                elif d.label.get("drive_uuid") != dev["drive_uuid"]:
                    state = "other drive %s" % d.label.get("drive_uuid")
            except drives.DriveError as e:
                state = "unreadable: %s" % e
            if not os.path.exists(dev["path"]):
                state = "missing"
            devs.append(dict(dev, state=state, current_name=os.path.realpath(dev["path"])))
        result[str(r["osd_id"])] = {
            "osd_id": r["osd_id"], "osd_fsid": r["osd_fsid"], "cluster": r["cluster"],
            "type": "smrstore", "store_uuid": r["store_uuid"], "osd_path": r["osd_path"],
            "meta_device": r.get("meta_device"), "devices": devs, "settings": r.get("settings", {}),
            "created": r.get("created")}
    return result


def zap_devices(cluster: str, args: Sequence[str], force: bool) -> List[str]:
    owners = _owner_of(cluster)
    targets = []
    for a in args:
        d = drives.inspect(a)
        if d.zoned != "host-managed":
            raise SmrstoreError("%s is not a host-managed zoned drive (%s); zap it with "
                                "`ceph-volume lvm zap`" % (a, d.zoned))
        if d.holders:
            raise SmrstoreError("%s is in use: %s (stop its OSD first)" % (a, "; ".join(d.holders)))
        if owners.get(d.path) and not force:
            raise SmrstoreError("%s belongs to %s; `zap --osd-id` destroys the whole OSD, or "
                                "--force" % (a, owners[d.path]))
        targets.append(d)
    done = []
    for d in targets:
        _run([paths.tool(), "wipe", d.spec, "--force"])
        done.append(d.path)
    return done


def zap_osd(cluster: str, osd_id: str, osd_fsid: Optional[str], systemd: bool) -> Dict:
    record = find_record(cluster, osd_id, osd_fsid)
    oid = str(record["osd_id"])
    if systemd and shutil.which("systemctl"):
        _run(["systemctl", "stop", "ceph-osd@%s" % oid], check=False)
        _run(["systemctl", "disable", "ceph-volume@smrstore-%s-%s" % (oid, record["osd_fsid"])], check=False)
    for dev in record["devices"]:
        if os.path.exists(dev["path"]):
            d = drives.inspect(dev["spec"])
            if d.holders:
                raise SmrstoreError("%s is in use: %s (stop osd.%s first)" % (dev["path"], "; ".join(d.holders), oid))
    for dev in record["devices"]:
        if os.path.exists(dev["path"]):
            _run([paths.tool(), "wipe", dev["spec"], "--force"])
    path = record["osd_path"]
    if os.path.ismount(path):
        _run(["umount", path])
    if record.get("meta_device") and os.path.exists(record["meta_device"]):
        _run(["wipefs", "-a", record["meta_device"]])
    elif os.path.isdir(path):
        shutil.rmtree(path)
    dropin = paths.dropin_path(oid)
    if os.path.exists(dropin):
        os.remove(dropin)
        try:
            os.rmdir(os.path.dirname(dropin))
        except OSError:
            pass
    os.remove(record["_file"])
    return record
