import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { App } from "./App";
import { fakeFetch } from "./test/fakeApi";
import * as fx from "./test/fixtures";
import { TOKEN_KEY } from "./lib/token";

const BASE = "http://console.test";
const OK = {
  "/api/v1/summary": { body: fx.summary },
  "/api/v1/daemons": { body: fx.daemons },
  "/api/v1/daemons/demo-a": { body: fx.detail },
  "/api/v1/daemons/demo-a/drives/0/zones": { body: fx.zones },
  "/api/v1/history": { body: fx.history },
  "/api/v1/conversion": { body: fx.conversionNone },
};

const OSD = {
  ...OK,
  "/api/v1/daemons": { body: [...fx.daemons, fx.osdSummary] },
  "/api/v1/daemons/osd.0": { body: fx.osdDetail },
  "/api/v1/daemons/osd.0/drives/0/zones": { body: fx.osdZones },
};

function at(hash: string): void {
  window.history.replaceState(null, "", `/${hash}`);
}

describe("token handling", () => {
  it("shows the token form without a token and validates input", async () => {
    at("#/");
    const f = fakeFetch(OK);
    render(<App fetch={f.fetch} baseUrl={BASE} />);
    expect(screen.getByRole("form", { name: "API token" })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Open console" }));
    expect(await screen.findByText(/ceph smrstore token create/, { selector: "p.field-error" })).toBeTruthy();
    expect(f.requests).toHaveLength(0);
  });

  it("takes #token= from the URL, strips it, stores it and sends it as a bearer token", async () => {
    at("#token=s3cret");
    const f = fakeFetch(OK);
    render(<App fetch={f.fetch} baseUrl={BASE} />);
    expect(await screen.findByText("demo-a")).toBeTruthy();
    expect(window.location.hash).toBe("#/");
    expect(sessionStorage.getItem(TOKEN_KEY)).toBe("s3cret");
    expect(f.requests.length).toBeGreaterThan(0);
    for (const r of f.requests) expect(r.headers.get("Authorization")).toBe("Bearer s3cret");
  });

  it("goes back to the token form with a message on 401", async () => {
    at("#token=revoked");
    const f = fakeFetch({
      "/api/v1/summary": { status: 401, body: { detail: "invalid or revoked token" } },
      "/api/v1/daemons": { status: 401, body: { detail: "invalid or revoked token" } },
    });
    render(<App fetch={f.fetch} baseUrl={BASE} />);
    expect(await screen.findByRole("form", { name: "API token" })).toBeTruthy();
    expect(screen.getByRole("alert").textContent).toMatch(/401.*invalid or revoked token/);
    expect(sessionStorage.getItem(TOKEN_KEY)).toBeNull();
  });
});

describe("overview", () => {
  it("shows loading, then summary, health checks and daemons", async () => {
    at("#token=t");
    render(<App fetch={fakeFetch(OK).fetch} baseUrl={BASE} />);
    expect(screen.getAllByRole("status")[0]?.textContent).toMatch(/Loading/);
    expect(await screen.findByText("SMRSTORE_SPACE_LOW")).toBeTruthy();
    expect(screen.getByTestId("daemon-table").textContent).toContain("demo-a");
    expect(screen.getAllByText("30.0 GiB").length).toBe(2); // summary card + daemon row
  });

  it("has an empty state when no daemon reports", async () => {
    at("#token=t");
    render(
      <App fetch={fakeFetch({ ...OK, "/api/v1/daemons": { body: [] } }).fetch} baseUrl={BASE} />,
    );
    expect(await screen.findByText(/No smrstore daemons report to this manager yet/)).toBeTruthy();
  });

  it("reports a network error", async () => {
    at("#token=t");
    render(
      <App
        fetch={fakeFetch({ ...OK, "/api/v1/summary": { networkError: true } }).fetch}
        baseUrl={BASE}
      />,
    );
    // Two retries (1 s + 2 s back-off) come first.
    expect(await screen.findByText(/Network error loading the cluster summary/, {}, { timeout: 8000 })).toBeTruthy();
  }, 10000);
});

describe("smrstore OSDs", () => {
  it("lists an OSD beside the service daemons, with its source, free zones and WA", async () => {
    at("#token=t");
    render(<App fetch={fakeFetch(OSD).fetch} baseUrl={BASE} />);
    const row = (await screen.findByText("osd.0")).closest("tr");
    expect(row?.getAttribute("data-source")).toBe("osd");
    expect(row?.textContent).toMatch(/^osd\.0OSD.*704 MiB.*152 MiB6.*13\.5 GiB \/ 16\.6 GiB1\.23×.*auto 1095 runs/);
    expect(row?.querySelector('[data-testid="free-zones"]')?.getAttribute("data-value")).toBe("6");
    expect(screen.getByText("demo-a").closest("tr")?.getAttribute("data-source")).toBe("service");
  });

  it("shows an OSD's figures with their exact values", async () => {
    at("#/daemons/osd.0&token=t");
    render(<App fetch={fakeFetch(OSD).fetch} baseUrl={BASE} />);
    const user = await screen.findByTestId("stat-user-bytes");
    expect(user.getAttribute("data-value")).toBe("14466154496");
    expect(user.textContent).toBe("user bytes (since mount)13.5 GiB");
    expect(screen.getByTestId("stat-wa").textContent).toContain("1.23×");
    expect(screen.getByTestId("stat-free-zones").getAttribute("data-value")).toBe("2");
    expect(screen.getByTestId("stat-gc-runs").getAttribute("data-value")).toBe("1095");
    // Quarantined zones from its counters: 0, no warning.
    expect(screen.getByTestId("stat-gc-quarantined").getAttribute("data-value")).toBe("0");
    expect(screen.getByText(/figures from its perf counters, zone maps from its/)).toBeTruthy();
    expect(screen.queryByTestId("zonemap-error")).toBeNull();
  });

  it("says why an OSD's zone maps are missing", async () => {
    at("#/daemons/osd.0&token=t");
    const err = { ...fx.osdDetail, zonemap_error: "smrstore stats answered -22: unrecognized command" };
    render(<App fetch={fakeFetch({ ...OSD, "/api/v1/daemons/osd.0": { body: err } }).fetch} baseUrl={BASE} />);
    expect((await screen.findByTestId("zonemap-error")).textContent).toBe(
      "Zone maps: smrstore stats answered -22: unrecognized command",
    );
  });
});

describe("daemon", () => {
  it("shows GC's quarantined zones as a warning, with the failed cleanings", async () => {
    at("#/daemons/demo-a&token=t");
    const quar = { ...fx.detail, gc: { ...fx.detail.gc, failures: 3, quarantined_zones: 2 } };
    render(<App fetch={fakeFetch({ ...OK, "/api/v1/daemons/demo-a": { body: quar } }).fetch} baseUrl={BASE} />);
    const q = await screen.findByTestId("stat-gc-quarantined");
    expect(q.getAttribute("data-value")).toBe("2");
    expect(q.querySelector(".badge-warn")?.textContent).toBe("2");
    expect(q.textContent).toContain("3 failed cleanings since mount");
  });

  it("shows the small objects packed since mount: entries, pack records, payload of zone bytes", async () => {
    at("#/daemons/demo-a&token=t");
    const packed = {
      ...fx.detail,
      store: { ...fx.detail.store!, pack_max: 32768 },
      io: { ...fx.detail.io, pack_records: 2, pack_entries: 120, pack_payload_bytes: 360000, pack_record_bytes: 372736 },
    };
    render(<App fetch={fakeFetch({ ...OK, "/api/v1/daemons/demo-a": { body: packed } }).fetch} baseUrl={BASE} />);
    const p = await screen.findByTestId("stat-pack");
    expect(p.textContent).toBe("small objects (packed, since mount)120 entries in 2 pack recordspayload 352 KiB of 364 KiB zone bytes (96.6 %)");
    expect(p.getAttribute("data-value")).toBe("120");
  });

  it("says when packing is off, and when nothing was packed since mount", async () => {
    at("#/daemons/demo-a&token=t");
    const off = {
      ...fx.detail,
      store: { ...fx.detail.store!, pack_max: 0 },
      io: { ...fx.detail.io, pack_records: 0, pack_entries: 0, pack_payload_bytes: 0, pack_record_bytes: 0 },
    };
    const { unmount } = render(<App fetch={fakeFetch({ ...OK, "/api/v1/daemons/demo-a": { body: off } }).fetch} baseUrl={BASE} />);
    expect((await screen.findByTestId("stat-pack")).textContent).toBe("small objects (packed, since mount)packing off (pack_max 0)");
    unmount();
    // fx.detail: packing on (pack_max 32768), nothing packed yet.
    render(<App fetch={fakeFetch(OK).fetch} baseUrl={BASE} />);
    expect((await screen.findByTestId("stat-pack")).textContent).toBe("small objects (packed, since mount)none packed since mount");
  });

  it("shows the data reads with records per read and the journal-pinned zones", async () => {
    at("#/daemons/demo-a&token=t");
    const read = {
      ...fx.detail,
      io: { ...fx.detail.io, data_reads: 40, data_read_records: 100 },
      gc: { ...fx.detail.gc, pinned_zones: 3 },
    };
    render(<App fetch={fakeFetch({ ...OK, "/api/v1/daemons/demo-a": { body: read } }).fetch} baseUrl={BASE} />);
    const r = await screen.findByTestId("stat-data-reads");
    expect(r.textContent).toBe("data reads (since mount)40 reads100 records, 2.50 per read");
    expect(r.getAttribute("data-value")).toBe("40");
    const p = screen.getByTestId("stat-gc-pinned");
    expect(p.textContent).toBe("journal-pinned zones3GC may reset them after the next checkpoint");
    expect(p.getAttribute("data-value")).toBe("3");
  });

  it("shows statfs writable beside available, and nothing for a daemon from before it", async () => {
    at("#/daemons/demo-a&token=t");
    const { unmount } = render(<App fetch={fakeFetch(OK).fetch} baseUrl={BASE} />);
    const w = await screen.findByTestId("stat-writable");
    expect(w.textContent).toBe("writable18.0 GiB60.0 %, GC's real gain included");
    expect(w.getAttribute("data-value")).toBe(String(18 * 1024 ** 3));
    unmount();
    // As the module serves an older daemon's document: writable null.
    const old = { ...fx.detail, statfs: { ...fx.detail.statfs, writable: null } };
    render(<App fetch={fakeFetch({ ...OK, "/api/v1/daemons/demo-a": { body: old } }).fetch} baseUrl={BASE} />);
    await screen.findByTestId("stat-gc-pinned");
    expect(screen.queryByTestId("stat-writable")).toBeNull();
  });

  it("shows 0 reads and pinned zones as such", async () => {
    at("#/daemons/demo-a&token=t");
    const zero = {
      ...fx.detail,
      io: { ...fx.detail.io, data_reads: 0, data_read_records: 0 },
      gc: { ...fx.detail.gc, pinned_zones: 0 },
    };
    render(<App fetch={fakeFetch({ ...OK, "/api/v1/daemons/demo-a": { body: zero } }).fetch} baseUrl={BASE} />);
    expect((await screen.findByTestId("stat-data-reads")).textContent).toBe("data reads (since mount)none since mount");
    expect(screen.getByTestId("stat-gc-pinned").getAttribute("data-value")).toBe("0");
  });

  it("shows idle GC's read-ahead, and off for a store that has it off", async () => {
    at("#/daemons/demo-a&token=t");
    const on = {
      ...fx.detail,
      store: { ...fx.detail.store!, gc_read_ahead: true },
      gc: { ...fx.detail.gc, read_ahead_bytes: 3 * 1024 * 1024, read_ahead_yields: 2 },
    };
    const first = render(<App fetch={fakeFetch({ ...OK, "/api/v1/daemons/demo-a": { body: on } }).fetch} baseUrl={BASE} />);
    const s = await screen.findByTestId("stat-gc-read-ahead");
    expect(s.textContent).toBe("GC read-ahead (since mount)3.00 MiB read ahead2 stopped by arrivals");
    expect(s.getAttribute("data-value")).toBe(String(3 * 1024 * 1024));
    first.unmount();
    const off = {
      ...fx.detail,
      store: { ...fx.detail.store!, gc_read_ahead: false },
      gc: { ...fx.detail.gc, read_ahead_bytes: 0, read_ahead_yields: 0 },
    };
    render(<App fetch={fakeFetch({ ...OK, "/api/v1/daemons/demo-a": { body: off } }).fetch} baseUrl={BASE} />);
    expect((await screen.findByTestId("stat-gc-read-ahead")).textContent).toBe("GC read-ahead (since mount)off (gc_read_ahead)");
  });

  it("shows the GC watermarks and the cap on free zones, nothing for an OSD known only by its counters", async () => {
    at("#/daemons/demo-a&token=t");
    const capped = {
      ...fx.detail,
      store: { ...fx.detail.store!, gc_start_free: 0.03, gc_urgent_free: 0.01, gc_stop_free: 0.05, gc_free_zones_max: 64 },
    };
    const first = render(<App fetch={fakeFetch({ ...OK, "/api/v1/daemons/demo-a": { body: capped } }).fetch} baseUrl={BASE} />);
    expect((await screen.findByTestId("gc-watermarks")).textContent).toBe(
      ", GC watermarks start 3.0 % · urgent 1.0 % · stop 5.0 % free, at most 64 zones free per drive",
    );
    first.unmount();
    // An OSD whose smrstore stats document has not answered yet: no store block.
    const countersOnly = { ...fx.detail, store: undefined };
    render(<App fetch={fakeFetch({ ...OK, "/api/v1/daemons/demo-a": { body: countersOnly } }).fetch} baseUrl={BASE} />);
    await screen.findByTestId("stat-wa");
    expect(screen.queryByTestId("gc-watermarks")).toBeNull();
  });

  it("says the daemon is gone on 404", async () => {
    at("#/daemons/old-one&token=t");
    const f = fakeFetch({ "/api/v1/daemons/old-one": { status: 404, body: { detail: "no smrstore daemon named 'old-one' (known: demo-a)" } } });
    render(<App fetch={f.fetch} baseUrl={BASE} />);
    expect(await screen.findByText(/is gone/)).toBeTruthy();
    expect(screen.getByText(/known: demo-a/)).toBeTruthy();
  });
});

describe("zone map", () => {
  it("draws a canvas of the drive's zones, with a tooltip on hover and pinned details on click", async () => {
    at("#/zones/demo-a/0&token=t");
    render(<App fetch={fakeFetch(OK).fetch} baseUrl={BASE} />);
    const canvas = await screen.findByRole("img", { name: /zone map of 13 zones/ });
    expect(Number(canvas.getAttribute("width"))).toBeGreaterThan(0);
    const cell = Number(canvas.getAttribute("data-cell"));
    const pitch = cell + Number(canvas.getAttribute("data-gap"));
    // jsdom lays nothing out: the canvas sits at (0, 0) and its rect has no size, so client
    // coordinates are canvas coordinates. Zone 6 is 'a' (sealed, 0 % live) in stream g.
    fireEvent.mouseMove(canvas, { clientX: 6 * pitch + 1, clientY: 1 });
    expect(screen.getByRole("tooltip").textContent).toBe("zone 6 · sealed (full) · live 0 % · stream GC");
    fireEvent.click(canvas, { clientX: 9 * pitch + 1, clientY: 1 });
    expect(screen.getByTestId("pinned-zone").textContent).toMatch(/Zone 9.*100 %.*user hot/);
    fireEvent.keyDown(canvas, { key: "ArrowRight" });
    expect(screen.getByTestId("pinned-zone").textContent).toMatch(/Zone 10.*open/);
    fireEvent.mouseLeave(canvas);
    expect(screen.queryByRole("tooltip")).toBeNull();
  });

  it("says why when a daemon has no zone map", async () => {
    at("#/zones/osd.0/0&token=t");
    const noMap = { ...fx.osdZones, available: false, zonemap: "", streams: "", zonemap_error: "the OSD is down" };
    render(
      <App fetch={fakeFetch({ ...OSD, "/api/v1/daemons/osd.0/drives/0/zones": { body: noMap } }).fetch} baseUrl={BASE} />,
    );
    expect(await screen.findByText(/has no zone map now: the OSD is down\. Its zone counts: free 2, open 1, sealed 8/)).toBeTruthy();
  });

  it("shows an OSD's zone map and where it comes from", async () => {
    at("#/zones/osd.0/0&token=t");
    render(<App fetch={fakeFetch(OSD).fetch} baseUrl={BASE} />);
    expect(await screen.findByRole("img", { name: /zone map of 13 zones/ })).toBeTruthy();
    expect(screen.getByText(/from the OSD's/)).toBeTruthy();
    expect(screen.getByTestId("zones-free").getAttribute("data-value")).toBe("2");
  });
});

describe("hybrid", () => {
  it("shows the empty state when no drive can convert", async () => {
    at("#/hybrid&token=t");
    render(<App fetch={fakeFetch(OK).fetch} baseUrl={BASE} />);
    const empty = await screen.findByTestId("hybrid-empty");
    expect(empty.textContent).toMatch(/^no hybrid \(CMR↔SMR convertible\) drives — all 2 drive/);
  });
  it("lists convertible drives with progress (a daemon from before the realm fields)", async () => {
    at("#/hybrid&token=t");
    render(
      <App fetch={fakeFetch({ ...OK, "/api/v1/conversion": { body: fx.conversionHybrid } }).fetch} baseUrl={BASE} />,
    );
    const table = await screen.findByTestId("hybrid-table");
    expect(table.textContent).toMatch(/converting.*1\.00 GiB.*9\.00 GiB.*40\.0 %.*50 ms/);
    const panel = screen.getByTestId("hybrid-drive");
    expect(panel.textContent).toContain("does not report the drive's realms");
    expect(panel.querySelector('[data-testid="realm-map"]')).toBeNull();
    expect(screen.getByTestId("hybrid-latency").textContent).toContain("No migration quantum ran");
  });

  // Real data: what the module answered for a store on a converting emulated hybrid drive
  // (web/e2e/hybrid-stack.sh on ceph-mgr 16.2.15; src/test/live/).
  const LIVE = {
    ...OK,
    "/api/v1/conversion": { body: fx.liveConversion },
    "/api/v1/summary": { body: fx.liveSummary },
  };

  it("shows a real converting drive: realm map, legend, capacity, conversion, quanta vs bound", async () => {
    at("#/hybrid&token=t");
    render(<App fetch={fakeFetch(LIVE).fetch} baseUrl={BASE} />);
    const panel = await screen.findByTestId("hybrid-drive");
    expect(panel.getAttribute("data-daemon")).toBe("hyb");
    expect(panel.getAttribute("data-state")).toBe("converting");
    const map = screen.getByTestId("realm-map");
    expect(map.getAttribute("data-realmmap")).toBe("SSSSSSSScCSS");
    const cells = Array.from(map.querySelectorAll(".realm-cell"));
    expect(cells.map((c) => c.textContent).join("")).toBe("SSSSSSSScCSS");
    expect(cells[8]?.getAttribute("title")).toBe(
      "realm 8: CMR, emptying — CMR realm whose data is being moved out to convert it to SMR",
    );
    const legend = Array.from(screen.getByTestId("realm-legend").querySelectorAll(".legend-item"));
    expect(legend.map((l) => l.textContent)).toEqual([
      "C CMR (1)",
      "S SMR (10)",
      "c CMR, emptying (1)",
      "s SMR, emptying (0)",
      "> converting (0)",
    ]);
    const bar = screen.getByTestId("capacity-bar");
    expect([bar.getAttribute("data-cmr"), bar.getAttribute("data-smr")]).toEqual(["134217728", "838860800"]);
    expect(bar.textContent).toContain("CMR 128 MiB in 2 realm(s) · 14 %");
    expect(bar.textContent).toContain("SMR 800 MiB in 10 realm(s) · 86 %");
    const conv = screen.getByTestId("hybrid-conversion");
    expect(conv.textContent).toMatch(/^Conversion in progress: +68\.5 % · 4 zones/);
    expect(Array.from(conv.querySelectorAll("li")).map((l) => l.textContent)).toEqual([
      "realm 8: emptying its data (CMR → SMR)",
    ]);
    const lat = screen.getByTestId("hybrid-latency");
    expect(lat.getAttribute("data-over")).toBe("true");
    expect(lat.textContent).toContain("p99 320.4 ms, max 376.7 ms, bound 100.0 ms p99 over the bound");
    const viol = screen.getByTestId("hybrid-violations");
    expect(viol.getAttribute("data-value")).toBe("57");
    expect(viol.querySelector(".badge-warn")?.textContent).toBe("57");
    expect(screen.getByTestId("hybrid-quantum").getAttribute("data-value")).toBe("597362");
    expect(screen.getByTestId("hybrid-conversions").getAttribute("data-value")).toBe("10");
    expect(screen.queryByTestId("hybrid-stall")).toBeNull();
    expect(screen.getByTestId("hybrid-others").textContent).toBe("1 other drive(s) reported are not hybrid (zoned only).");
    expect(screen.getByTestId("hybrid-table").textContent).toMatch(
      /hyb0converting2 CMR \/ 10 SMR \(1 pending\)128 MiB800 MiB4 68\.5 %320\.4 ms \/ 376\.7 ms100 ms57/,
    );
    // The conversion checks of the module's health, not the others.
    await waitFor(() => expect(screen.getByTestId("hybrid-health").textContent).toContain("SMRSTORE_CONVERSION_BOUND_VIOLATED"));
    expect(screen.getByTestId("hybrid-health").textContent).not.toContain("SMRSTORE_GC_BEHIND");
  });

  it("shows why a conversion stalled", async () => {
    at("#/hybrid&token=t");
    render(<App fetch={fakeFetch({ ...OK, "/api/v1/conversion": { body: fx.conversionStalled } }).fetch} baseUrl={BASE} />);
    const stall = await screen.findByTestId("hybrid-stall");
    expect(stall.getAttribute("role")).toBe("alert");
    expect(stall.textContent).toBe("Conversion stalled: no room for realm 0's live data outside it");
    expect(screen.getByTestId("hybrid-drive").querySelector(".badge-err")?.textContent).toBe("stalled");
    expect(screen.getByTestId("hybrid-conversion").textContent).toBe("No conversion in progress on this drive.");
    expect(screen.getByTestId("hybrid-latency").getAttribute("data-over")).toBe("false");
    expect(screen.getByTestId("hybrid-latency").textContent).toContain("within the bound");
  });

  it("shows the inactive zones of a real hybrid drive in the zone map, with a legend entry", async () => {
    at("#/zones/hyb/0&token=t");
    render(
      <App
        fetch={fakeFetch({ ...OK, "/api/v1/daemons/hyb/drives/0/zones": { body: fx.liveZones } }).fetch}
        baseUrl={BASE}
      />,
    );
    expect(await screen.findByRole("img", { name: /zone map of 110 zones/ })).toBeTruthy();
    expect(screen.getByTestId("zones-inactive").getAttribute("data-value")).toBe(
      String(fx.liveZones.zonemap.split("").filter((c) => c === "_").length),
    );
    expect(screen.getByTestId("zones-inactive").getAttribute("data-value")).toBe("54");
    expect(document.querySelector('.legend-item[data-label="inactive (hybrid)"]')).not.toBeNull();
  });
});

describe("gc", () => {
  // As the module serves it: absent optional fields are null (pydantic), not left out.
  const served = {
    ...fx.gc,
    daemons: fx.gc.daemons.map((d) => ({ bytes_written: null, failures: null, quarantined_zones: null, rates: null, ...d })),
  };
  // No history: the charts (recharts needs ResizeObserver, which jsdom lacks) stay out.
  const GC = { ...OK, "/api/v1/gc": { body: served }, "/api/v1/history": { body: { ...fx.history, series: [] } } };

  function row(table: HTMLElement, daemon: string): HTMLTableRowElement {
    const tr = Array.from(table.querySelectorAll("tbody tr")).find((r) => r.firstElementChild?.textContent === daemon);
    if (!(tr instanceof HTMLTableRowElement)) throw new Error(`no row ${daemon}`);
    return tr;
  }
  function cell(tr: HTMLTableRowElement, testId: string): HTMLElement {
    const td = tr.querySelector(`[data-testid="${testId}"]`);
    if (!(td instanceof HTMLElement)) throw new Error(`no cell ${testId}`);
    return td;
  }

  it("shows failures and quarantined zones per daemon, quarantined > 0 as a warning", async () => {
    at("#/gc&token=t");
    render(<App fetch={fakeFetch(GC).fetch} baseUrl={BASE} />);
    const table = await screen.findByTestId("gc-table");
    const heads = Array.from(table.querySelectorAll("thead th")).map((th) => th.textContent);
    expect(heads).toContain("failures");
    expect(heads).toContain("quarantined");
    const a = row(table, "demo-a");
    expect(cell(a, "gc-failures").textContent).toBe("3");
    const qa = cell(a, "gc-quarantined");
    expect(qa.textContent).toBe("2");
    expect(qa.getAttribute("data-warn")).toBe("true");
    expect(qa.querySelector(".badge-warn")?.textContent).toBe("2");
    // None quarantined: a plain 0, no warning.
    const o = row(table, "osd.0");
    expect(cell(o, "gc-failures").textContent).toBe("1");
    const qo = cell(o, "gc-quarantined");
    expect(qo.textContent).toBe("0");
    expect(qo.getAttribute("data-warn")).toBeNull();
    expect(qo.querySelector(".badge-warn")).toBeNull();
    // Not reported (older OSD library): a dash, no warning.
    const old = row(table, "osd.1");
    expect(cell(old, "gc-failures").textContent).toBe("–");
    expect(cell(old, "gc-quarantined").textContent).toBe("–");
    expect(cell(old, "gc-quarantined").getAttribute("data-warn")).toBeNull();
    expect(screen.getByTestId("gc-quarantine-note").textContent).toMatch(
      /^SMRSTORE_GC_QUARANTINE 2 zones quarantined on demo-a: .*deep fsck/,
    );
  });

  it("has no warning when no zone is quarantined", async () => {
    at("#/gc&token=t");
    const calm = { ...served, daemons: served.daemons.filter((d) => d.daemon !== "demo-a") };
    render(<App fetch={fakeFetch({ ...GC, "/api/v1/gc": { body: calm } }).fetch} baseUrl={BASE} />);
    const table = await screen.findByTestId("gc-table");
    expect(table.querySelector(".badge-warn")).toBeNull();
    expect(screen.queryByTestId("gc-quarantine-note")).toBeNull();
  });
});

describe("routing", () => {
  it("shows a not-found state for unknown paths", async () => {
    at("#/nowhere&token=t");
    render(<App fetch={fakeFetch(OK).fetch} baseUrl={BASE} />);
    await waitFor(() => expect(screen.getByText(/No view at/)).toBeTruthy());
  });
});
