"""`ceph-volume smrstore` without a cluster: the drive checks on real emulated drives and this
machine's real block devices, the label/wipe pair of smrstore-tool, refusals that change
nothing, and Debian's ceph-volume loading the plugin through its entry point.
Needs SMRSTORE_TOOL (ctest sets it to the build's smrstore-tool)."""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator, List

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from ceph_volume_smrstore import drives, osd, paths  # noqa: E402

TOOL = os.environ.get("SMRSTORE_TOOL", "")
pytestmark = pytest.mark.skipif(not TOOL or not os.access(TOOL, os.X_OK),
                                reason="SMRSTORE_TOOL (the built smrstore-tool) is required")

SMALL = "?zones=12&zone_mib=4&conv=2"


def mkdev(path: Path) -> str:
    spec = "emu:%s" % path
    subprocess.run([TOOL, "mkdev", spec + SMALL], check=True, capture_output=True)
    return spec


def tool(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL] + list(args), check=check, capture_output=True, text=True)


@pytest.fixture
def records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "records"
    monkeypatch.setattr(paths, "RECORD_DIR", str(d))
    return d


def test_fresh_emulated_drive_is_accepted(tmp_path: Path) -> None:
    d = drives.inspect(mkdev(tmp_path / "d0.img"))
    assert d.emulated and d.zoned == "host-managed"
    assert d.label["smrstore"] is False
    assert drives.refusal(d, force=False) is None


def test_drive_of_a_store_is_refused_unless_forced(tmp_path: Path) -> None:
    spec = mkdev(tmp_path / "d0.img")
    tool("mkfs", str(tmp_path / "st"), spec)
    d = drives.inspect(spec)
    assert d.store_uuid and len(d.store_uuid) == 36
    why = drives.refusal(d, force=False)
    assert why and "holds smrstore %s" % d.store_uuid in why and "zap it first, or --force" in why
    assert str(tmp_path / "st") in why  # where its metadata was (the superblock's hint)
    assert drives.refusal(d, force=True) is None


def test_a_drive_held_by_a_process_is_refused_even_with_force(tmp_path: Path) -> None:
    spec = mkdev(tmp_path / "d0.img")
    fd = os.open(str(tmp_path / "d0.img"), os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        d = drives.inspect(spec)
        why = drives.refusal(d, force=True)
        assert why and "in use" in why
    finally:
        os.close(fd)
    assert drives.refusal(drives.inspect(spec), force=False) is None


def test_recorded_owner_is_named(tmp_path: Path) -> None:
    d = drives.inspect(mkdev(tmp_path / "d0.img"))
    why = drives.refusal(d, force=False, owner="osd.7")
    assert why and "belongs to osd.7" in why


def test_plain_file_and_missing_paths_are_refused(tmp_path: Path) -> None:
    f = tmp_path / "plain"
    f.write_bytes(b"x" * 4096)
    with pytest.raises(drives.DriveError, match="is not a block device"):
        drives.inspect(str(f))
    with pytest.raises(drives.DriveError, match="No such file"):
        drives.inspect(str(tmp_path / "nothing"))
    with pytest.raises(drives.DriveError, match="no such emulated drive"):
        drives.inspect("emu:%s" % (tmp_path / "nothing"))


def _block_devices(want_partition: bool) -> Iterator[str]:
    for name in sorted(os.listdir("/sys/class/block")):
        is_part = os.path.exists("/sys/class/block/%s/partition" % name)
        if is_part == want_partition and os.path.exists("/dev/" + name) and \
                not name.startswith(("loop", "ram", "zram", "nbd", "sr")):
            yield "/dev/" + name


def test_this_machines_conventional_disk_is_refused() -> None:
    disks = [d for d in _block_devices(False)
             if drives._read("/sys/class/block/%s/queue/zoned" % os.path.basename(d)) == "none"]
    if not disks:
        pytest.skip("no conventional whole disk on this machine")
    d = drives.inspect(disks[0])
    why = drives.refusal(d, force=True)
    assert why and "is not a host-managed zoned drive (queue/zoned = none)" in why


def test_a_partition_is_refused() -> None:
    parts = list(_block_devices(True))
    if not parts:
        pytest.skip("no partition on this machine")
    with pytest.raises(drives.DriveError, match="is a partition"):
        drives.inspect(parts[0])


def test_prepare_refuses_before_changing_anything(tmp_path: Path, records: Path) -> None:
    good = mkdev(tmp_path / "good.img")
    bad = mkdev(tmp_path / "bad.img")
    tool("mkfs", str(tmp_path / "st"), bad)
    before = (tmp_path / "good.img").read_bytes()
    with pytest.raises(osd.SmrstoreError) as e:
        osd.prepare("nocluster", [good, bad])
    msg = str(e.value)
    assert "holds smrstore" in msg and "(nothing was changed)" in msg
    assert "\n" not in msg
    assert (tmp_path / "good.img").read_bytes() == before
    assert not records.exists()
    # Both problems at once, and a drive given twice.
    with pytest.raises(osd.SmrstoreError, match="is given twice"):
        osd.prepare("nocluster", [good, good])


def test_prepare_without_bootstrap_key_stops_before_the_cluster(tmp_path: Path, records: Path) -> None:
    good = mkdev(tmp_path / "good.img")
    with pytest.raises(osd.SmrstoreError, match="bootstrap-osd/nocluster.keyring not found"):
        osd.prepare("nocluster", [good])


@pytest.mark.parametrize("bad,match", [
    (["gc_policy"], "expected KEY=VALUE"),
    (["nosuch=1"], "unknown smrstore.conf key"),
    (["gc_policy="], "expected KEY=VALUE"),
])
def test_bad_conf_is_refused(bad: List[str], match: str) -> None:
    with pytest.raises(osd.SmrstoreError, match=match):
        osd.parse_conf(bad)


def test_bad_ids_are_refused(tmp_path: Path, records: Path) -> None:
    good = mkdev(tmp_path / "good.img")
    with pytest.raises(osd.SmrstoreError, match="is not a UUID"):
        osd.prepare("nocluster", [good], osd_fsid="nope")
    with pytest.raises(osd.SmrstoreError, match="is not a number"):
        osd.prepare("nocluster", [good], osd_id="x1")


def test_label_and_wipe(tmp_path: Path) -> None:
    spec = mkdev(tmp_path / "d0.img")
    spec2 = mkdev(tmp_path / "d1.img")
    tool("mkfs", str(tmp_path / "st"), spec, spec2)
    lab = json.loads(tool("label", spec2, "--json").stdout)
    assert lab["smrstore"] is True and lab["drive_index"] == 1 and lab["nr_drives"] == 2
    assert lab["drive_uuid"] == lab["drive_uuids"][1]
    plain = tool("label", spec).stdout
    assert "store_uuid %s" % lab["store_uuid"] in plain
    # wipe refuses a store's drive without --force and changes nothing.
    before = (tmp_path / "d0.img").read_bytes()
    r = tool("wipe", spec, check=False)
    assert r.returncode == 1 and "holds smrstore" in r.stderr
    assert (tmp_path / "d0.img").read_bytes() == before
    out = tool("wipe", spec, "--force").stdout
    assert "zones reset" in out
    assert json.loads(tool("label", spec, "--json").stdout)["smrstore"] is False
    # The wiped drive takes a new store; mkfs refused it before (it held one).
    tool("mkfs", str(tmp_path / "st2"), spec)
    assert json.loads(tool("label", spec, "--json").stdout)["smrstore"] is True


def test_zap_devices_refuses_a_recorded_drive(tmp_path: Path, records: Path) -> None:
    spec = mkdev(tmp_path / "d0.img")
    tool("mkfs", str(tmp_path / "st"), spec)
    records.mkdir()
    (records / "c-3-f.json").write_text(json.dumps({
        "cluster": "c", "osd_id": 3, "osd_fsid": "f", "devices": [{"path": str(tmp_path / "d0.img")}]}))
    with pytest.raises(osd.SmrstoreError, match="belongs to osd.3"):
        osd.zap_devices("c", [spec], force=False)
    assert json.loads(tool("label", spec, "--json").stdout)["smrstore"] is True
    assert osd.zap_devices("c", [spec], force=True) == [str(tmp_path / "d0.img")]
    assert json.loads(tool("label", spec, "--json").stdout)["smrstore"] is False


def test_debian_ceph_volume_loads_the_plugin(tmp_path: Path) -> None:
    """Debian's own ceph-volume, finding the plugin through the entry point group."""
    if not shutil.which("ceph-volume"):
        pytest.skip("ceph-volume (Debian's ceph-osd) not installed")
    site = tmp_path / "site"
    site.mkdir()
    os.symlink(HERE.parent / "ceph_volume_smrstore", site / "ceph_volume_smrstore")
    di = site / "ceph_volume_smrstore-0.1.0.dist-info"
    di.mkdir()
    (di / "METADATA").write_text("Metadata-Version: 2.1\nName: ceph-volume-smrstore\nVersion: 0.1.0\n")
    shutil.copy(HERE.parent / "dist-info" / "entry_points.txt", di / "entry_points.txt")
    env = dict(os.environ, PYTHONPATH=str(site), CEPH_VOLUME_LOG_PATH=str(tmp_path))
    top = subprocess.run(["ceph-volume", "--log-path", str(tmp_path), "--help"], env=env,
                         capture_output=True, text=True)
    assert "smrstore            Provision zone-native smrstore OSDs" in top.stdout + top.stderr
    r = subprocess.run(["ceph-volume", "--log-path", str(tmp_path), "smrstore", "list", "/nonexistent"],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.strip().splitlines()[-1] == \
        "ceph-volume smrstore list: /nonexistent: No such file or directory"


def test_dropin_wraps_the_stock_unit_command_only() -> None:
    """The drop-in's ExecStart is Debian's own, behind `env LD_PRELOAD=`; no Environment= line
    (it would preload into ExecStartPre's shell and python3, which cannot load the library)."""
    unit = Path("/lib/systemd/system/ceph-osd@.service")
    if not unit.exists():
        pytest.skip("Debian's ceph-osd@.service not installed")
    stock = [ln.split("=", 1)[1] for ln in unit.read_text().splitlines() if ln.startswith("ExecStart=")]
    assert stock == [osd.STOCK_EXECSTART]
    text = osd.dropin_text("7")
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    assert lines == [
        "[Service]",
        "TimeoutStartSec=600",
        "ExecStartPre=/usr/sbin/ceph-volume smrstore check-ceph --osd-id 7 --quiet",
        "ExecStart=",
        "ExecStart=/usr/bin/env LD_PRELOAD=%s %s" % (paths.preload_library(), stock[0]),
    ]
    assert "Environment" not in text
