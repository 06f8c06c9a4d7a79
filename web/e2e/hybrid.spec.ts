// The console's Hybrid view against REAL data: a running smrstore mgr module (real ceph-mgr)
// to which `smrstore-tool serve --publish` sends the stats of a store on an emulated hybrid
// drive that converts realms CMR -> SMR while a churn load fills it (web/e2e/hybrid-stack.sh
// sets all of it up and runs this project):
//   SMRSTORE_E2E_URL=BASE_URL SMRSTORE_E2E_TOKEN=TOKEN [SMRSTORE_E2E_HYBRID_DAEMON=NAME] \
//     npx playwright test --project hybrid
// The data moves while the tests run (the engine publishes every second, the mgr takes a
// report every 5 s, the console refreshes every 5 s), so every comparison is made at a
// moment when the API answered the same before and after the page was read, and the page
// showed that answer. Screenshots hybrid-*.png in OUT_DIR; with SMRSTORE_E2E_CAPTURE=DIR the
// API answers of the compared moments are saved there (real data for the Vitest fixtures).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type APIRequestContext, type Page } from "@playwright/test";
import { envMs, requireTarget } from "./env";
import { detail, expect, shot, test } from "./fixtures";

const { root, token } = requireTarget();
/** How long the store may take to start converting with a realm of each domain (fill + first conversions). */
const CONVERT_WAIT_MS = envMs("SMRSTORE_E2E_CONVERT_WAIT_MS", 300000);
/** Of that, how long to hold out for a realm being emptied (c/s) before a converting one (>) will do. */
const DRAIN_WAIT_MS = envMs("SMRSTORE_E2E_DRAIN_WAIT_MS", 180000);
const VIEW_WAIT_MS = 20000;
const DAEMON = process.env["SMRSTORE_E2E_HYBRID_DAEMON"] ?? null;
const CAPTURE = process.env["SMRSTORE_E2E_CAPTURE"] ?? "";

interface RealmCodeDef {
  char: string;
  label: string;
  description: string;
}
interface Schema {
  "x-realmmap-codes": RealmCodeDef[];
  "x-zonemap-states": { state: string; label: string }[];
}
const SCHEMA = JSON.parse(
  readFileSync(fileURLToPath(new URL("../../mgr-module/smrstore/stats_schema.json", import.meta.url)), "utf8"),
) as Schema;
const REALM_CODES = SCHEMA["x-realmmap-codes"];
const INACTIVE_LABEL = SCHEMA["x-zonemap-states"].find((s) => s.state === "inactive")?.label ?? "?";

interface Conv {
  daemon: string;
  drive: number;
  supported: boolean;
  state: string;
  cmr_bytes: number | null;
  smr_bytes: number | null;
  converting_zones: number | null;
  progress: number | null;
  latency_bound_ms: number | null;
  realms: number | null;
  realms_cmr: number | null;
  realms_smr: number | null;
  realms_pending: number | null;
  realmmap: string | null;
  quantum_bytes: number | null;
  quantum_ms_p99: number | null;
  quantum_ms_max: number | null;
  bound_violations: number | null;
  bound_exceeded: boolean | null;
  conversions: number | null;
  migrated_bytes: number | null;
  stall_reason: string | null;
}

async function apiGet<T>(request: APIRequestContext, path: string): Promise<T> {
  const r = await request.get(new URL(path, root).href, { headers: { Authorization: `Bearer ${token}` } });
  expect(r.status(), `GET ${path}`).toBe(200);
  return (await r.json()) as T;
}

function hybridDrive(cs: Conv[]): Conv | undefined {
  return cs.find((c) => c.supported && (DAEMON === null || c.daemon === DAEMON));
}

const draining = (c: Conv): boolean => /[cs]/.test(c.realmmap ?? "");
/** Realms of both domains, a conversion done, and one realm being emptied or converted now. */
const interesting = (c: Conv, wantDrain: boolean): boolean =>
  (c.realms_cmr ?? 0) > 0 &&
  (c.realms_smr ?? 0) > 0 &&
  (c.conversions ?? 0) >= 1 &&
  (c.realms_pending ?? 0) >= 1 &&
  (!wantDrain || draining(c));

/** What the Hybrid view shows of one drive, from the data-* attributes of its panel. */
async function shown(page: Page, c: Conv) {
  const panel = page.locator(`[data-testid="hybrid-drive"][data-daemon="${c.daemon}"][data-drive="${c.drive}"]`);
  return panel.evaluate((el) => {
    const q = (sel: string) => el.querySelector(sel);
    const attr = (sel: string, a: string) => q(sel)?.getAttribute(a) ?? null;
    const num = (v: string | null) => (v === null || v === "" ? null : Number(v));
    return {
      state: el.getAttribute("data-state"),
      realmmap: attr('[data-testid="realm-map"]', "data-realmmap"),
      cells: Array.from(el.querySelectorAll(".realm-cell")).map((x) => x.getAttribute("data-code") ?? "?").join(""),
      legend: Array.from(el.querySelectorAll('[data-testid="realm-legend"] .legend-item')).map((x) => ({
        code: x.getAttribute("data-code"),
        count: Number(x.getAttribute("data-count")),
        text: x.textContent ?? "",
      })),
      cmr: num(attr('[data-testid="capacity-bar"]', "data-cmr")),
      smr: num(attr('[data-testid="capacity-bar"]', "data-smr")),
      progress: num(attr('[data-testid="hybrid-conversion"]', "data-progress")),
      pending: Array.from(el.querySelectorAll('[data-testid="hybrid-conversion"] li')).map((x) => Number(x.getAttribute("data-realm"))),
      quantum: num(attr('[data-testid="hybrid-quantum"]', "data-value")),
      violations: num(attr('[data-testid="hybrid-violations"]', "data-value")),
      conversions: num(attr('[data-testid="hybrid-conversions"]', "data-value")),
      migrated: num(attr('[data-testid="hybrid-migrated"]', "data-value")),
      bound: num(attr('[data-testid="hybrid-latency"]', "data-bound")),
      p99: num(attr('[data-testid="hybrid-latency"]', "data-p99")),
      max: num(attr('[data-testid="hybrid-latency"]', "data-max")),
      over: attr('[data-testid="hybrid-latency"]', "data-over"),
      stall: q('[data-testid="hybrid-stall"]')?.textContent ?? null,
    };
  });
}
type Shown = Awaited<ReturnType<typeof shown>>;

/** The API's answer as the page should show it. */
function expected(c: Conv) {
  const pending: number[] = [];
  for (let i = 0; i < (c.realmmap ?? "").length; i++) if ("cs>".includes((c.realmmap ?? "").charAt(i))) pending.push(i);
  return {
    state: c.state,
    realmmap: c.realmmap,
    cells: c.realmmap,
    cmr: c.cmr_bytes,
    smr: c.smr_bytes,
    progress: c.state === "converting" || pending.length > 0 ? c.progress : null,
    pending,
    quantum: c.quantum_bytes,
    violations: c.bound_violations,
    conversions: c.conversions,
    migrated: c.migrated_bytes,
    bound: c.latency_bound_ms,
    p99: c.quantum_ms_p99,
    max: c.quantum_ms_max,
    over: c.quantum_ms_p99 === null || c.latency_bound_ms === null ? "" : String(c.quantum_ms_p99 > c.latency_bound_ms),
    stall: c.stall_reason === null ? null : `Conversion stalled: ${c.stall_reason}`,
  };
}

function same(s: Shown, c: Conv): boolean {
  const e = expected(c);
  const { legend: _legend, ...rest } = s;
  return JSON.stringify(rest) === JSON.stringify(e);
}

async function openHybrid(page: Page): Promise<void> {
  await page.goto(`${root}#/hybrid&token=${encodeURIComponent(token)}`, { waitUntil: "load" });
  await page.getByRole("heading", { name: "Hybrid SMR drives" }).waitFor({ timeout: VIEW_WAIT_MS });
}

function capture(name: string, data: unknown): void {
  if (CAPTURE === "") return;
  mkdirSync(CAPTURE, { recursive: true });
  writeFileSync(join(CAPTURE, name), `${JSON.stringify(data, null, 2)}\n`);
}

test.describe("hybrid drive, live", () => {
  test("the Hybrid view shows a converting drive as the API serves it", async ({ page, request }) => {
    test.setTimeout(CONVERT_WAIT_MS + 120000);
    await openHybrid(page);
    const t0 = Date.now();
    let seen: { api: Conv; dom: Shown } | null = null;
    let polls = 0;
    let lastApi: Conv | undefined;
    // Wait for a moment with realms of both domains and one realm in flight (one being emptied
    // if it comes within DRAIN_WAIT_MS) that the page shows exactly as the API answers it.
    while (Date.now() - t0 < CONVERT_WAIT_MS) {
      polls++;
      const before = hybridDrive(await apiGet<Conv[]>(request, "api/v1/conversion"));
      lastApi = before;
      const wantDrain = Date.now() - t0 < DRAIN_WAIT_MS;
      if (before !== undefined && interesting(before, wantDrain)) {
        const panel = page.locator(`[data-testid="hybrid-drive"][data-daemon="${before.daemon}"][data-drive="${before.drive}"]`);
        if ((await panel.count()) > 0) {
          const dom = await shown(page, before);
          const after = hybridDrive(await apiGet<Conv[]>(request, "api/v1/conversion"));
          if (after !== undefined && JSON.stringify(after) === JSON.stringify(before) && same(dom, before)) {
            seen = { api: before, dom };
            break;
          }
        }
      }
      await page.waitForTimeout(500);
    }
    expect(
      seen,
      `within ${CONVERT_WAIT_MS} ms a hybrid drive with CMR and SMR realms, a conversion done and one in flight, shown as the API answers (${polls} polls; last API answer ${JSON.stringify(lastApi)})`,
    ).not.toBeNull();
    if (seen === null) return;
    const { api, dom } = seen;
    const file = await shot(page, "hybrid");
    // The legend is the schema's x-realmmap-codes, in order, with this drive's counts.
    expect(dom.legend.map((l) => l.code)).toEqual(REALM_CODES.map((c) => c.char));
    for (const [i, c] of REALM_CODES.entries()) {
      const n = (api.realmmap ?? "").split("").filter((ch) => ch === c.char).length;
      expect(dom.legend[i]?.count, `legend count of ${c.char}`).toBe(n);
      expect(dom.legend[i]?.text, `legend label of ${c.char}`).toContain(c.label);
    }
    expect(dom.cells.length, "one cell per realm").toBe(api.realms);
    // A realm in flight is named with the schema's label in its cell's title.
    const firstPending = dom.pending[0] ?? -1;
    const title = await page.locator(`.realm-cell[data-realm="${firstPending}"]`).getAttribute("title");
    const code = REALM_CODES.find((c) => c.char === api.realmmap?.charAt(firstPending));
    expect(title ?? "", "the title of the realm in flight").toContain(`realm ${firstPending}: ${code?.label ?? "?"}`);
    capture("conversion.json", await apiGet<Conv[]>(request, "api/v1/conversion"));
    detail(
      `${api.daemon} drive ${api.drive}: ${api.state}, realms ${api.realmmap} (${api.realms_cmr} CMR / ${api.realms_smr} SMR, ` +
        `${api.realms_pending} pending${draining(api) ? ", one being emptied" : ""}), progress ${api.progress}, ` +
        `quantum ${api.quantum_bytes} B, p99 ${api.quantum_ms_p99} ms / max ${api.quantum_ms_max} ms vs bound ${api.latency_bound_ms} ms, ` +
        `${api.bound_violations} violation(s), ${api.conversions} conversion(s), ${api.migrated_bytes} B migrated; ` +
        `shown after ${Math.round((Date.now() - t0) / 1000)} s; ${file}`,
    );
  });

  test("a p99 over the latency bound shows SMRSTORE_CONVERSION_BOUND_VIOLATED in the Hybrid view", async ({ page, request }) => {
    test.setTimeout(180000);
    await openHybrid(page);
    // Whatever the store does now: when the API says p99 > bound, the module's health check is
    // raised and the view lists it; otherwise the view shows "within the bound".
    for (let i = 0; i < 120; i++) {
      const c = hybridDrive(await apiGet<Conv[]>(request, "api/v1/conversion"));
      const checks = (await apiGet<{ health: { name: string; detail: string[] }[] }>(request, "api/v1/summary")).health;
      const again = hybridDrive(await apiGet<Conv[]>(request, "api/v1/conversion"));
      if (c === undefined || JSON.stringify(c) !== JSON.stringify(again)) {
        await page.waitForTimeout(500);
        continue;
      }
      const raised = checks.find((h) => h.name === "SMRSTORE_CONVERSION_BOUND_VIOLATED");
      if (c.bound_exceeded === true) {
        expect(raised?.detail.join(" ") ?? "", "the check names the drive").toContain(`${c.daemon} drive ${c.drive}: `);
        const listed = page.locator('[data-testid="hybrid-health"]').getByText("SMRSTORE_CONVERSION_BOUND_VIOLATED");
        await listed.waitFor({ timeout: VIEW_WAIT_MS });
        await page.locator('[data-testid="hybrid-latency"][data-over="true"]').first().waitFor({ timeout: VIEW_WAIT_MS });
        detail(`p99 ${c.quantum_ms_p99} ms > bound ${c.latency_bound_ms} ms: ${raised?.detail.join("; ")}; ${await shot(page, "hybrid-bound")}`);
        capture("summary.json", { health: checks });
        return;
      }
      if (c.bound_exceeded === false) {
        await page.locator('[data-testid="hybrid-latency"][data-over="false"]').first().waitFor({ timeout: VIEW_WAIT_MS });
        detail(`p99 ${c.quantum_ms_p99} ms within the bound ${c.latency_bound_ms} ms (no check to show)`);
        return;
      }
      await page.waitForTimeout(1000);
    }
    throw new Error("the API never answered the same twice with a p99 to compare");
  });

  test("the zone map of the hybrid drive shows its inactive zones with a legend entry", async ({ page, request }) => {
    const c = hybridDrive(await apiGet<Conv[]>(request, "api/v1/conversion"));
    expect(c, "a hybrid drive").toBeDefined();
    if (c === undefined) return;
    await page.goto(`${root}#/zones/${encodeURIComponent(c.daemon)}/${c.drive}&token=${encodeURIComponent(token)}`, { waitUntil: "load" });
    const canvas = page.locator("canvas.zonemap-canvas");
    await canvas.waitFor({ timeout: VIEW_WAIT_MS });
    const legend = page.locator(`.legend-item[data-label="${INACTIVE_LABEL}"]`);
    await legend.waitFor({ timeout: VIEW_WAIT_MS });
    // The inactive count equals the '_' zones of the map the API serves at that moment.
    let zonemap = "";
    for (let i = 0; i < 60; i++) {
      const z = await apiGet<{ zonemap: string }>(request, `api/v1/daemons/${encodeURIComponent(c.daemon)}/drives/${c.drive}/zones`);
      const v = await page.getByTestId("zones-inactive").getAttribute("data-value").catch(() => null);
      const want = z.zonemap.split("").filter((ch) => ch === "_").length;
      if (v !== null && Number(v) === want && want > 0) {
        zonemap = z.zonemap;
        capture(`zones-${c.drive}.json`, z);
        break;
      }
      await page.waitForTimeout(1000);
    }
    expect(zonemap, "the page's inactive count matched the API's map (with inactive zones)").not.toBe("");
    // Hover an inactive zone: the tooltip names the schema's label. (The map moves: the zone is
    // looked up again when the tooltip disagrees.)
    const box = await canvas.boundingBox();
    expect(box).not.toBeNull();
    if (box === null) return;
    const cell = Number(await canvas.getAttribute("data-cell"));
    const cols = Number(await canvas.getAttribute("data-cols"));
    const pitch = cell + Number(await canvas.getAttribute("data-gap"));
    const tip = page.getByRole("tooltip");
    let text = "";
    for (let i = 0; i < 10; i++) {
      const z = await apiGet<{ zonemap: string }>(request, `api/v1/daemons/${encodeURIComponent(c.daemon)}/drives/${c.drive}/zones`);
      const idx = z.zonemap.lastIndexOf("_");
      await page.mouse.move(box.x + (idx % cols) * pitch + cell / 2, box.y + Math.floor(idx / cols) * pitch + cell / 2);
      await tip.waitFor({ timeout: 5000 });
      text = (await tip.textContent()) ?? "";
      if (text.startsWith(`zone ${idx} · ${INACTIVE_LABEL}`)) break;
      await page.waitForTimeout(1000);
    }
    expect(text, "tooltip over an inactive zone").toContain(INACTIVE_LABEL);
    detail(`${zonemap.split("").filter((ch) => ch === "_").length} inactive of ${zonemap.length} zones; tooltip '${text}'; ${await shot(page, "hybrid-zonemap")}`);
  });
});
