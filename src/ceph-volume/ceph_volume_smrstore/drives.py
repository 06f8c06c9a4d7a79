"""What a data drive is, and whether smrstore may take it.

Contract: `inspect(arg)` never writes; it reads sysfs, /proc/self/mounts, `blkid -p`, an
O_EXCL open (released at once) and the drive's smrstore label (`smrstore-tool label`), and
returns a `Drive` with every reason the drive may not be used. `refusal(drive, force)` turns
those into the one line prepare prints: a drive that is not a whole host-managed zoned drive
or that something holds is refused always; one that holds a filesystem, a partition table
or another store only without --force. Arguments are block devices (any name that resolves
to one: /dev/sdb, /dev/disk/by-id/...) or emulated drives (`emu:PATH`, files made by
`smrstore-tool mkdev`, for labs and tests).
Thread safety: plain functions, no shared state.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
import subprocess
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from . import paths

SYS_BLOCK = os.environ.get("CEPH_VOLUME_SMRSTORE_SYSFS", "/sys/class/block")


class DriveError(Exception):
    """A drive cannot be used or read; the message is the one line shown to the operator."""


@dataclass
class Drive:
    arg: str                       # what the operator gave
    spec: str = ""                 # smrstore device spec: zbd:/dev/disk/by-id/... or emu:PATH
    path: str = ""                 # the stable path in the spec (by-id when there is one)
    kernel_name: str = ""          # sdb, nvme0n1, nullb0; "" for emulated drives
    emulated: bool = False
    zoned: str = ""                # host-managed, host-aware, none
    size_bytes: int = 0
    signatures: List[str] = field(default_factory=list)  # blkid TYPE/PTTYPE found
    holders: List[str] = field(default_factory=list)     # why it is in use
    label: Dict[str, object] = field(default_factory=dict)  # smrstore-tool label --json

    @property
    def store_uuid(self) -> Optional[str]:
        return str(self.label["store_uuid"]) if self.label.get("smrstore") else None


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def stable_name(devnode: str, kernel_name: str) -> str:
    """The name that survives a reboot and a re-enumeration: a /dev/disk/by-id link (wwn-
    first, then the longest other), else by-path, else the kernel name itself (null_blk and
    other virtual drives have neither)."""
    real = os.path.realpath(devnode)
    for d in ("/dev/disk/by-id", "/dev/disk/by-path"):
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        links = [n for n in names if os.path.realpath(os.path.join(d, n)) == real]
        if links:
            links.sort(key=lambda n: (not n.startswith("wwn-"), n.startswith("nvme-eui."), -len(n)))
            return os.path.join(d, links[0])
    return "/dev/" + kernel_name


def label(spec: str) -> Dict[str, object]:
    """The drive's smrstore superblock (`smrstore-tool label SPEC --json`)."""
    try:
        p = subprocess.run([paths.tool(), "label", spec, "--json"], capture_output=True,
                           text=True, timeout=120)
    except FileNotFoundError:
        raise DriveError("smrstore-tool not found (%s): is smrstore installed?" % paths.tool())
    if p.returncode != 0:
        raise DriveError(p.stderr.strip().splitlines()[-1] if p.stderr.strip()
                         else "smrstore-tool label %s failed (exit %d)" % (spec, p.returncode))
    out: Dict[str, object] = json.loads(p.stdout)
    return out


def _blkid(devnode: str) -> List[str]:
    p = subprocess.run(["blkid", "-p", "-o", "export", devnode], capture_output=True, text=True)
    found = []
    for line in p.stdout.splitlines():
        k, _, v = line.partition("=")
        if k in ("TYPE", "PTTYPE"):
            found.append("%s=%s" % (k, v))
    return found


def _mounted(kernel_name: str, dev_rdev: int) -> List[str]:
    why = []
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                src, mnt = line.split()[:2]
                if not src.startswith("/dev/"):
                    continue
                try:
                    st = os.stat(src)
                except OSError:
                    continue
                if stat.S_ISBLK(st.st_mode) and os.major(st.st_rdev) == os.major(dev_rdev) and \
                        os.minor(st.st_rdev) >= os.minor(dev_rdev) and \
                        os.path.basename(os.path.realpath(src)).startswith(kernel_name):
                    why.append("mounted at %s" % mnt)
    except OSError:
        pass
    return why


def _exclusive_open(path: str) -> Optional[str]:
    """None when nobody holds the drive; else why (a running OSD, a mount, a mapper)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_EXCL | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.EBUSY:
            return "held open exclusively by another process (a running OSD, a mount or a mapper)"
        raise DriveError("%s: %s" % (path, e.strerror))
    os.close(fd)
    return None


def _emulated_in_use(path: str) -> Optional[str]:
    """An emulated drive is a file; a store that has it open holds an flock on it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as e:
        raise DriveError("%s: %s" % (path, e.strerror))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    except OSError:
        return "locked by another process (a running OSD or smrstore-tool)"
    finally:
        os.close(fd)


def inspect(arg: str) -> Drive:
    d = Drive(arg=arg)
    if arg.startswith("emu:"):
        path = arg[4:].split("?", 1)[0]
        if not os.path.isfile(path):
            raise DriveError("%s: no such emulated drive (make one with smrstore-tool mkdev)" % arg)
        d.emulated, d.spec, d.path = True, "emu:" + os.path.abspath(path), os.path.abspath(path)
        d.size_bytes = os.path.getsize(path)
        busy = _emulated_in_use(path)
        if busy:
            d.holders.append(busy)
            d.zoned = "host-managed"  # the emulator makes only host-managed drives
            return d
        d.label = label(d.spec)
        d.zoned = str(d.label.get("model", ""))
        return d
    if arg.startswith("zbd:"):
        arg = arg[4:]
    try:
        st = os.stat(arg)
    except OSError as e:
        raise DriveError("%s: %s" % (arg, e.strerror))
    if not stat.S_ISBLK(st.st_mode):
        raise DriveError("%s is not a block device (smrstore takes whole zoned drives, or "
                         "emu:PATH emulated drives)" % arg)
    real = os.path.realpath(arg)
    d.kernel_name = os.path.basename(real)
    sysdir = os.path.join(SYS_BLOCK, d.kernel_name)
    if os.path.exists(os.path.join(sysdir, "partition")):
        raise DriveError("%s is a partition (%s); smrstore takes whole zoned drives" % (arg, d.kernel_name))
    d.zoned = _read(os.path.join(sysdir, "queue/zoned")) or "none"
    d.size_bytes = int(_read(os.path.join(sysdir, "size")) or 0) * 512
    d.path = stable_name(real, d.kernel_name)
    d.spec = "zbd:" + d.path
    try:
        d.holders = ["used by %s" % h for h in sorted(os.listdir(os.path.join(sysdir, "holders")))]
    except OSError:
        pass
    d.holders += _mounted(d.kernel_name, st.st_rdev)
    if d.zoned != "host-managed":
        return d  # refused below; nothing else to read on a drive smrstore cannot use
    if not d.holders:
        busy = _exclusive_open(real)
        if busy:
            d.holders.append(busy)
    d.signatures = _blkid(real)
    if not d.holders:
        d.label = label(d.spec)
    return d


def refusal(d: Drive, force: bool, owner: Optional[str] = None) -> Optional[str]:
    """The reason prepare must not take drive `d`, or None. `owner`: the OSD a record on this
    host says the drive belongs to."""
    name = d.arg
    if d.zoned != "host-managed":
        return ("%s is not a host-managed zoned drive (queue/zoned = %s); smrstore data drives "
                "are HM-SMR or ZNS drives" % (name, d.zoned or "unknown"))
    if d.holders:
        return "%s is in use: %s" % (name, "; ".join(d.holders))
    if owner and not force:
        return "%s belongs to %s on this host (zap it first, or --force)" % (name, owner)
    if d.store_uuid and not force:
        hint = d.label.get("meta_path_hint") or "?"
        return ("%s holds smrstore %s (metadata was at %s); refusing to destroy it (zap it "
                "first, or --force)" % (name, d.store_uuid, hint))
    if d.signatures and not force:
        return ("%s holds data (%s); refusing to destroy it (zap it first, or --force)"
                % (name, ", ".join(d.signatures)))
    return None
