"""The REST API (FastAPI, pydantic v1): ``/api/v1/...``, ``/metrics`` and the web console's
static files.

``create_app(provider, web_root)`` takes any object with the DataProvider methods: the mgr
module passes itself, the tests pass plain data.  Every ``/api/v1`` route (the OpenAPI
document included) and ``/metrics`` need ``Authorization: Bearer <token>``; the console's
static files are public (the console asks for the token).
"""

import os
from typing import List, Optional, Protocol

from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles

from . import prometheus, views
from .health import HealthCheck, Thresholds
from .history import History
from .model import DaemonState, Snapshot

API_PREFIX = "/api/v1"
API_VERSION = "1.0.0"
MAX_WINDOW = 7 * 24 * 3600
MAX_DRIVE_INDEX = 4095
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"


class DataProvider(Protocol):
    def snapshot(self) -> Snapshot: ...

    def history(self) -> History: ...

    def health_checks(self) -> List[HealthCheck]: ...

    def thresholds(self) -> Thresholds: ...

    def verify_token(self, token: Optional[str]) -> Optional[str]: ...


_bearer = HTTPBearer(auto_error=False)


def create_app(provider: DataProvider, web_root: Optional[str] = None) -> FastAPI:
    app = FastAPI(title="smrstore mgr module API", version=API_VERSION,
                  description="Zones, write amplification, GC and conversion state of the "
                              "smrstore daemons (doc/stats-schema.md). Every route needs "
                              "'Authorization: Bearer <token>' ('ceph smrstore token create').",
                  openapi_url=None, docs_url=None, redoc_url=None)

    def require_token(creds: Optional[HTTPAuthorizationCredentials] = Depends(_bearer)) -> str:
        if creds is None:
            raise HTTPException(status_code=401, detail="missing 'Authorization: Bearer <token>' "
                                "header (create a token with 'ceph smrstore token create')",
                                headers={"WWW-Authenticate": "Bearer"})
        name = provider.verify_token(creds.credentials)
        if name is None:
            raise HTTPException(status_code=401, detail="invalid or revoked token",
                                headers={"WWW-Authenticate": "Bearer"})
        return name

    auth = [Depends(require_token)]

    def stale_s() -> float:
        return provider.thresholds().stale_seconds

    def lookup(snap: Snapshot, name: str) -> DaemonState:
        d = snap.daemons.get(name)
        if d is None:
            known = ", ".join(sorted(snap.daemons)) or "none"
            raise HTTPException(status_code=404,
                                detail=f"no smrstore daemon named {name!r} (known: {known})")
        return d

    @app.get(API_PREFIX + "/openapi.json", dependencies=auth, include_in_schema=False)
    def openapi() -> JSONResponse:
        return JSONResponse(app.openapi())

    @app.get(API_PREFIX + "/summary", response_model=views.Summary, dependencies=auth,
             tags=["cluster"], summary="Cluster overview")
    def get_summary() -> views.Summary:
        return views.summary(provider.snapshot(), provider.health_checks(), stale_s())

    @app.get(API_PREFIX + "/daemons", response_model=List[views.DaemonSummary],
             dependencies=auth, tags=["daemons"], summary="All smrstore daemons")
    def get_daemons() -> List[views.DaemonSummary]:
        return views.daemons(provider.snapshot(), stale_s())

    @app.get(API_PREFIX + "/daemons/{name}", response_model=views.DaemonDetail,
             dependencies=auth, tags=["daemons"], summary="One daemon's stats document",
             responses={404: {"description": "unknown daemon"}})
    def get_daemon(name: str = Path(..., regex=NAME_PATTERN)) -> views.DaemonDetail:
        snap = provider.snapshot()
        return views.daemon_detail(lookup(snap, name), snap.time, stale_s())

    @app.get(API_PREFIX + "/daemons/{name}/drives/{index}/zones",
             response_model=views.DriveZones, dependencies=auth, tags=["daemons"],
             summary="A drive's zone map and stream map",
             responses={404: {"description": "unknown daemon or drive"}})
    def get_zones(name: str = Path(..., regex=NAME_PATTERN),
                  index: int = Path(..., ge=0, le=MAX_DRIVE_INDEX)) -> views.DriveZones:
        d = lookup(provider.snapshot(), name)
        z = views.drive_zones(d, index)
        if z is None:
            raise HTTPException(status_code=404, detail=f"daemon {name!r} has no drive {index} "
                                f"(drives 0..{len(d.doc.drives) - 1})")
        return z

    @app.get(API_PREFIX + "/history", response_model=views.HistoryOut, dependencies=auth,
             tags=["cluster"], summary="Time series per daemon",
             responses={404: {"description": "unknown daemon"}})
    def get_history(daemon: Optional[str] = Query(None, regex=NAME_PATTERN,
                                                  description="one daemon; all if omitted"),
                    window: int = Query(3600, ge=10, le=MAX_WINDOW,
                                        description="seconds back from now")) -> views.HistoryOut:
        snap = provider.snapshot()
        hist = provider.history()
        if daemon is not None:
            if daemon not in snap.daemons and daemon not in hist.daemons():
                lookup(snap, daemon)
            names = [daemon]
        else:
            names = sorted(set(snap.daemons) | set(hist.daemons()))
        return views.history(hist, names, window, snap.time)

    @app.get(API_PREFIX + "/gc", response_model=views.GcOut, dependencies=auth, tags=["cluster"],
             summary="GC activity and recent rates per daemon")
    def get_gc(window: int = Query(60, ge=10, le=MAX_WINDOW,
                                   description="seconds the rates are computed over")) -> views.GcOut:
        return views.gc(provider.snapshot(), provider.history(), window)

    @app.get(API_PREFIX + "/conversion", response_model=List[views.ConversionDrive],
             dependencies=auth, tags=["cluster"], summary="Hybrid CMR/SMR state per drive")
    def get_conversion() -> List[views.ConversionDrive]:
        return views.conversion(provider.snapshot())

    @app.get(API_PREFIX + "/health", response_model=List[views.HealthCheckOut],
             dependencies=auth, tags=["cluster"], summary="Health checks the module raises")
    def get_health() -> List[views.HealthCheckOut]:
        return views.health_out(provider.health_checks())

    @app.get("/metrics", response_class=PlainTextResponse, dependencies=auth,
             tags=["metrics"], summary="Prometheus text exposition")
    def get_metrics() -> PlainTextResponse:
        text = prometheus.render(provider.snapshot(), stale_s())
        return PlainTextResponse(text, media_type="text/plain; version=0.0.4; charset=utf-8")

    # Unknown GET routes under /api/v1 answer a JSON 404 (after auth); other methods get
    # 405 from routing: no route changes state.
    @app.get(API_PREFIX + "/{rest:path}", include_in_schema=False, dependencies=auth)
    def unknown(rest: str, request: Request) -> None:
        raise HTTPException(status_code=404,
                            detail=f"no API route {request.method} {API_PREFIX}/{rest}")

    if web_root and os.path.isdir(web_root):
        app.mount("/", StaticFiles(directory=web_root, html=True), name="web")
    else:
        @app.get("/", include_in_schema=False)
        def no_console() -> JSONResponse:
            return JSONResponse(status_code=404, content={
                "detail": f"the web console is not built (web_root {web_root or 'unset'} "
                          "missing); the API is at /api/v1"})
    return app
