"""The OSD source: what the mgr has of every OSD that runs SMRStore.

An OSD runs SMRStore when its metadata says ``osd_objectstore: smrstore`` (Debian's ceph-osd
with libsmrstore_osd.so preloaded).  For each such OSD, at every sample:

* its ``smrstore_*`` perf counters (loggers ``smrstore``, ``smrstore-drive.<i>``), as the
  OSD's MgrClient reported them (``get_perf_schema`` + ``get_latest_counter``: the value
  and when the mgr received it);
* its ``smrstore stats`` document, asked for with ``send_command`` (an OSD answers a
  mgr-sent command with any of its admin-socket commands, as for ``ceph tell osd.N``).
  Commands run in parallel and are waited for at most ``command_timeout`` seconds; an OSD
  whose previous answer is still outstanding is not asked again, and the last answer is
  kept (a late one is used at the next sample; one outstanding for ``abandon_after``
  seconds is given up and the OSD asked again).

The mgr calls are behind ``OsdMgr`` (the MgrModule itself in ceph-mgr, a fake in the
tests); ``model.parse_osd`` turns each ``OsdReading`` into a DaemonState.
"""

import json
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Protocol, Tuple

from .model import OsdReading

OBJECTSTORE = "smrstore"
STATS_COMMAND = "smrstore stats"
COUNTER_PREFIXES = ("smrstore.", "smrstore-drive.")


class OsdMgr(Protocol):
    """The MgrModule calls the OSD source makes (names and arguments as in ceph-mgr 16.2)."""

    def get(self, data_name: str) -> Any: ...

    def get_perf_schema(self, svc_type: str, svc_name: str) -> Any: ...

    def get_latest_counter(self, svc_type: str, svc_name: str, path: str) -> Any: ...

    def send_command(self, result: Any, svc_type: str, svc_id: str, command: str,
                     tag: str, inbuf: Optional[str] = None) -> None: ...


def smrstore_osds(osd_metadata: Optional[Mapping[str, Any]]) -> List[int]:
    """Ids of the OSDs whose metadata (``self.get('osd_metadata')``: id -> map) says
    ``osd_objectstore: smrstore``, in order."""
    out = []
    for key, meta in (osd_metadata or {}).items():
        if isinstance(meta, Mapping) and meta.get("osd_objectstore") == OBJECTSTORE:
            try:
                out.append(int(key))
            except (TypeError, ValueError):
                continue
    return sorted(out)


def up_osds(osd_map: Optional[Mapping[str, Any]]) -> Optional[set]:
    """Ids of the up OSDs in ``self.get('osd_map')``; None when the map is not there."""
    if not osd_map or not isinstance(osd_map.get("osds"), list):
        return None
    return {int(o["osd"]) for o in osd_map["osds"]
            if isinstance(o, Mapping) and o.get("up") == 1 and "osd" in o}


# The command send_command sends: the admin-socket command's prefix, JSON out.
STATS_COMMAND_JSON = json.dumps({"prefix": STATS_COMMAND, "format": "json"})


class _Pending:
    """A command's completion: ceph-mgr calls ``complete(r, outb, outs)`` from its own thread
    (any object with that method will do; mgr_module.CommandResult is the same)."""

    def __init__(self, sent: float) -> None:
        self.sent = sent
        self.ev = threading.Event()
        self.r = 0
        self.outb = ""
        self.outs = ""

    def complete(self, r: int, outb: str, outs: str) -> None:
        self.r, self.outb, self.outs = r, outb, outs
        self.ev.set()


@dataclass
class _OsdDocState:
    document: Any = None               # the last good answer (raw outb)
    error: Optional[str] = None        # why the last ask failed; None after a good answer
    pending: Optional[_Pending] = None


class OsdSource:
    def __init__(self, command_timeout: float = 5.0, abandon_after: float = 60.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.command_timeout = command_timeout
        self.abandon_after = abandon_after
        self._clock = clock
        self._lock = threading.Lock()
        self._docs: Dict[int, _OsdDocState] = {}

    def counters(self, mgr: OsdMgr, osd_id: int) -> Dict[str, Tuple[float, float]]:
        """The OSD's smrstore_* counters: path -> (time the mgr received it, value)."""
        sid = str(osd_id)
        schema = (mgr.get_perf_schema("osd", sid) or {}).get(f"osd.{sid}") or {}
        out: Dict[str, Tuple[float, float]] = {}
        for path in schema:
            if not path.startswith(COUNTER_PREFIXES):
                continue
            latest = (mgr.get_latest_counter("osd", sid, path) or {}).get(path)
            if latest:            # (t, v) or (t, v, count) for averages; [] before any value
                out[path] = (latest[0], latest[1])
        return out

    def _finish(self, osd_id: int, st: _OsdDocState) -> None:
        p = st.pending
        if p is None or not p.ev.is_set():
            return
        st.pending = None
        if p.r == 0:
            st.document, st.error = p.outb, None
        else:
            st.error = (f"{STATS_COMMAND} answered {p.r}: "
                        f"{(p.outs or '').strip() or 'no message'}")

    def documents(self, mgr: OsdMgr, osd_ids: List[int],
                  known: Optional[List[int]] = None) -> Dict[int, Tuple[Any, Optional[str]]]:
        """Asks each OSD of osd_ids for ``smrstore stats`` (unless its last ask is
        outstanding), waits up to command_timeout for all, returns id -> (last good answer or
        None, error or None).  The answers of OSDs neither asked nor in ``known`` (default:
        osd_ids) are forgotten."""
        now = self._clock()
        keep = set(osd_ids) | set(known or ())
        with self._lock:
            for gone in set(self._docs) - keep:
                del self._docs[gone]
            waits = []
            for i in osd_ids:
                st = self._docs.setdefault(i, _OsdDocState())
                self._finish(i, st)
                if st.pending is not None and now - st.pending.sent > self.abandon_after:
                    st.error = (f"{STATS_COMMAND} did not answer in {self.abandon_after:.0f} s; "
                                "asked again")
                    st.pending = None    # ceph-mgr may still complete it: nobody waits
                if st.pending is None:
                    st.pending = _Pending(now)
                    mgr.send_command(st.pending, "osd", str(i), STATS_COMMAND_JSON,
                                     f"smrstore-stats-{i}")
                waits.append(st.pending)
        deadline = time.monotonic() + self.command_timeout
        for p in waits:
            p.ev.wait(max(0.0, deadline - time.monotonic()))
        out: Dict[int, Tuple[Any, Optional[str]]] = {}
        with self._lock:
            for i in osd_ids:
                st = self._docs[i]
                self._finish(i, st)
                err = st.error
                if st.pending is not None:
                    age = self._clock() - st.pending.sent
                    err = (f"{STATS_COMMAND} has not answered for {age:.0f} s"
                           + (f" (last error: {st.error})" if st.error else ""))
                out[i] = (st.document, err)
        return out

    def collect(self, mgr: OsdMgr) -> Dict[str, OsdReading]:
        """Every smrstore OSD's reading, by name ``osd.N``.  A down OSD is not asked; it still
        shows from the counters the mgr kept and its last answer (both age into
        SMRSTORE_DAEMON_STALE); a down OSD the mgr has nothing of is left out."""
        ids = smrstore_osds(mgr.get("osd_metadata"))
        up = up_osds(mgr.get("osd_map"))
        ask = [i for i in ids if up is None or i in up]
        docs = self.documents(mgr, ask, known=ids)
        out: Dict[str, OsdReading] = {}
        for i in ids:
            counters = self.counters(mgr, i)
            if i in docs:
                doc, err = docs[i]
            else:
                with self._lock:
                    st = self._docs.get(i)
                    doc = st.document if st is not None else None
                if not counters and doc is None:
                    continue
                err = "the OSD is down"
            out[f"osd.{i}"] = OsdReading(counters=counters, document=doc, document_error=err)
        return out


def capture_osd(mgr: OsdMgr, osd_id: int, timeout: float = 10.0) -> Dict[str, Any]:
    """What the module reads of one smrstore OSD, as ceph-mgr returns it (``ceph smrstore osd
    capture ID``; the tests replay such captures through a fake OsdMgr): the OSD's metadata
    and osd_map entry, the perf schema and latest values of its smrstore_* counters (and of
    two OSD counters, to show they are filtered out) and the raw ``smrstore stats`` answer."""
    sid = str(osd_id)
    meta = (mgr.get("osd_metadata") or {}).get(sid)
    if meta is None:
        raise KeyError(f"no metadata of osd.{sid}")
    osds = (mgr.get("osd_map") or {}).get("osds") or []
    entry = next((o for o in osds if isinstance(o, Mapping) and o.get("osd") == osd_id), None)
    schema = (mgr.get_perf_schema("osd", sid) or {}).get(f"osd.{sid}") or {}
    keep = [p for p in schema if p.startswith(COUNTER_PREFIXES) or p in ("osd.op_w", "osd.op_r")]
    latest = {p: (mgr.get_latest_counter("osd", sid, p) or {}).get(p) for p in keep}
    done = _Pending(time.time())
    mgr.send_command(done, "osd", sid, STATS_COMMAND_JSON, f"smrstore-capture-{sid}")
    answered = done.ev.wait(timeout)
    return {
        "osd_id": osd_id,
        "osd_metadata": {sid: meta},
        "osd_map": {"osds": [entry] if entry is not None else []},
        "perf_schema": {f"osd.{sid}": {p: schema[p] for p in keep}},
        "latest_counter": latest,
        "stats_command": {"answered": answered, "r": done.r, "outb": done.outb,
                          "outs": done.outs},
    }
