"""The module on real status maps of a store on a converting emulated hybrid drive.

fixtures/hybrid/ holds two successive `ceph service status -f json` entries of the daemon
`hyb` that web/e2e/hybrid-stack.sh published to a real ceph-mgr 16.2.15 (`smrstore-tool
serve --publish hyb --workload churn --fill 0.8` on drive 0 = emulated hybrid drive of 12
realms, 40 MB/s timing model; drive 1 = plain zoned drive), 5 s apart:

- service-status-draining.json: realm 8 being emptied ('c', progress 0.685), 10 realms
  converted to SMR, 57 migration quanta over the 100 ms bound, p99 320.434 ms;
- service-status-converting.json: the drive converting realm 8 ('>'), 58 violations.

web/src/test/live/hybrid-conversion.json is what GET /api/v1/conversion answered (the
module on ceph-mgr) at the moment of the first one: the module's views of the fixture must
give exactly that answer.
"""
import json
from pathlib import Path
from typing import Any, Dict, List

from prometheus_client.parser import text_string_to_metric_families

from smrstore import cli, views
from smrstore.health import Thresholds, evaluate
from smrstore.history import History
from smrstore.model import DaemonState, Snapshot, parse_service_status
from smrstore.prometheus import render

HERE = Path(__file__).resolve().parent
FIX = HERE / "fixtures" / "hybrid"
API_ANSWER = HERE.parent.parent / "web" / "src" / "test" / "live" / "hybrid-conversion.json"


def entry(name: str) -> Dict[str, Any]:
    with open(FIX / name, encoding="utf-8") as f:
        e: Dict[str, Any] = json.load(f)
    return e


def state(name: str) -> DaemonState:
    return parse_service_status("hyb", entry(name)["status"])


def test_the_real_status_maps_parse() -> None:
    d = state("service-status-draining.json")
    h = d.doc.drives[0].hybrid
    assert h is not None and h.supported and h.state == "converting"
    assert h.realmmap == "SSSSSSSScCSS" and (h.realms, h.realms_cmr, h.realms_smr) == (12, 2, 10)
    assert h.realms_pending == 1 and h.progress == 0.685
    assert (h.quantum_ms_p99, h.quantum_ms_max, h.bound_violations) == (320.434, 376.716, 57)
    assert h.stall_reason is None and h.conversions == 10
    zm = d.zonemaps[0]
    # 10 SMR realms (their 4 CMR zones inactive) and 2 CMR realms (their 5 SMR zones): 50
    assert len(zm) == 110 and zm.count("_") == d.doc.drives[0].zones.inactive == 50
    other = d.doc.drives[1].hybrid
    assert other is not None and not other.supported and other.realmmap == ""
    c = state("service-status-converting.json").doc.drives[0].hybrid
    assert c is not None and c.realmmap == "SSSSSSSS>CSS" and c.progress == 0.95


def test_the_modules_conversion_view_is_what_the_api_answered() -> None:
    d = state("service-status-draining.json")
    snap = Snapshot(time=d.doc.time, daemons={"hyb": d}, errors=[])
    got = [json.loads(c.json()) for c in views.conversion(snap)]
    with open(API_ANSWER, encoding="utf-8") as f:
        answered: List[Dict[str, Any]] = json.load(f)
    assert got == answered


def test_the_bound_check_on_two_real_samples() -> None:
    a, b = state("service-status-draining.json"), state("service-status-converting.json")
    hist = History()
    hist.add({"hyb": a}, now=a.doc.time)
    hist.add({"hyb": b}, now=b.doc.time)
    checks = evaluate(Snapshot(time=b.doc.time, daemons={"hyb": b}, errors=[]), hist,
                      Thresholds(stale_seconds=1e6))
    bound = [c for c in checks if c.name == "SMRSTORE_CONVERSION_BOUND_VIOLATED"]
    assert [c.detail for c in bound] == [[
        "hyb drive 0: 1 migration quantum over the 100 ms latency bound since the previous "
        "sample (58 since mount); migration quanta p99 321.299 ms > latency bound 100 ms "
        "(max 376.716 ms)"]]


def test_metrics_and_cli_of_the_real_status() -> None:
    d = state("service-status-draining.json")
    snap = Snapshot(time=d.doc.time, daemons={"hyb": d}, errors=[])
    m = {(s.name, tuple(sorted(s.labels.items()))): s.value
         for fam in text_string_to_metric_families(render(snap, 1e6)) for s in fam.samples}
    dl = (("daemon", "hyb"), ("drive", "0"))
    assert m[("smrstore_drive_realms", tuple(sorted(dl + (("domain", "cmr"),))))] == 2
    assert m[("smrstore_drive_realms", tuple(sorted(dl + (("domain", "smr"),))))] == 10
    assert m[("smrstore_drive_cmr_bytes", dl)] == 128 << 20
    assert m[("smrstore_drive_conversion_quantum_ms_p99", dl)] == 320.434
    assert m[("smrstore_drive_conversion_bound_violations_total", dl)] == 57
    assert m[("smrstore_drive_zones", tuple(sorted(dl + (("state", "inactive"),))))] == 50
    assert not any(n.startswith("smrstore_drive_realms") and dict(lab)["drive"] == "1"
                   for n, lab in m)
    text = cli.conversion_text(views.conversion(snap))
    assert text.splitlines()[1].split()[:4] == ["hyb", "0", "yes", "converting"]
    assert "  hyb drive 0: SSSSSSSScCSS  (1 pending)" in text.splitlines()
