"""Bounded per-daemon time series of the counters the console plots (WA, user/device/GC
bytes, zones reclaimed, GC runs, throttle time).

Each daemon has a ring buffer of at most ``max_samples`` samples; samples older than
``max_age`` seconds are dropped, and so are daemons not updated for that long.  A sample is
taken from a daemon's stats document and only when the document's ``time`` moved on, so a
publisher that updates every 5 s sampled every 1 s adds one sample per update.
"""

import threading
from collections import deque
from dataclasses import dataclass
from typing import Deque, Dict, List, Optional, Tuple

from .model import DaemonState


@dataclass(frozen=True)
class Sample:
    t: float
    user_bytes: int            # lifetime user bytes
    device_bytes: int          # lifetime device bytes (user + GC + padding)
    gc_bytes: int              # lifetime GC bytes
    lifetime_wa: float
    zones_reset: int
    gc_runs: int
    throttle_ns: int
    # (drive, state, progress, bound_violations) of each drive with a hybrid block
    conversion: Tuple[Tuple[int, str, Optional[float], Optional[int]], ...]


@dataclass(frozen=True)
class Point:
    t: float
    wa_interval: Optional[float]
    wa_lifetime: float
    user_bytes: int
    device_bytes: int
    gc_bytes: int
    zones_reset: int
    gc_runs: int
    throttle_ns: int


@dataclass(frozen=True)
class Rates:
    window: float              # seconds between the first and last sample used
    gc_runs_per_s: float
    zones_reset_per_s: float
    gc_bytes_per_s: float
    user_bytes_per_s: float
    throttle_fraction: float   # GC throttle time / wall time


def sample_of(d: DaemonState) -> Sample:
    doc = d.doc
    conv = tuple((dr.index, dr.hybrid.state, dr.hybrid.progress, dr.hybrid.bound_violations)
                 for dr in doc.drives if dr.hybrid is not None)
    return Sample(t=doc.time, user_bytes=doc.io.lifetime_user_bytes,
                  device_bytes=doc.io.lifetime_device_bytes,
                  gc_bytes=doc.io.lifetime_gc_bytes,
                  lifetime_wa=doc.io.lifetime_write_amplification,
                  zones_reset=doc.gc.zones_reset, gc_runs=doc.gc.runs,
                  throttle_ns=doc.gc.throttle_ns, conversion=conv)


class History:
    def __init__(self, max_samples: int = 720, max_age: float = 3600.0) -> None:
        if max_samples < 2:
            raise ValueError("history needs room for at least 2 samples")
        if max_age <= 0:
            raise ValueError("history max_age must be positive")
        self.max_samples = max_samples
        self.max_age = max_age
        self._lock = threading.Lock()
        self._series: Dict[str, Deque[Sample]] = {}

    def configure(self, max_samples: int, max_age: float) -> None:
        if max_samples < 2 or max_age <= 0:
            raise ValueError("history needs max_samples >= 2 and max_age > 0")
        with self._lock:
            self.max_samples, self.max_age = max_samples, max_age
            for name, q in list(self._series.items()):
                self._series[name] = deque(q, maxlen=max_samples)

    def add(self, daemons: Dict[str, DaemonState], now: float) -> None:
        with self._lock:
            for name, d in daemons.items():
                s = sample_of(d)
                q = self._series.get(name)
                if q is None:
                    q = self._series[name] = deque(maxlen=self.max_samples)
                if q and s.t <= q[-1].t:
                    continue           # no new update from this daemon
                q.append(s)
            horizon = now - self.max_age
            for name in list(self._series):
                q = self._series[name]
                while q and q[0].t < horizon:
                    q.popleft()
                if not q:
                    del self._series[name]

    def daemons(self) -> List[str]:
        with self._lock:
            return sorted(self._series)

    def samples(self, name: str, since: float = float("-inf")) -> List[Sample]:
        with self._lock:
            q = self._series.get(name)
            return [s for s in q if s.t >= since] if q else []

    def points(self, name: str, since: float = float("-inf")) -> List[Point]:
        """Samples as plot points.  The first point's interval WA is computed against the
        sample before the window when there is one."""
        with self._lock:
            q = list(self._series.get(name) or ())
        out: List[Point] = []
        prev: Optional[Sample] = None
        for s in q:
            if s.t >= since:
                out.append(Point(t=s.t, wa_interval=interval_wa(prev, s),
                                 wa_lifetime=s.lifetime_wa, user_bytes=s.user_bytes,
                                 device_bytes=s.device_bytes, gc_bytes=s.gc_bytes,
                                 zones_reset=s.zones_reset, gc_runs=s.gc_runs,
                                 throttle_ns=s.throttle_ns))
            prev = s
        return out

    def rates(self, name: str, window: float, now: float) -> Optional[Rates]:
        """Rates between the oldest and newest sample within ``window`` seconds of ``now``;
        None when fewer than two samples fall in it or a counter went backwards (restart)."""
        s = self.samples(name, since=now - window)
        if len(s) < 2:
            return None
        a, b = s[0], s[-1]
        dt = b.t - a.t
        deltas = (b.gc_runs - a.gc_runs, b.zones_reset - a.zones_reset,
                  b.gc_bytes - a.gc_bytes, b.user_bytes - a.user_bytes,
                  b.throttle_ns - a.throttle_ns)
        if dt <= 0 or min(deltas) < 0:
            return None
        return Rates(window=dt, gc_runs_per_s=deltas[0] / dt, zones_reset_per_s=deltas[1] / dt,
                     gc_bytes_per_s=deltas[2] / dt, user_bytes_per_s=deltas[3] / dt,
                     throttle_fraction=deltas[4] / (dt * 1e9))


def interval_wa(prev: Optional[Sample], cur: Sample) -> Optional[float]:
    """Device bytes / user bytes written between two samples; None if no user bytes were
    written in between or the counters went backwards."""
    if prev is None:
        return None
    du = cur.user_bytes - prev.user_bytes
    dd = cur.device_bytes - prev.device_bytes
    if du <= 0 or dd < 0:
        return None
    return dd / du
