// The console against real smrstore OSDs (Debian's ceph-osd with libsmrstore_osd.so):
//   CEPH_CONF=... SMRSTORE_E2E_URL=BASE_URL SMRSTORE_E2E_TOKEN=TOKEN SMRSTORE_E2E_OSDS='0 1 2' \
//     npx playwright test --project osds
// (qa/ceph/0007_console_osds.sh runs it). For every OSD given, what the console shows is
// compared with the OSD's own answer to `ceph tell osd.N smrstore stats` read at about the same
// moment: user and device bytes since mount, write amplification, GC runs and auto state, free
// zones (daemon view, overview row), and every zone of every drive (the zone-map view: each
// zone pinned in turn, its zone and stream codes read from the page). The cluster should be at
// rest (workload stopped): a value is compared until the console shows the OSD's current
// answer (the mgr receives counters every 5 s) and must then equal it; if the OSD's answer
// moved in between, the console's value must lie between the two answers. Prints the
// comparison lines of each figure; screenshots osds-*.png in OUT_DIR. The number of drives of
// each OSD is read with `ceph tell` when the file is loaded (one test per drive).
import { execFileSync } from "node:child_process";
import { type Page } from "@playwright/test";
import { envMs, requireOsds, requireTarget } from "./env";
import { detail, expect, shot, test } from "./fixtures";

const { root, token } = requireTarget();
const osds = requireOsds();
/** How long the console may take to show an OSD's current answer (mgr report 5 s + sample + refresh 5 s). */
const CATCH_UP_MS = envMs("SMRSTORE_E2E_CATCH_UP_MS", 45000);
const VIEW_WAIT_MS = 20000;

interface DriveDoc {
  zonemap: string;
  streams: string;
  zones: { free: number };
}
interface StatsDoc {
  io: { user_bytes: number; device_bytes: number; write_amplification: number };
  gc: { runs: number; auto: boolean };
  drives: DriveDoc[];
}

/** `ceph tell osd.N smrstore stats`, parsed, with the time it was read. */
function tell(id: number): { at: number; doc: StatsDoc } {
  const out = execFileSync("ceph", ["tell", `osd.${id}`, "smrstore", "stats"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60000,
  });
  return { at: Date.now() / 1000, doc: JSON.parse(out) as StatsDoc };
}

function figures(doc: StatsDoc) {
  return {
    user_bytes: doc.io.user_bytes,
    device_bytes: doc.io.device_bytes,
    write_amplification: doc.io.write_amplification,
    gc_runs: doc.gc.runs,
    gc_auto: doc.gc.auto ? "auto GC on" : "auto GC off",
    free_zones: doc.drives.reduce((n, d) => n + d.zones.free, 0),
  };
}
type Figures = ReturnType<typeof figures>;

/** Console value v against the OSD's answers a (before) and b (after). */
function agrees(key: string, v: number | string, a: number | string, b: number | string): boolean {
  if (typeof v === "string") return v === a || v === b;
  if (typeof a !== "number" || typeof b !== "number") return false;
  // The console computes WA from the counters at full precision; the document has 4 decimals.
  const eps = key === "write_amplification" ? 0.00006 : 0;
  return v >= Math.min(a, b) - eps && v <= Math.max(a, b) + eps;
}

/** Opens the console with the token (overview) and, if given, goes to HASH. */
async function open(page: Page, hash?: string) {
  await page.goto(`${root}#token=${encodeURIComponent(token)}`, { waitUntil: "load" });
  await page.locator('[data-testid="daemon-table"]').waitFor({ timeout: VIEW_WAIT_MS });
  if (hash !== undefined) await page.evaluate((h) => { window.location.hash = h; }, hash);
}

function printTable(lines: string[]) {
  console.log("console vs ceph tell osd.N smrstore stats:");
  for (const line of lines) console.log(`  ${line}`);
}

test("API lists every smrstore OSD as a store osd.N with source osd", async ({ request }) => {
  const r = await request.get(new URL("api/v1/daemons", root).href, { headers: { Authorization: `Bearer ${token}` } });
  expect(r.status(), "GET /api/v1/daemons").toBe(200);
  const ds = (await r.json()) as { name: string; source: string }[];
  for (const id of osds) {
    const d = ds.find((x) => x.name === `osd.${id}`);
    expect(d, `osd.${id} missing from ${ds.map((x) => x.name).join(", ")}`).toBeDefined();
    expect(d?.source, `osd.${id}'s source`).toBe("osd");
  }
  detail(ds.map((d) => `${d.name} (${d.source})`).join(", "));
});

test("overview lists the OSDs with an OSD badge, free zones and WA", async ({ page }) => {
  test.setTimeout(osds.length * (CATCH_UP_MS + 15000) + 60000);
  await open(page);
  for (const id of osds) {
    const row = page.locator(`[data-testid="daemon-table"] tr[data-daemon="osd.${id}"]`);
    await row.waitFor({ timeout: VIEW_WAIT_MS });
    expect(await row.getAttribute("data-source"), `osd.${id} row source`).toBe("osd");
    expect(await row.locator("td").nth(1).textContent(), `osd.${id} has an OSD badge`).toBe("OSD");
  }
  // The overview row against the OSD, once it has caught up.
  const lines: string[] = [];
  for (const id of osds) {
    const row = page.locator(`tr[data-daemon="osd.${id}"]`);
    let last = "";
    const t0 = Date.now();
    for (;;) {
      const a = figures(tell(id).doc);
      const free = Number(await row.locator('[data-testid="free-zones"]').getAttribute("data-value"));
      const wa = Number(await row.locator('[data-testid="wa"]').getAttribute("data-value"));
      const b = figures(tell(id).doc);
      last = `osd.${id} overview: free zones ${free} (osd ${a.free_zones}..${b.free_zones}), WA ${wa.toFixed(4)} (osd ${a.write_amplification}..${b.write_amplification})`;
      if (agrees("free_zones", free, a.free_zones, b.free_zones) && agrees("write_amplification", wa, a.write_amplification, b.write_amplification)) break;
      if (Date.now() - t0 > CATCH_UP_MS) throw new Error(`did not catch up in ${CATCH_UP_MS} ms: ${last}`);
      await page.waitForTimeout(2000);
    }
    lines.push(last);
  }
  detail(`${lines.join("; ")}; ${await shot(page, "osds-overview")}`);
});

for (const id of osds) {
  test(`osd.${id}: daemon view equals ceph tell osd.${id} smrstore stats`, async ({ page }) => {
    test.setTimeout(CATCH_UP_MS + 60000);
    await open(page, `#/daemons/osd.${id}`);
    await page.getByTestId("stat-user-bytes").waitFor({ timeout: VIEW_WAIT_MS });
    expect(await page.getByText("Ceph OSD on smrstore", { exact: false }).count(), "the OSD provenance line").toBeGreaterThan(0);
    const read = async (): Promise<Figures> => ({
      user_bytes: Number(await page.getByTestId("stat-user-bytes").getAttribute("data-value")),
      device_bytes: Number(await page.getByTestId("stat-device-bytes").getAttribute("data-value")),
      write_amplification: Number(await page.getByTestId("stat-wa").getAttribute("data-value")),
      gc_runs: Number(await page.getByTestId("stat-gc-runs").getAttribute("data-value")),
      gc_auto: ((await page.getByTestId("stat-gc-auto").locator(".stat-hint").textContent()) ?? "").trim(),
      free_zones: Number(await page.getByTestId("stat-free-zones").getAttribute("data-value")),
    });
    const t0 = Date.now();
    for (;;) {
      const before = tell(id);
      const shown = await read();
      const after = tell(id);
      const a = figures(before.doc);
      const b = figures(after.doc);
      const keys = Object.keys(a) as (keyof Figures)[];
      const bad = keys.filter((k) => !agrees(k, shown[k], a[k], b[k]));
      if (bad.length === 0) {
        const table = keys.map((k) => {
          const same = a[k] === b[k] ? `${a[k]}` : `${a[k]} .. ${b[k]}`;
          return `osd.${id} ${k.padEnd(19)} console ${String(shown[k]).padEnd(20)} ceph tell ${same}`;
        });
        printTable(table);
        const file = await shot(page, `osds-osd.${id}`);
        detail(`user ${shown.user_bytes} B, device ${shown.device_bytes} B, WA ${shown.write_amplification.toFixed(4)}, GC runs ${shown.gc_runs} (${shown.gc_auto}), free zones ${shown.free_zones} — equal to ceph tell read ${(after.at - before.at).toFixed(1)} s around; ${file}`);
        return;
      }
      if (Date.now() - t0 > CATCH_UP_MS) {
        throw new Error(`after ${CATCH_UP_MS} ms: ${bad.map((k) => `${k} console ${shown[k]} vs osd ${a[k]}..${b[k]}`).join(", ")}`);
      }
      await page.waitForTimeout(2000);
    }
  });

  const nDrives = tell(id).doc.drives.length;
  for (let drive = 0; drive < nDrives; drive++) {
    test(`osd.${id} drive ${drive}: every zone the console shows equals ceph tell's zone map`, async ({ page }) => {
      test.setTimeout(CATCH_UP_MS + 90000);
      await open(page, `#/zones/osd.${id}/${drive}`);
      const canvas = page.locator("canvas.zonemap-canvas");
      await canvas.waitFor({ timeout: VIEW_WAIT_MS });
      const t0 = Date.now();
      for (;;) {
        const before = tell(id).doc.drives[drive];
        if (before === undefined) throw new Error(`ceph tell osd.${id} smrstore stats has no drive ${drive}`);
        // Pin zone 0 (keyboard: focus, then ArrowRight from an empty pin pins zone 0), then
        // step through every zone reading the codes the pinned-zone panel shows.
        await page.keyboard.press("Escape");
        await canvas.focus();
        await page.keyboard.press("ArrowRight");
        const pinned = page.getByTestId("pinned-zone");
        await pinned.waitFor({ timeout: 5000 });
        const n = before.zonemap.length;
        let zm = "";
        let st = "";
        for (let i = 0; i < n; i++) {
          if (i > 0) await page.keyboard.press("ArrowRight");
          const title = (await pinned.locator("strong").textContent()) ?? "";
          expect(title, "the pinned panel's zone").toBe(`Zone ${i}`);
          zm += (await pinned.locator("code").nth(0).textContent()) ?? "?";
          st += (await pinned.locator("code").nth(1).textContent()) ?? "?";
        }
        const freeShown = Number(await page.getByTestId("zones-free").getAttribute("data-value"));
        const after = tell(id).doc.drives[drive];
        if (after === undefined) throw new Error(`ceph tell osd.${id} smrstore stats has no drive ${drive}`);
        const okMap = (zm === before.zonemap && st === before.streams) || (zm === after.zonemap && st === after.streams);
        const okFree = freeShown === before.zones.free || freeShown === after.zones.free;
        const det = `console ${zm} / ${st}, osd ${after.zonemap} / ${after.streams}`;
        if (okMap && okFree) {
          printTable([
            `osd.${id} drive ${drive} zonemap  console ${zm}  ceph tell ${after.zonemap}`,
            `osd.${id} drive ${drive} streams  console ${st}  ceph tell ${after.streams}`,
          ]);
          const file = await shot(page, `osds-osd.${id}-drive${drive}`);
          detail(`${n} zones, free ${freeShown}: ${zm}; ${file}`);
          return;
        }
        if (Date.now() - t0 > CATCH_UP_MS) throw new Error(`after ${CATCH_UP_MS} ms: ${det}, free ${freeShown} vs ${after.zones.free}`);
        await page.waitForTimeout(3000);
      }
    });
  }
}

test("GC view lists the OSDs with runs and free zones", async ({ page }) => {
  await open(page, "#/gc");
  const rows = page.locator('[data-testid="gc-table"] tbody tr');
  await rows.first().waitFor({ timeout: VIEW_WAIT_MS });
  const text = (await page.locator('[data-testid="gc-table"]').textContent()) ?? "";
  for (const id of osds) expect(text, `osd.${id} in the GC table`).toContain(`osd.${id}`);
  detail(await shot(page, "osds-gc"));
});
