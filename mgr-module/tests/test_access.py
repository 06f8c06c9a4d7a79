"""Who gets in: every route the app has x every way a client can present a credential.

The routes come from the FastAPI app itself (not a list kept by hand), so a route added
later is checked without touching this file: a new protected route goes through the whole
matrix, and a new route without the token dependency makes the "unprotected routes" check
fail.  Tokens come from the module's real TokenStore (smrstore/auth.py): a token is valid
from ``create`` until ``remove``; tokens do not expire by age, so "removed" is the only way
a once-good token goes bad.
"""

import re
from typing import Dict, List, Tuple

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from test_api import build
from test_auth import DictKV

from smrstore.auth import TokenStore

# A value for every path parameter a route may have; a route with a new one fails loudly
# (KeyError) until it is added here.
PATH_PARAMS = {"name": "demo-a", "index": "0", "rest": "no-such-route"}
# Routes anyone may GET: only the web console (its static files, or the "not built" page).
PUBLIC = {"/"}
KNOWN_PROTECTED = {"/api/v1/summary", "/api/v1/daemons", "/api/v1/daemons/{name}",
                   "/api/v1/daemons/{name}/drives/{index}/zones", "/api/v1/history",
                   "/api/v1/gc", "/api/v1/conversion", "/api/v1/health", "/metrics",
                   "/api/v1/openapi.json", "/api/v1/{rest:path}"}


def concrete(path: str) -> str:
    return re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: PATH_PARAMS[m.group(1)], path)


def app_routes(c: TestClient) -> Dict[str, str]:
    """Route template -> a concrete URL, for every GET route of the app."""
    out = {}
    for r in c.app.routes:      # type: ignore[attr-defined]
        if isinstance(r, APIRoute):
            assert r.methods <= {"GET", "HEAD"}, f"{r.path} changes state: {r.methods}"
            out[r.path] = concrete(r.path)
    return out


def split_routes(c: TestClient) -> Tuple[Dict[str, str], Dict[str, str]]:
    """(protected, public): a route is protected if a request without credentials gets 401."""
    protected: Dict[str, str] = {}
    public: Dict[str, str] = {}
    for tmpl, url in app_routes(c).items():
        (protected if c.get(url).status_code == 401 else public)[tmpl] = url
    return protected, public


def test_route_list_comes_from_the_app() -> None:
    c = build()
    protected, public = split_routes(c)
    assert protected and KNOWN_PROTECTED <= set(protected)
    assert set(public) == PUBLIC
    # Everything the API documents is among the routes checked (and so protected).
    tok = TokenStore(DictKV())
    c = build(tokens=tok)
    spec = c.get("/api/v1/openapi.json",
                 headers={"Authorization": f"Bearer {tok.create('docs')}"}).json()
    assert spec["paths"] and set(spec["paths"]) <= set(protected)


# (id, headers, query params, cookies, accepted).  "{good}" is a live token, "{removed}" one
# that was valid until 'token rm'.
Way = Tuple[str, Dict[str, str], Dict[str, str], Dict[str, str], bool]
WAYS: List[Way] = [
    ("bearer-header", {"Authorization": "Bearer {good}"}, {}, {}, True),
    ("bearer-scheme-any-case", {"Authorization": "bearer {good}"}, {}, {}, True),
    ("no-credentials", {}, {}, {}, False),
    ("basic-scheme", {"Authorization": "Basic {good}"}, {}, {}, False),
    ("token-scheme", {"Authorization": "Token {good}"}, {}, {}, False),
    ("no-scheme", {"Authorization": "{good}"}, {}, {}, False),
    ("empty-header", {"Authorization": ""}, {}, {}, False),
    ("bearer-empty-token", {"Authorization": "Bearer "}, {}, {}, False),
    ("bearer-only", {"Authorization": "Bearer"}, {}, {}, False),
    ("wrong-token", {"Authorization": "Bearer not-a-token"}, {}, {}, False),
    ("token-with-suffix", {"Authorization": "Bearer {good}x"}, {}, {}, False),
    ("removed-token", {"Authorization": "Bearer {removed}"}, {}, {}, False),
    ("query-token", {}, {"token": "{good}"}, {}, False),
    ("query-access-token", {}, {"access_token": "{good}"}, {}, False),
    ("query-authorization", {}, {"authorization": "Bearer {good}"}, {}, False),
    ("cookie-token", {}, {}, {"token": "{good}"}, False),
    ("cookie-authorization", {}, {}, {"Authorization": "Bearer {good}"}, False),
    ("other-header", {"X-Auth-Token": "{good}", "X-Api-Key": "{good}"}, {}, {}, False),
]


@pytest.mark.parametrize("way", WAYS, ids=[w[0] for w in WAYS])
def test_every_protected_route_accepts_only_a_bearer_header(way: Way) -> None:
    _, headers, params, cookies, accepted = way
    tokens = TokenStore(DictKV())
    removed = tokens.create("old")
    tokens.remove("old")
    good = tokens.create("web")

    def fill(d: Dict[str, str]) -> Dict[str, str]:
        return {k: v.replace("{good}", good).replace("{removed}", removed) for k, v in d.items()}

    c = build(tokens=tokens)
    protected, _ = split_routes(c)
    assert KNOWN_PROTECTED <= set(protected)
    for tmpl, url in protected.items():
        c.cookies.clear()
        c.cookies.update(fill(cookies))
        r = c.get(url, headers=fill(headers), params=fill(params))
        if accepted:
            want = 404 if tmpl == "/api/v1/{rest:path}" else 200
            assert r.status_code == want, (tmpl, r.status_code, r.text[:200])
        else:
            assert r.status_code == 401, (tmpl, r.status_code, r.text[:200])
            assert r.headers["www-authenticate"] == "Bearer", tmpl
            assert good not in r.text, tmpl


def test_a_token_stops_working_when_removed() -> None:
    tokens = TokenStore(DictKV())
    tok = tokens.create("web")
    c = build(tokens=tokens)
    auth = {"Authorization": f"Bearer {tok}"}
    assert c.get("/api/v1/summary", headers=auth).status_code == 200
    tokens.remove("web")
    assert c.get("/api/v1/summary", headers=auth).status_code == 401
