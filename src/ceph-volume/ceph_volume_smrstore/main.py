"""The `ceph-volume smrstore` subcommand: ceph-volume finds the `SMRStore` class through the
`ceph_volume_handlers` entry point, constructs it with the arguments after `smrstore` and
calls main(). Thin: argument parsing here, the work in osd.py / drives.py / check_ceph.py.
Every failure is one line on stderr, `ceph-volume smrstore CMD: reason`, exit 1 (2 for
usage errors, from argparse); nothing is changed by a refused command."""
from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Dict, List, Optional

from . import __version__, drives, osd

logger = logging.getLogger("ceph_volume_smrstore")

SUBCOMMANDS = {
    "prepare": "make an smrstore OSD on zoned data drives (metadata on flash)",
    "activate": "start smrstore OSDs prepared on this host (systemd, or --no-systemd)",
    "trigger": "systemd helper: activate ID-FSID (ceph-volume@smrstore-ID-FSID)",
    "list": "smrstore OSDs of this host and their drives, or drives' smrstore labels",
    "zap": "wipe zoned drives, or every device of an OSD of this host",
    "check-ceph": "may smrstore OSDs run on the installed ceph-osd build?",
}


def _cluster() -> str:
    try:
        from ceph_volume import conf
        return str(getattr(conf, "cluster", None) or "ceph")
    except ImportError:
        return "ceph"


class SMRStore:
    help_menu = "Provision zone-native smrstore OSDs (HM-SMR / ZNS drives)"
    _help = """
Provision OSDs whose object data lives in the zones of host-managed SMR or ZNS drives and
whose metadata (RocksDB) lives on flash: the smrstore ObjectStore, run by Debian's own
ceph-osd through the preload library (/usr/lib/smrstore/libsmrstore_osd.so).

Subcommands:
%s
"""
    name = "smrstore"
    _ceph_volume_name_ = "smrstore"

    def __init__(self, argv: Optional[List[str]] = None) -> None:
        self.argv = list(argv if argv is not None else sys.argv[1:])

    def help(self) -> str:
        return self._help % "\n".join("  %-11s %s" % kv for kv in SUBCOMMANDS.items())

    def main(self) -> None:
        if not self.argv or self.argv[0] in ("-h", "--help"):
            print(self.help())
            raise SystemExit(0)
        cmd, rest = self.argv[0], self.argv[1:]
        if cmd == "--version":
            print(__version__)
            raise SystemExit(0)
        if cmd not in SUBCOMMANDS:
            sys.stderr.write("ceph-volume smrstore: unknown subcommand %r\n%s" % (cmd, self.help()))
            raise SystemExit(2)
        try:
            rc = getattr(self, "cmd_" + cmd.replace("-", "_"))(rest)
        except (osd.SmrstoreError, drives.DriveError) as e:
            logger.error("%s: %s", cmd, e)
            sys.stderr.write("ceph-volume smrstore %s: %s\n" % (cmd, e))
            raise SystemExit(1)
        raise SystemExit(rc or 0)

    # --- subcommands ---------------------------------------------------------------------

    @staticmethod
    def _parser(cmd: str, description: str) -> argparse.ArgumentParser:
        return argparse.ArgumentParser(prog="ceph-volume smrstore " + cmd, description=description,
                                       formatter_class=argparse.RawDescriptionHelpFormatter)

    def cmd_prepare(self, argv: List[str]) -> int:
        p = self._parser("prepare", """Make an smrstore OSD: checks every drive first (a drive that is not a
whole host-managed zoned drive, or is in use, is refused; one holding a filesystem, a
partition table or another store only without --force), then `ceph osd new` with the
client.bootstrap-osd key, the OSD directory, its key and monmap, smrstore_devices (drives by
/dev/disk/by-id name), smrstore.conf, and `ceph-osd --mkfs` with the preload library.""")
        p.add_argument("--data", action="append", required=True, metavar="DRIVE",
                       help="a zoned data drive (repeat for each; /dev/..., or emu:PATH)")
        p.add_argument("--meta-device", metavar="DEV",
                       help="a flash device for the OSD directory and its RocksDB (formatted "
                            "xfs); default: the OSD directory on the root file system")
        p.add_argument("--osd-id", help="reuse this (destroyed) OSD id")
        p.add_argument("--osd-fsid", help="the OSD's fsid (default: a new one)")
        p.add_argument("--crush-device-class", help="the OSD's device class (default hdd)")
        p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                       help="a smrstore.conf setting (doc/operations.md); repeatable")
        p.add_argument("--force", action="store_true",
                       help="destroy what the drives hold (a filesystem, another store)")
        p.add_argument("--no-setuser", action="store_true",
                       help="run mkfs as root (daemons that run as root, e.g. tests)")
        p.add_argument("--format", choices=("plain", "json"), default="plain")
        a = p.parse_args(argv)
        rec = osd.prepare(_cluster(), a.data, a.meta_device, a.osd_id, a.osd_fsid,
                          a.crush_device_class, a.conf, a.force, setuser=not a.no_setuser)
        if a.format == "json":
            print(json.dumps(rec, indent=2))
        else:
            print("smrstore osd.%s prepared: fsid %s, store %s, %d drive(s): %s" % (
                rec["osd_id"], rec["osd_fsid"], rec["store_uuid"], len(rec["devices"]),
                " ".join(d["path"] for d in rec["devices"])))
            print("next: ceph-volume smrstore activate %s %s" % (rec["osd_id"], rec["osd_fsid"]))
        return 0

    def cmd_activate(self, argv: List[str]) -> int:
        p = self._parser("activate", """Activate smrstore OSDs prepared on this host: checks that every drive
is present and carries this OSD's store label (a missing or swapped drive is refused), gives
the drives and the directory to the ceph user, mounts the metadata device; with systemd
writes ceph-osd@ID's drop-in (LD_PRELOAD, the check-ceph gate), enables
ceph-volume@smrstore-ID-FSID and starts ceph-osd@ID. --no-systemd does only the checks and
files (a container entrypoint then runs ceph-osd with LD_PRELOAD itself).""")
        p.add_argument("osd_id", nargs="?")
        p.add_argument("osd_fsid", nargs="?")
        p.add_argument("--all", action="store_true", help="every smrstore OSD of this host")
        p.add_argument("--no-systemd", action="store_true")
        a = p.parse_args(argv)
        if a.all == bool(a.osd_id):
            p.error("give OSD_ID [OSD_FSID] or --all")
        cluster = _cluster()
        targets = [(str(r["osd_id"]), r["osd_fsid"]) for r in osd.load_records(cluster)] if a.all \
            else [(a.osd_id, a.osd_fsid)]
        failed = []
        for oid, fsid in targets:
            try:
                osd.activate(cluster, oid, fsid, systemd=not a.no_systemd)
                print("smrstore osd.%s activated%s" % (oid, "" if a.no_systemd else " (ceph-osd@%s started)" % oid))
            except (osd.SmrstoreError, drives.DriveError) as e:
                if not a.all:
                    raise
                sys.stderr.write("ceph-volume smrstore activate: %s\n" % e)
                failed.append(oid)
        return 1 if failed else 0

    def cmd_trigger(self, argv: List[str]) -> int:
        p = self._parser("trigger", "systemd's ceph-volume@smrstore-ID-FSID calls this at boot")
        p.add_argument("suffix", help="ID-FSID")
        a = p.parse_args(argv)
        oid, _, fsid = a.suffix.partition("-")
        if not oid.isdigit() or not fsid:
            p.error("expected ID-FSID, got %r" % a.suffix)
        osd.activate(_cluster(), oid, fsid, systemd=True)
        return 0

    def cmd_list(self, argv: List[str]) -> int:
        p = self._parser("list", "smrstore OSDs of this host (from /etc/ceph/smrstore), or given drives' labels")
        p.add_argument("devices", nargs="*")
        p.add_argument("--format", choices=("plain", "json"), default="plain")
        a = p.parse_args(argv)
        out = osd.listing(_cluster(), a.devices)
        if a.format == "json":
            print(json.dumps(out, indent=4, sort_keys=True))
            return 0
        if not out:
            print("No smrstore OSDs found" if not a.devices else "")
            return 0
        for key, v in out.items():
            print(_plain(key, v, bool(a.devices)))
        return 0

    def cmd_zap(self, argv: List[str]) -> int:
        p = self._parser("zap", """Wipe zoned drives (every sequential zone reset, the superblock cleared),
or with --osd-id every device of that OSD of this host (drives, metadata device or
directory, drop-in, record). A drive in use, or one belonging to an OSD of this host
(without --osd-id), is refused.""")
        p.add_argument("devices", nargs="*")
        p.add_argument("--osd-id")
        p.add_argument("--osd-fsid")
        p.add_argument("--force", action="store_true", help="zap a drive of a recorded OSD")
        p.add_argument("--no-systemd", action="store_true", help="do not stop/disable units")
        a = p.parse_args(argv)
        if bool(a.devices) == bool(a.osd_id):
            p.error("give DRIVE... or --osd-id ID")
        if a.osd_id:
            rec = osd.zap_osd(_cluster(), a.osd_id, a.osd_fsid, systemd=not a.no_systemd)
            print("zapped osd.%s: %s" % (rec["osd_id"], " ".join(d["path"] for d in rec["devices"])))
        else:
            for path in osd.zap_devices(_cluster(), a.devices, a.force):
                print("zapped %s" % path)
        return 0

    def cmd_check_ceph(self, argv: List[str]) -> int:
        from . import check_ceph
        return check_ceph.command(argv, _cluster())


def _plain(key: str, v: Dict, device_mode: bool) -> str:
    if device_mode:
        lab = v.get("label") or {}
        lines = ["%s: %s, zoned %s" % (key, v["path"], v["zoned"])]
        if lab.get("smrstore"):
            lines.append("  smrstore %s drive %s (%s of %s), metadata was at %s" % (
                lab["store_uuid"], lab["drive_uuid"], int(lab["drive_index"]) + 1, lab["nr_drives"],
                lab.get("meta_path_hint")))
        else:
            lines.append("  no smrstore label")
        for what in ("in_use", "signatures"):
            if v.get(what):
                lines.append("  %s: %s" % (what.replace("_", " "), ", ".join(v[what])))
        return "\n".join(lines)
    lines = ["", "====== osd.%s =======" % key, ""]
    rows = [("osd id", v["osd_id"]), ("osd fsid", v["osd_fsid"]), ("cluster name", v["cluster"]),
            ("type", "smrstore"), ("store uuid", v["store_uuid"]), ("osd path", v["osd_path"]),
            ("meta device", v.get("meta_device") or "(root file system)")]
    lines += ["      %-20s%s" % r for r in rows]
    for d in v["devices"]:
        lines += ["", "  [data]        %s" % d["path"], ""]
        lines += ["      %-20s%s" % r for r in (("device", d["current_name"]), ("drive uuid", d["drive_uuid"]),
                                                 ("drive index", d["drive_index"]), ("state", d["state"]))]
    return "\n".join(lines)
