"""`ceph-volume smrstore check-ceph` against Debian's real ceph-osd and ceph-objectstore-tool,
and against altered copies of ceph-osd (another build-id; other bytes at ObjectStore::create),
made by qa/ceph/altered_ceph_osd.py (as for qa/ceph/check-preload.sh). Needs SMRSTORE_OSD_LIB (ctest sets it to the
build's libsmrstore_osd.so). The --osd-id tests use a private ceph.conf whose monitor does not
answer: the refusal must still reach the OSD's log, and the exit status must not change."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, Tuple

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[2] / "qa" / "ceph"))   # altered_ceph_osd.py

import altered_ceph_osd  # noqa: E402

from ceph_volume_smrstore import check_ceph  # noqa: E402
from ceph_volume_smrstore.abi import expected  # noqa: E402
from ceph_volume_smrstore.abi.compare_layouts import parse_layout  # noqa: E402

OSD = "/usr/bin/ceph-osd"
TOOL = "/usr/bin/ceph-objectstore-tool"
LIB = os.environ.get("SMRSTORE_OSD_LIB", "")
MUST_NOT = 'smrstore OSDs must not start on it (doc/operations.md, "Upgrades")'
pytestmark = pytest.mark.skipif(not LIB or not os.path.exists(LIB) or not os.access(OSD, os.X_OK),
                                reason="SMRSTORE_OSD_LIB (the built preload library) and "
                                       "Debian's ceph-osd are required")


def run(*args: str, env: Dict[str, str] = {}) -> subprocess.CompletedProcess:
    """The subcommand through the plugin's own entry (main.SMRStore), under Debian's python3."""
    e = dict(os.environ, PYTHONPATH=str(HERE.parent), SMRSTORE_OSD_LIB=LIB, **env)
    code = "import sys; from ceph_volume_smrstore.main import SMRStore; SMRStore(sys.argv[1:]).main()"
    return subprocess.run(["/usr/bin/python3", "-c", code, "check-ceph", *args],
                          capture_output=True, text=True, env=e, timeout=300)


@pytest.fixture(scope="module")
def altered(tmp_path_factory: pytest.TempPathFactory) -> Tuple[str, str]:
    """(another build-id, other bytes at ObjectStore::create): copies of Debian's ceph-osd."""
    return altered_ceph_osd.make(OSD, str(tmp_path_factory.mktemp("altered")))


def one_line(p: subprocess.CompletedProcess) -> str:
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    return lines[0]


# --- Debian's own binaries: may run -------------------------------------------------------------

def test_installed_ceph_osd_may_run() -> None:
    p = run("--binary", OSD)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stderr == ""
    out = p.stdout
    assert "check-ceph: /usr/bin/ceph-osd: smrstore OSDs may run on it" in out
    assert "build-id %s" % altered_ceph_osd.build_id(OSD) in out
    assert "preload: a build-id it knows; osd_objectstore accepts smrstore and " \
           "ObjectStore::create is redirected" in out
    assert re.search(r"vtables: 4 vtables, 97 slots compared with the record .*, 0 differ", out)
    assert ("layouts: not checked (ceph-osd-dbg not installed)" in out
            or re.search(r"layouts: \d+ types from its debug info against pacific-\w+\.layout, "
                         r"0 differ", out)), out


def test_default_is_both_binaries_and_quiet_prints_nothing() -> None:
    p = run("--quiet")
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")
    p = run("--format", "json")
    doc = json.loads(p.stdout)
    assert p.returncode == 0 and doc["may_run"] is True and doc["reasons"] == []
    assert [b["binary"] for b in doc["binaries"]] == [OSD, TOOL]
    assert all(b["preload"]["ok"] and b["checks"][0]["status"] == "ok" for b in doc["binaries"])


# --- altered copies: must not run, one line ---------------------------------------------------

def test_another_build_id_is_refused_with_one_line(altered: Tuple[str, str]) -> None:
    other_build, _ = altered
    p = run("--binary", other_build, "--quiet")
    assert p.returncode == 1 and p.stdout == ""
    line = one_line(p)
    bid = altered_ceph_osd.build_id(other_build)
    assert bid != altered_ceph_osd.build_id(OSD)
    assert line == ("check-ceph: %s 16.2.15 build-id %s is not a build smrstore was verified "
                    "against: %s" % (other_build, bid, MUST_NOT)), line


def test_other_bytes_at_create_are_refused_with_one_line(altered: Tuple[str, str]) -> None:
    _, other_bytes = altered
    p = run("--binary", other_bytes)
    assert p.returncode == 1
    line = one_line(p)
    assert line.startswith("check-ceph: %s 16.2.15 build-id %s: the preload library refuses it "
                           "(the first bytes of ObjectStore::create are 55 48 89 e4"
                           % (other_bytes, altered_ceph_osd.build_id(OSD))), line
    assert line.endswith(MUST_NOT)
    assert "preload: refused: the first bytes of ObjectStore::create" in p.stdout
    assert "may run" not in p.stdout


def test_one_bad_binary_among_good_ones_refuses(altered: Tuple[str, str]) -> None:
    p = run("--binary", OSD, "--binary", altered[0], "--format", "json")
    doc = json.loads(p.stdout)
    assert p.returncode == 1 and doc["may_run"] is False
    assert [b["may_run"] for b in doc["binaries"]] == [True, False]
    assert doc["reasons"] == [one_line(p)]


def test_a_missing_binary_or_library_is_refused(tmp_path: Path) -> None:
    p = run("--binary", str(tmp_path / "ceph-osd"))
    assert p.returncode == 1
    assert one_line(p) == "check-ceph: %s: no such file: %s" % (tmp_path / "ceph-osd", MUST_NOT)
    p = run("--binary", OSD, "--library", str(tmp_path / "lib.so"))
    assert p.returncode == 1
    assert "the preload library %s is missing (is smrstore installed?)" % (tmp_path / "lib.so") \
        in one_line(p)


# --- the vtable and layout checks can fail ----------------------------------------------------

def test_a_vtable_slot_unlike_the_record_refuses() -> None:
    record = expected.read_record()
    obj = next(t for t in record if t.label == "ObjectStore")
    s = obj.slots[8]
    assert s.display == "flush_cache(std::ostream*)"
    obj.slots[8] = type(s)(8, None, None, "flush_cache(std::ostream&)", "flush_cache(std::ostream&)")
    c = expected.check_vtables(OSD, record)
    assert c.status == "differ" and len(c.lines) == 1
    assert c.first == ("ObjectStore slot 8: recorded flush_cache(std::ostream&) / binary "
                       "flush_cache(std::ostream*)")
    v = check_ceph.Verdict(OSD, "16.2.15", "fb66", check_ceph.Preload(True, True, True, True, "", 0),
                           [c])
    assert check_ceph.refusal_line(v, LIB) == (
        "check-ceph: %s 16.2.15 build-id fb66: its vtables differ from those smrstore was "
        "verified against (1: %s): %s" % (OSD, c.first, MUST_NOT))
    # An `all` vtable with one slot more (ObjectStore grew a virtual) differs too.
    record = expected.read_record()
    obj = next(t for t in record if t.label == "ObjectStore")
    del obj.slots[-1]
    c = expected.check_vtables(OSD, record)
    assert c.status == "differ" and c.lines == ["ObjectStore 76 slots, recorded 75"]


def test_layouts_unlike_the_record_refuse(monkeypatch: pytest.MonkeyPatch) -> None:
    path = expected.layout_for(altered_ceph_osd.build_id(OSD))
    assert path is not None
    text = Path(path).read_text()
    assert "\nceph::os::Transaction sizeof 264\n" in text
    monkeypatch.setattr(expected, "has_debug_info", lambda b: True)
    monkeypatch.setattr(expected, "binary_layout", lambda b, bid: text)
    c = expected.check_layouts(OSD)
    assert c.status == "ok", c.lines
    assert c.summary == "%d types from its debug info against %s, 0 differ" % (
        len(parse_layout(text)), os.path.basename(path))
    changed = text.replace("\nceph::os::Transaction sizeof 264\n", "\nceph::os::Transaction sizeof 272\n")
    monkeypatch.setattr(expected, "binary_layout", lambda b, bid: changed)
    c = expected.check_layouts(OSD)
    assert c.status == "differ"
    assert c.first == "ceph::os::Transaction: sizeof pacific 264 / ours 272"


def test_the_gate_does_not_run_gdb(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """With --osd-id (a unit's ExecStartPre) layouts come only from the cache: gdb over the
    debug info takes minutes."""
    monkeypatch.setattr(expected, "has_debug_info", lambda b: True)
    monkeypatch.setattr(expected, "CACHE_DIR", str(tmp_path))

    def no_gdb(b: str, bid: str) -> str:
        raise AssertionError("gdb run")
    monkeypatch.setattr(expected, "binary_layout", no_gdb)
    c = expected.check_layouts(OSD, generate_missing=False)
    assert c.status == "skipped" and c.summary.startswith(
        "not checked (not read from its debug info yet: run `ceph-volume smrstore check-ceph")


@pytest.mark.skipif(not os.access(OSD, os.R_OK) or not expected.has_debug_info(OSD),
                    reason="ceph-osd-dbg not installed (or CEPH_VOLUME_SMRSTORE_DEBUG_DIR not set to an "
           "extracted one)")
def test_layouts_from_real_debug_info_equal_the_record() -> None:
    c = expected.check_layouts(OSD)
    assert c.status == "ok", c.lines


# --- --osd-id: the drop-in's gate ---------------------------------------------------------------

@pytest.fixture
def unreachable_cluster(tmp_path: Path) -> Dict[str, str]:
    """A ceph.conf whose OSD log is in tmp_path and whose monitor does not answer."""
    conf = tmp_path / "ceph.conf"
    conf.write_text("[global]\nmon host = 127.0.0.1:9\nauth client required = none\n"
                    "log file = %s/$name.log\n" % tmp_path)
    return {"CEPH_CONF": str(conf)}


def test_osd_id_refusal_goes_to_the_osd_log(altered: Tuple[str, str], tmp_path: Path,
                                            unreachable_cluster: Dict[str, str]) -> None:
    p = run("--osd-id", "7", "--quiet", "--binary", altered[0], env=unreachable_cluster)
    assert p.returncode == 1 and p.stdout == ""
    line = one_line(p)
    log = (tmp_path / "osd.7.log").read_text().splitlines()
    assert len(log) == 2, log
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000\+0000 \d+ -1 (.*)$", log[0])
    assert log[0].endswith(" -1 " + line)
    assert "is not a build smrstore was verified against" in log[0]
    # The monitor does not answer: said in the log, the verdict unchanged.
    assert "check-ceph: could not record the refusal for ceph health (config-key set " \
           "daemon-private/osd.7/smrstore/check-ceph: " in log[1]


@pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")
def test_a_log_file_it_creates_belongs_to_the_log_directory_owner(tmp_path: Path) -> None:
    d = tmp_path / "log"
    d.mkdir()
    os.chown(d, 64045, 64045)   # as /var/log/ceph is ceph's; this test runs as root
    assert check_ceph.append_log(str(d / "ceph-osd.3.log"), "check-ceph: x") is None
    st = (d / "ceph-osd.3.log").stat()
    assert (st.st_uid, st.st_gid) == (64045, 64045)
    (d / "other.log").write_text("")
    assert check_ceph.append_log(str(d / "other.log"), "check-ceph: y") is None
    assert (d / "other.log").stat().st_uid == os.getuid()   # an existing file keeps its owner


def test_osd_id_pass_leaves_the_log_alone(tmp_path: Path,
                                          unreachable_cluster: Dict[str, str]) -> None:
    p = run("--osd-id", "7", "--quiet", env=unreachable_cluster)
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")
    assert not (tmp_path / "osd.7.log").exists()


def test_osd_id_must_be_a_number() -> None:
    p = run("--osd-id", "x")
    assert p.returncode == 2 and "--osd-id 'x' is not a number" in p.stderr


def test_selftest_line_parsing() -> None:
    out = ("selftest: /tmp/x build-id  known=0 option_patched=0 create_patched=0 refusal: "
           "/tmp/x (build-id none) is not a build\nselftest: FAIL both patches in place\n")
    pre = check_ceph.parse_selftest(out, 1)
    assert (pre.ran, pre.known, pre.ok, pre.refusal) == (True, False, False,
                                                         "/tmp/x (build-id none) is not a build")
    pre = check_ceph.parse_selftest("selftest: /usr/bin/ceph-osd build-id fb known=1 "
                                    "option_patched=1 create_patched=1\n", 0)
    assert pre.ok
    assert not check_ceph.parse_selftest("/usr/bin/ceph-osd: -h or --help for usage\n", 1).ran
