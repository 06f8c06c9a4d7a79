"""ceph-mgr module ``smrstore``: the thin part that talks to ceph-mgr.

It samples both data sources every ``sample_interval`` seconds (service daemons of type
``smrstore``; OSDs whose objectstore is smrstore: perf counters + ``smrstore stats``,
osd_source.py), keeps the history, raises health checks,
answers ``ceph smrstore ...`` and serves the REST API and the web console with uvicorn.
The logic lives in the plain modules next to this one.
"""

import errno
import json
import os
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

import uvicorn
from mgr_module import CLIReadCommand, CLIWriteCommand, HandleCommandResult, MgrModule, Option

from . import cli, views
from .api import create_app
from .auth import TokenError, TokenStore
from .health import (REFUSAL_PREFIX, HealthCheck, Thresholds, evaluate, osd_refusals,
                     to_mgr_checks)
from .history import History
from .model import SERVICE_TYPE, Snapshot, merge, service_daemon_names
from .osd_source import OsdSource, capture_osd

# realpath: ceph-mgr loads the module through a symlink in its module directory.
DEFAULT_WEB_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.realpath(__file__)),
                                                 "..", "..", "web", "dist"))


class _Server(uvicorn.Server):
    def install_signal_handlers(self) -> None:
        pass   # ceph-mgr owns the process's signals


class Module(MgrModule):
    MODULE_OPTIONS = [
        Option("server_addr", default="127.0.0.1", desc="address the REST API listens on"),
        Option("server_port", type="int", default=8765, min=1, max=65535,
               desc="port of the REST API"),
        Option("ssl_certfile", default="", desc="TLS certificate (TLS when both files are set)"),
        Option("ssl_keyfile", default="", desc="TLS private key"),
        Option("web_root", default="",
               desc="directory of the built web console (default: web/dist of the source tree)"),
        Option("sample_interval", type="float", default=5.0, min=0.5, max=3600.0,
               desc="seconds between samples of the daemons' stats"),
        Option("history_seconds", type="int", default=3600, min=60, max=7 * 24 * 3600,
               desc="how far back the history goes"),
        Option("space_low_ratio", type="float", default=0.10, min=0.0, max=1.0,
               desc="SMRSTORE_SPACE_LOW when statfs writable / total is below this"),
        Option("gc_free_zones_min", type="int", default=4, min=0,
               desc="SMRSTORE_GC_BEHIND when a drive has fewer free zones while GC runs"),
        Option("gc_throttle_ratio", type="float", default=0.5, min=0.01, max=1.0,
               desc="SMRSTORE_GC_BEHIND when GC is throttled more than this share of the time"),
        Option("gc_window", type="int", default=60, min=10, max=86400,
               desc="seconds over which GC activity and rates are measured"),
        Option("conversion_stall_seconds", type="int", default=300, min=10,
               desc="SMRSTORE_CONVERSION_STALLED after this long without progress"),
        Option("stale_seconds", type="int", default=30, min=1,
               desc="SMRSTORE_DAEMON_STALE when a daemon's stats are older than this"),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._server: Optional[_Server] = None
        self._server_key: Optional[Tuple[Any, ...]] = None
        self._snapshot = Snapshot(time=time.time(), daemons={}, errors=[])
        self._checks: List[HealthCheck] = []
        self._history = History()
        self._thresholds = Thresholds()
        self._tokens = TokenStore(self)
        self._osds = OsdSource()
        self.config_notify()

    # --- options -------------------------------------------------------------------------

    def _opt(self, name: str) -> Any:
        return self.get_module_option(name)

    def config_notify(self) -> None:
        try:
            th = Thresholds(space_low_ratio=float(self._opt("space_low_ratio")),
                            gc_free_zones_min=int(self._opt("gc_free_zones_min")),
                            gc_throttle_ratio=float(self._opt("gc_throttle_ratio")),
                            gc_window=float(self._opt("gc_window")),
                            conversion_stall_seconds=float(self._opt("conversion_stall_seconds")),
                            stale_seconds=float(self._opt("stale_seconds")))
        except ValueError as e:
            self.log.error("smrstore: thresholds not changed: %s", e)
        else:
            with self._lock:
                self._thresholds = th
        interval = float(self._opt("sample_interval"))
        keep = int(self._opt("history_seconds"))
        self._history.configure(max_samples=max(2, int(keep / interval) + 2), max_age=keep)
        self._wake.set()               # re-evaluate health with the new thresholds now
        srv = self._server
        if srv is not None and self._server_key != self._server_settings():
            srv.should_exit = True     # serve() restarts it with the new address/TLS

    def _server_settings(self) -> Tuple[Any, ...]:
        return (str(self._opt("server_addr")), int(self._opt("server_port")),
                str(self._opt("ssl_certfile") or ""), str(self._opt("ssl_keyfile") or ""),
                self._web_root())

    def _web_root(self) -> Optional[str]:
        root = str(self._opt("web_root") or "")
        if root:
            return root
        return DEFAULT_WEB_ROOT if os.path.isdir(DEFAULT_WEB_ROOT) else None

    # --- DataProvider (for the API) ------------------------------------------------------

    def snapshot(self) -> Snapshot:
        with self._lock:
            return self._snapshot

    def history(self) -> History:
        return self._history

    def health_checks(self) -> List[HealthCheck]:
        with self._lock:
            return list(self._checks)

    def thresholds(self) -> Thresholds:
        with self._lock:
            return self._thresholds

    def verify_token(self, token: Optional[str]) -> Optional[str]:
        return self._tokens.verify(token)

    # --- sampling ------------------------------------------------------------------------

    def sample(self) -> Snapshot:
        now = time.time()
        names = service_daemon_names(self.get("service_map"))
        statuses = {n: self.get_daemon_status(SERVICE_TYPE, n) for n in names}
        snap = merge(now, statuses, self._osds.collect(self))
        self._history.add(snap.daemons, now)
        checks = evaluate(snap, self._history, self.thresholds())
        refused = osd_refusals(self._refusal_keys(), self.get("osd_map"))
        if refused is not None:
            checks.append(refused)
        with self._lock:
            self._snapshot, self._checks = snap, checks
        self.set_health_checks(to_mgr_checks(checks))
        for e in snap.errors:
            self.log.warning("smrstore: %s", e.message)
        return snap

    def _refusal_keys(self) -> Dict[str, str]:
        """The daemon-private config-keys, where check-ceph records an OSD it refused."""
        rc, out, err = self.mon_command({"prefix": "config-key dump", "key": REFUSAL_PREFIX,
                                         "format": "json"})
        if rc != 0:
            self.log.warning("smrstore: config-key dump %s: %s", REFUSAL_PREFIX, err)
            return {}
        try:
            keys = json.loads(out or "{}")
        except ValueError:
            return {}
        return {str(k): str(v) for k, v in keys.items()} if isinstance(keys, dict) else {}

    def _sample_loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.sample()
            except Exception:   # keep sampling; the error is in the mgr log
                self.log.exception("smrstore: sampling failed")
            self._wake.wait(float(self._opt("sample_interval")))
            self._wake.clear()

    # --- HTTP server ---------------------------------------------------------------------

    def serve(self) -> None:
        sampler = threading.Thread(target=self._sample_loop, name="smrstore-sample", daemon=True)
        sampler.start()
        while not self._stop.is_set():
            key = self._server_settings()
            addr, port, cert, keyfile, web_root = key
            tls = bool(cert and keyfile)
            config = uvicorn.Config(create_app(self, web_root), host=addr, port=port,
                                    log_config=None, access_log=False, lifespan="off",
                                    ssl_certfile=cert if tls else None,
                                    ssl_keyfile=keyfile if tls else None)
            server = _Server(config)
            self._server, self._server_key = server, key
            url = f"{'https' if tls else 'http'}://{addr}:{port}/"
            self.log.info("smrstore: serving the API on %s (web root %s)", url, web_root)
            self.set_uri(url)
            try:
                server.run()
            except (SystemExit, OSError) as e:   # uvicorn exits when it cannot bind
                self.log.error("smrstore: HTTP server on %s stopped: %r; retrying in 5 s", url, e)
                self._stop.wait(5.0)
            self._server = None
        self._wake.set()
        sampler.join(timeout=10)

    def shutdown(self) -> None:
        self._stop.set()
        self._wake.set()
        srv = self._server
        if srv is not None:
            srv.should_exit = True

    # --- CLI -----------------------------------------------------------------------------

    def _fresh(self) -> Snapshot:
        try:
            return self.sample()
        except Exception as e:  # noqa: BLE001 - answered to the operator
            self.log.exception("smrstore: sampling failed")
            raise RuntimeError(f"cannot read smrstore daemons: {e}") from e

    def _answer(self, fmt: Optional[str], obj: Any, text: str) -> HandleCommandResult:
        """The answer in the format asked for (-EINVAL with a message for an unknown one)."""
        try:
            f = cli.check_format(fmt)
        except cli.FormatError as e:
            return HandleCommandResult(-errno.EINVAL, stderr=str(e))
        if f == "plain":
            return HandleCommandResult(stdout=text)
        return HandleCommandResult(stdout=cli.to_json(obj, f))

    @CLIReadCommand("smrstore status")
    def cmd_status(self, format: Optional[str] = "plain") -> HandleCommandResult:
        """Show the smrstore daemons, capacity, write amplification and health"""
        snap = self._fresh()
        th = self.thresholds()
        s = views.summary(snap, self.health_checks(), th.stale_seconds)
        ds = views.daemons(snap, th.stale_seconds)
        return self._answer(format, {"summary": s, "daemons": ds}, cli.status_text(s, ds))

    @CLIReadCommand("smrstore zones")
    def cmd_zones(self, daemon: Optional[str] = None,
                  format: Optional[str] = "plain") -> HandleCommandResult:
        """Show the zone map of every drive (of one daemon)"""
        snap = self._fresh()
        if daemon is not None and daemon not in snap.daemons:
            return HandleCommandResult(-errno.ENOENT, stderr=f"no smrstore daemon named "
                                       f"{daemon!r} (known: {', '.join(sorted(snap.daemons)) or 'none'})")
        zs = []
        for name, d in sorted(snap.daemons.items()):
            if daemon is None or name == daemon:
                for dr in d.doc.drives:
                    z = views.drive_zones(d, dr.index)
                    if z is not None:
                        zs.append(z)
        return self._answer(format, zs, cli.zones_text(zs))

    @CLIReadCommand("smrstore wa")
    def cmd_wa(self, format: Optional[str] = "plain") -> HandleCommandResult:
        """Show write amplification per daemon (since mount, lifetime, last interval)"""
        snap = self._fresh()
        th = self.thresholds()
        ds = views.daemons(snap, th.stale_seconds)
        hist = views.history(self._history, sorted(snap.daemons), int(th.gc_window) * 10,
                             snap.time)
        return self._answer(format, {"daemons": ds, "history": hist}, cli.wa_text(ds, hist))

    @CLIReadCommand("smrstore gc")
    def cmd_gc(self, format: Optional[str] = "plain") -> HandleCommandResult:
        """Show GC activity and recent rates per daemon"""
        snap = self._fresh()
        g = views.gc(snap, self._history, int(self.thresholds().gc_window))
        return self._answer(format, g, cli.gc_text(g))

    @CLIReadCommand("smrstore conversion")
    def cmd_conversion(self, format: Optional[str] = "plain") -> HandleCommandResult:
        """Show the hybrid CMR/SMR conversion state of every drive"""
        cs = views.conversion(self._fresh())
        return self._answer(format, cs, cli.conversion_text(cs))

    @CLIReadCommand("smrstore osd capture")
    def cmd_osd_capture(self, osd_id: int) -> HandleCommandResult:
        """Dump what the module reads of one smrstore OSD, raw (for test fixtures)"""
        try:
            cap = capture_osd(self, osd_id, timeout=10.0)
        except KeyError as e:
            return HandleCommandResult(-errno.ENOENT, stderr=str(e.args[0]))
        return HandleCommandResult(stdout=cli.to_json(cap, "json-pretty"))

    @CLIWriteCommand("smrstore token create")
    def cmd_token_create(self, name: Optional[str] = None) -> HandleCommandResult:
        """Create an API token (printed once; only a salted hash is kept)"""
        if name is None:
            name = time.strftime("token-%Y%m%d-%H%M%S", time.gmtime())
        try:
            token = self._tokens.create(name)
        except TokenError as e:
            return HandleCommandResult(-errno.EINVAL, stderr=str(e))
        return HandleCommandResult(stdout=token, stderr=f"token {name!r} created; it is shown "
                                   "only now")

    @CLIReadCommand("smrstore token ls")
    def cmd_token_ls(self, format: Optional[str] = "plain") -> HandleCommandResult:
        """List API tokens (names and creation times)"""
        ts = self._tokens.list()
        return self._answer(format, [{"name": t.name, "created": t.created} for t in ts],
                            cli.tokens_text(ts))

    @CLIWriteCommand("smrstore token rm")
    def cmd_token_rm(self, name: str) -> HandleCommandResult:
        """Remove (revoke) an API token"""
        try:
            self._tokens.remove(name)
        except TokenError as e:
            return HandleCommandResult(-errno.ENOENT, stderr=str(e))
        return HandleCommandResult(stderr=f"token {name!r} removed")
