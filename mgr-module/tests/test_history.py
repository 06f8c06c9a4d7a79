from typing import Any

import pytest
from conftest import GiB, doc, status

from smrstore.history import History
from smrstore.model import DaemonState, parse_service_status


def state(t: float, user: int, device: int, name: str = "demo-a", **kw: Any) -> DaemonState:
    return parse_service_status(name, status(doc(name=name, t=t, user=user, device=device, **kw)))


def test_bounded_by_samples() -> None:
    h = History(max_samples=5, max_age=1e9)
    for i in range(20):
        h.add({"demo-a": state(1000.0 + i, (i + 1) * GiB, (i + 1) * GiB)}, now=1000.0 + i)
    s = h.samples("demo-a")
    assert len(s) == 5 and [x.t for x in s] == [1015.0, 1016.0, 1017.0, 1018.0, 1019.0]


def test_bounded_by_age_and_daemon_dropped() -> None:
    h = History(max_samples=100, max_age=30.0)
    for i in range(10):
        h.add({"demo-a": state(1000.0 + 10 * i, GiB, GiB)}, now=1000.0 + 10 * i)
    assert [x.t for x in h.samples("demo-a")] == [1060.0, 1070.0, 1080.0, 1090.0]
    h.add({}, now=2000.0)
    assert h.daemons() == [] and h.samples("demo-a") == []


def test_same_snapshot_is_not_sampled_twice() -> None:
    h = History()
    d = state(1000.0, GiB, GiB)
    for now in (1000.0, 1001.0, 1002.0):
        h.add({"demo-a": d}, now=now)
    assert len(h.samples("demo-a")) == 1


def test_interval_and_lifetime_wa() -> None:
    h = History()
    h.add({"demo-a": state(1000.0, 10 * GiB, 12 * GiB)}, now=1000.0)
    h.add({"demo-a": state(1010.0, 12 * GiB, 16 * GiB)}, now=1010.0)     # 2 user, 4 device
    h.add({"demo-a": state(1020.0, 12 * GiB, 16 * GiB)}, now=1020.0)     # idle
    pts = h.points("demo-a")
    assert pts[0].wa_interval is None
    assert pts[1].wa_interval == pytest.approx(2.0)
    assert pts[1].wa_lifetime == pytest.approx(16 / 12)
    assert pts[2].wa_interval is None
    # A window that starts after the first sample still gets an interval WA on its first point.
    assert h.points("demo-a", since=1005.0)[0].wa_interval == pytest.approx(2.0)


def test_rates_and_counter_reset() -> None:
    h = History()
    h.add({"demo-a": state(1000.0, 10 * GiB, 12 * GiB, runs=1, zones_reset=2,
                           throttle_ns=0, gc_bytes=GiB)}, now=1000.0)
    assert h.rates("demo-a", 60, now=1000.0) is None
    h.add({"demo-a": state(1020.0, 12 * GiB, 16 * GiB, runs=5, zones_reset=12,
                           throttle_ns=5_000_000_000, gc_bytes=3 * GiB)}, now=1020.0)
    r = h.rates("demo-a", 60, now=1020.0)
    assert r is not None
    assert r.window == 20.0 and r.gc_runs_per_s == pytest.approx(0.2)
    assert r.zones_reset_per_s == pytest.approx(0.5)
    assert r.gc_bytes_per_s == pytest.approx(2 * GiB / 20)
    assert r.throttle_fraction == pytest.approx(0.25)
    # Only samples inside the window count.
    assert h.rates("demo-a", 10, now=1020.0) is None
    # A daemon restart resets since-mount counters such as runs: no rate, not a negative one.
    h.add({"demo-a": state(1030.0, 13 * GiB, 17 * GiB, runs=0)}, now=1030.0)
    assert h.rates("demo-a", 60, now=1030.0) is None


def test_configure_keeps_newest_and_validates() -> None:
    h = History(max_samples=10, max_age=1e9)
    for i in range(10):
        h.add({"demo-a": state(1000.0 + i, GiB, GiB)}, now=1000.0 + i)
    h.configure(max_samples=3, max_age=1e9)
    assert [x.t for x in h.samples("demo-a")] == [1007.0, 1008.0, 1009.0]
    with pytest.raises(ValueError):
        h.configure(max_samples=1, max_age=10)
    with pytest.raises(ValueError):
        History(max_samples=10, max_age=0)
