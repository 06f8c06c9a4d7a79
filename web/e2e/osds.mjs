#!/usr/bin/env node
// The console against real smrstore OSDs (Debian's ceph-osd with libsmrstore_osd.so):
//   CEPH_CONF=... node e2e/osds.mjs BASE_URL TOKEN OUTDIR OSD_ID...
// For every OSD given, what the console shows is compared with the OSD's own answer to
// `ceph tell osd.N smrstore stats` read at about the same moment: user and device bytes since
// mount, write amplification, GC runs and auto state, free zones (daemon view, overview row),
// and every zone of every drive (the zone-map view: each zone pinned in turn, its zone and
// stream codes read from the page). The cluster should be at rest (workload stopped): a value
// is compared until the console shows the OSD's current answer (the mgr receives counters
// every 5 s) and must then equal it; if the OSD's answer moved in between, the console's value
// must lie between the two answers. Prints one comparison line per figure; screenshots
// osds-*.png in OUTDIR. Exits 1 if a check failed, 2 on bad usage.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { Results, assert, parseBase, usage, withBrowser } from "./harness.mjs";

const USAGE = "CEPH_CONF=... node e2e/osds.mjs BASE_URL TOKEN OUTDIR OSD_ID...";
const args = process.argv.slice(2);
const { root, token, outDir } = parseBase(args.slice(0, 3), USAGE);
const osds = args.slice(3).map(Number);
if (osds.length === 0 || osds.some((n) => !Number.isInteger(n) || n < 0)) usage(USAGE, "OSD ids (0, 1, ...) needed");
/** How long the console may take to show an OSD's current answer (mgr report 5 s + sample + refresh 5 s). */
const CATCH_UP_MS = Number(process.env["SMRSTORE_E2E_CATCH_UP_MS"] ?? 45000);
const VIEW_WAIT_MS = 20000;

/**
 * `ceph tell osd.N smrstore stats`, parsed, with the time it was read.
 * @param {number} id
 */
function tell(id) {
  const out = execFileSync("ceph", ["tell", `osd.${id}`, "smrstore", "stats"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60000,
  });
  return { at: Date.now() / 1000, doc: JSON.parse(out) };
}

/** @param {any} doc */
function figures(doc) {
  return {
    user_bytes: doc.io.user_bytes,
    device_bytes: doc.io.device_bytes,
    write_amplification: doc.io.write_amplification,
    gc_runs: doc.gc.runs,
    gc_auto: doc.gc.auto ? "auto GC on" : "auto GC off",
    free_zones: doc.drives.reduce((/** @type {number} */ n, /** @type {any} */ d) => n + d.zones.free, 0),
  };
}

/**
 * Console value v against the OSD's answers a (before) and b (after).
 * @param {string} key
 * @param {number | string} v
 * @param {number | string} a
 * @param {number | string} b
 */
function agrees(key, v, a, b) {
  if (typeof v === "string") return v === a || v === b;
  if (typeof a !== "number" || typeof b !== "number") return false;
  // The console computes WA from the counters at full precision; the document has 4 decimals.
  const eps = key === "write_amplification" ? 0.00006 : 0;
  return v >= Math.min(a, b) - eps && v <= Math.max(a, b) + eps;
}

/** @type {string[]} */
const table = [];
const results = new Results(outDir);

await results.check("API lists every smrstore OSD as a store osd.N with source osd", async () => {
  const r = await fetch(new URL("api/v1/daemons", root), { headers: { Authorization: `Bearer ${token}` } });
  assert(r.status === 200, `GET /api/v1/daemons answered ${r.status}`);
  /** @type {{ name: string, source: string }[]} */
  const ds = await r.json();
  for (const id of osds) {
    const d = ds.find((x) => x.name === `osd.${id}`);
    assert(d !== undefined, `osd.${id} missing from ${ds.map((x) => x.name).join(", ")}`);
    assert(d.source === "osd", `osd.${id} has source ${d.source}`);
  }
  return ds.map((d) => `${d.name} (${d.source})`).join(", ");
});

await withBrowser(async (page) => {
  results.page = page;
  /** @type {string[]} */
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  const shot = async (/** @type {string} */ name) => {
    const file = join(outDir, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    return file;
  };

  await results.check("overview lists the OSDs with an OSD badge, free zones and WA", async () => {
    await page.goto(`${root}#token=${encodeURIComponent(token)}`, { waitUntil: "load" });
    for (const id of osds) {
      const row = page.locator(`[data-testid="daemon-table"] tr[data-daemon="osd.${id}"]`);
      await row.waitFor({ timeout: VIEW_WAIT_MS });
      assert((await row.getAttribute("data-source")) === "osd", `osd.${id} row source`);
      assert((await row.locator("td").nth(1).textContent()) === "OSD", `osd.${id} has no OSD badge`);
    }
    // The overview row against the OSD, once it has caught up.
    const lines = [];
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
    return `${lines.join("; ")}; ${await shot("osds-overview")}`;
  });

  for (const id of osds) {
    await results.check(`osd.${id}: daemon view equals ceph tell osd.${id} smrstore stats`, async () => {
      await page.evaluate((h) => { window.location.hash = h; }, `#/daemons/osd.${id}`);
      await page.getByTestId("stat-user-bytes").waitFor({ timeout: VIEW_WAIT_MS });
      assert((await page.getByText("Ceph OSD on smrstore", { exact: false }).count()) > 0, "no OSD provenance line");
      const read = async () => ({
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
        const keys = /** @type {(keyof typeof a)[]} */ (Object.keys(a));
        const bad = keys.filter((k) => !agrees(k, shown[k], a[k], b[k]));
        if (bad.length === 0) {
          for (const k of keys) {
            const same = a[k] === b[k] ? `${a[k]}` : `${a[k]} .. ${b[k]}`;
            table.push(`osd.${id} ${k.padEnd(19)} console ${String(shown[k]).padEnd(20)} ceph tell ${same}`);
          }
          const file = await shot(`osds-osd.${id}`);
          return `user ${shown.user_bytes} B, device ${shown.device_bytes} B, WA ${shown.write_amplification.toFixed(4)}, GC runs ${shown.gc_runs} (${shown.gc_auto}), free zones ${shown.free_zones} — equal to ceph tell read ${(after.at - before.at).toFixed(1)} s around; ${file}`;
        }
        if (Date.now() - t0 > CATCH_UP_MS) {
          throw new Error(`after ${CATCH_UP_MS} ms: ${bad.map((k) => `${k} console ${shown[k]} vs osd ${a[k]}..${b[k]}`).join(", ")}`);
        }
        await page.waitForTimeout(2000);
      }
    });

    const nDrives = tell(id).doc.drives.length;
    for (let drive = 0; drive < nDrives; drive++) {
      await results.check(`osd.${id} drive ${drive}: every zone the console shows equals ceph tell's zone map`, async () => {
        await page.evaluate((h) => { window.location.hash = h; }, `#/zones/osd.${id}/${drive}`);
        const canvas = page.locator("canvas.zonemap-canvas");
        await canvas.waitFor({ timeout: VIEW_WAIT_MS });
        const t0 = Date.now();
        let detail = "";
        for (;;) {
          const before = tell(id).doc.drives[drive];
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
            assert(title === `Zone ${i}`, `pinned panel shows '${title}', expected Zone ${i}`);
            zm += (await pinned.locator("code").nth(0).textContent()) ?? "?";
            st += (await pinned.locator("code").nth(1).textContent()) ?? "?";
          }
          const freeShown = Number(await page.getByTestId("zones-free").getAttribute("data-value"));
          const after = tell(id).doc.drives[drive];
          const okMap = (zm === before.zonemap && st === before.streams) || (zm === after.zonemap && st === after.streams);
          const okFree = freeShown === before.zones.free || freeShown === after.zones.free;
          detail = `console ${zm} / ${st}, osd ${after.zonemap} / ${after.streams}`;
          if (okMap && okFree) {
            table.push(`osd.${id} drive ${drive} zonemap  console ${zm}  ceph tell ${after.zonemap}`);
            table.push(`osd.${id} drive ${drive} streams  console ${st}  ceph tell ${after.streams}`);
            const file = await shot(`osds-osd.${id}-drive${drive}`);
            return `${n} zones, free ${freeShown}: ${zm}; ${file}`;
          }
          if (Date.now() - t0 > CATCH_UP_MS) throw new Error(`after ${CATCH_UP_MS} ms: ${detail}, free ${freeShown} vs ${after.zones.free}`);
          await page.waitForTimeout(3000);
        }
      });
    }
  }

  await results.check("GC view lists the OSDs with runs and free zones", async () => {
    await page.evaluate((h) => { window.location.hash = h; }, "#/gc");
    const rows = page.locator('[data-testid="gc-table"] tbody tr');
    await rows.first().waitFor({ timeout: VIEW_WAIT_MS });
    const text = (await page.locator('[data-testid="gc-table"]').textContent()) ?? "";
    for (const id of osds) assert(text.includes(`osd.${id}`), `osd.${id} not in the GC table`);
    return await shot("osds-gc");
  });

  await results.check("no uncaught errors in the page", async () => {
    assert(pageErrors.length === 0, pageErrors.join(" | "));
  });
});

console.log("console vs ceph tell osd.N smrstore stats:");
for (const line of table) console.log(`  ${line}`);
results.finish();
