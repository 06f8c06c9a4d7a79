import { describe, expect, it } from "vitest";
import { parseHash, parseRoute, routeHref, type Route } from "./route";

describe("parseHash", () => {
  it("takes the token out of a bare #token= hash", () => {
    expect(parseHash("#token=abc123")).toEqual({ route: { view: "overview" }, token: "abc123", cleanHash: "#/" });
  });
  it("keeps the route when a token follows it", () => {
    const p = parseHash("#/zones/demo-a/1&token=t%2Bx");
    expect(p.token).toBe("t+x");
    expect(p.route).toEqual({ view: "zones", daemon: "demo-a", drive: 1 });
    expect(p.cleanHash).toBe("#/zones/demo-a/1");
  });
  it("has no token otherwise", () => {
    expect(parseHash("").token).toBeNull();
    expect(parseHash("#/gc")).toEqual({ route: { view: "gc" }, token: null, cleanHash: "#/gc" });
    expect(parseHash("#token=").token).toBeNull();
  });
});

describe("parseRoute", () => {
  it("recognises every view and round-trips through routeHref", () => {
    const routes: Route[] = [
      { view: "overview" },
      { view: "daemon", daemon: "osd.3" },
      { view: "zones", daemon: null, drive: null },
      { view: "zones", daemon: "demo a", drive: null },
      { view: "zones", daemon: "demo-a", drive: 12 },
      { view: "wa", daemon: null },
      { view: "wa", daemon: "demo-a" },
      { view: "gc" },
      { view: "hybrid" },
    ];
    for (const r of routes) expect(parseRoute(routeHref(r).slice(1))).toEqual(r);
  });
  it("rejects malformed paths", () => {
    expect(parseRoute("/zones/a/x").view).toBe("notfound");
    expect(parseRoute("/zones/a/-1").view).toBe("notfound");
    expect(parseRoute("/nope").view).toBe("notfound");
    expect(parseRoute("/daemons/%E0%A4%A").view).toBe("notfound");
  });
});
