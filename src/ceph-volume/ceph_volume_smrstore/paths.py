"""Where smrstore's files live on an OSD host. One place, so the plugin, its tests and the
docs agree. Environment overrides exist for tests and for a build tree (never needed on a
host where the package is installed)."""
from __future__ import annotations

import os
import shutil

LIB_DIR = os.environ.get("SMRSTORE_LIB_DIR", "/usr/lib/smrstore")


def preload_library() -> str:
    """The LD_PRELOAD library that makes Debian's ceph-osd run smrstore."""
    return os.environ.get("SMRSTORE_OSD_LIB", os.path.join(LIB_DIR, "libsmrstore_osd.so"))


def tool() -> str:
    """smrstore-tool (drive labels, wipe)."""
    return os.environ.get("SMRSTORE_TOOL") or shutil.which("smrstore-tool") or "/usr/bin/smrstore-tool"


# One JSON record per OSD this host prepared: /etc/ceph/smrstore/CLUSTER-ID-FSID.json. Not
# /etc/ceph/osd/, whose *.json files `ceph-volume simple activate --all` takes as its own.
RECORD_DIR = os.environ.get("CEPH_VOLUME_SMRSTORE_RECORDS", "/etc/ceph/smrstore")
SYSTEMD_DIR = os.environ.get("CEPH_VOLUME_SMRSTORE_SYSTEMD_DIR", "/etc/systemd/system")
OSD_ROOT = "/var/lib/ceph/osd"


def osd_path(cluster: str, osd_id: str) -> str:
    return os.path.join(OSD_ROOT, "%s-%s" % (cluster, osd_id))


def record_path(cluster: str, osd_id: str, osd_fsid: str) -> str:
    return os.path.join(RECORD_DIR, "%s-%s-%s.json" % (cluster, osd_id, osd_fsid))


def dropin_path(osd_id: str) -> str:
    """The per-instance drop-in that gives only this OSD's unit the preload."""
    return os.path.join(SYSTEMD_DIR, "ceph-osd@%s.service.d" % osd_id, "smrstore.conf")
