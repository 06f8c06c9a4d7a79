#!/usr/bin/env node
// End-to-end check of the console against a running smrstore mgr module (real ceph-mgr):
//   node e2e/run.mjs BASE_URL TOKEN OUTDIR
// Drives Debian's /usr/bin/chromium headless through playwright-core, checks every view shows
// real data, that without a token the app asks for one and the API refuses, and saves one PNG
// per view into OUTDIR. Exits 1 with the failed checks listed, 2 on bad usage.
import { join } from "node:path";
import { Results, assert, parseBase, withBrowser } from "./harness.mjs";

/** How long to wait for data that needs a few module samples (history points). */
const SAMPLE_WAIT_MS = Number(process.env["SMRSTORE_E2E_SAMPLE_WAIT_MS"] ?? 90000);
const VIEW_WAIT_MS = 20000;

const { root, token, outDir } = parseBase(process.argv.slice(2), "node e2e/run.mjs BASE_URL TOKEN OUTDIR");
const results = new Results(outDir);
const check = results.check.bind(results);

// 1. The API itself refuses requests without a (valid) token.
await check("API refuses a request without a token (401)", async () => {
  const r = await fetch(new URL("api/v1/summary", root));
  assert(r.status === 401, `GET /api/v1/summary without Authorization answered ${r.status}, expected 401`);
  const body = await r.json().catch(() => null);
  assert(body && typeof body.detail === "string", "401 answer has no JSON {detail}");
  return `detail: ${body.detail}`;
});
await check("API refuses a wrong token (401)", async () => {
  const r = await fetch(new URL("api/v1/daemons", root), { headers: { Authorization: "Bearer not-a-valid-token" } });
  assert(r.status === 401, `GET /api/v1/daemons with a wrong token answered ${r.status}, expected 401`);
});
await check("API accepts the token", async () => {
  const r = await fetch(new URL("api/v1/daemons", root), { headers: { Authorization: `Bearer ${token}` } });
  assert(r.status === 200, `GET /api/v1/daemons with the token answered ${r.status}`);
  const ds = await r.json();
  assert(Array.isArray(ds) && ds.length > 0, `no daemons reported (${JSON.stringify(ds).slice(0, 200)})`);
  return `${ds.length} daemon(s): ${ds.map((/** @type {{ name: string }} */ d) => d.name).join(", ")}`;
});

/** @type {string[]} */
const pageErrors = [];
/** @type {string[]} */
const browserLog = [];
await withBrowser(async (page, context) => {
  results.page = page;
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") browserLog.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("requestfailed", (r) => browserLog.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ""}`));
  const shot = async (/** @type {string} */ name) => {
    const file = join(outDir, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    return file;
  };

  // 2. Without a token the app shows the token form.
  await check("without a token the console shows the token form", async () => {
    await page.goto(root, { waitUntil: "load" });
    await page.getByRole("form", { name: "API token" }).waitFor({ timeout: VIEW_WAIT_MS });
    return await shot("token-form");
  });

  // 3. With #token= the overview shows real daemons and the token leaves the address bar.
  await check("overview lists daemons", async () => {
    await page.goto(`${root}#token=${encodeURIComponent(token)}`, { waitUntil: "load" });
    const rows = page.locator('[data-testid="daemon-table"] tbody tr');
    await rows.first().waitFor({ timeout: VIEW_WAIT_MS });
    const n = await rows.count();
    assert(n >= 1, "daemon table is empty");
    const url = page.url();
    assert(!url.includes("token="), `the token is still in the address bar: ${url}`);
    const stored = await page.evaluate(() => sessionStorage.getItem("smrstore.token"));
    assert(stored === token, "the token was not kept in sessionStorage");
    await page.getByText("Health", { exact: true }).waitFor({ timeout: VIEW_WAIT_MS });
    return `${n} daemon row(s); ${await shot("overview")}`;
  });

  // 4. Zone map: a non-empty canvas with drawn pixels and a hover tooltip.
  await check("zone map canvas draws zones and shows a tooltip on hover", async () => {
    const t0 = Date.now();
    await page.getByRole("link", { name: "Zone map" }).click();
    const canvas = page.locator("canvas.zonemap-canvas");
    await canvas.waitFor({ timeout: VIEW_WAIT_MS });
    const shownMs = Date.now() - t0;
    const box = await canvas.boundingBox();
    assert(box !== null && box.width > 0 && box.height > 0, `canvas has no size (${JSON.stringify(box)})`);
    const info = await canvas.evaluate((/** @type {HTMLCanvasElement} */ c) => {
      const ctx = c.getContext("2d");
      if (ctx === null) return { w: c.width, h: c.height, painted: 0, cell: 0, label: "no 2d context" };
      const data = ctx.getImageData(0, 0, c.width, c.height).data;
      let painted = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) painted++;
      return { w: c.width, h: c.height, painted, cell: Number(c.dataset.cell), label: c.getAttribute("aria-label") };
    });
    assert(info.painted > 0, "the canvas has no painted pixels");
    // Hover the last zone first (hit-testing at the far end of the grid), then the first.
    const zones = Number(/zone map of (\d+) zones/.exec(info.label ?? "")?.[1] ?? "0");
    const cols = Number(await canvas.getAttribute("data-cols"));
    const pitch = info.cell + Number(await canvas.getAttribute("data-gap"));
    const tip = page.getByRole("tooltip");
    if (zones > 1 && cols > 0) {
      const last = zones - 1;
      await page.mouse.move(box.x + (last % cols) * pitch + info.cell / 2, box.y + Math.floor(last / cols) * pitch + info.cell / 2);
      await tip.waitFor({ timeout: 5000 });
      const lastText = (await tip.textContent()) ?? "";
      assert(lastText.startsWith(`zone ${last} · `), `tooltip over the last cell reads '${lastText}', expected zone ${last}`);
    }
    await page.mouse.move(box.x + info.cell / 2, box.y + info.cell / 2);
    await tip.waitFor({ timeout: 5000 });
    const text = (await tip.textContent()) ?? "";
    assert(/^zone 0 · /.test(text), `tooltip over the first cell reads '${text}'`);
    const file = await shot("zonemap");
    await page.mouse.click(box.x + info.cell / 2, box.y + info.cell / 2);
    await page.getByTestId("pinned-zone").waitFor({ timeout: 5000 });
    await page.getByLabel("show streams").check();
    await shot("zonemap-streams");
    return `${zones} zones, ${info.w}x${info.h} px canvas (${info.cell} px cells), ${info.painted} px painted, shown ${shownMs} ms after the click; tooltip '${text}'; ${file}`;
  });

  // 5. WA chart with points (needs at least one sample in the history window).
  await check("WA chart has points", async () => {
    await page.getByRole("link", { name: "Write amplification" }).click();
    const chart = page.locator('[data-testid="wa-chart"]').first();
    await chart.waitFor({ timeout: VIEW_WAIT_MS });
    await page.waitForFunction(
      () => {
        const el = document.querySelector('[data-testid="wa-chart"]');
        return el !== null && Number(el.getAttribute("data-points")) > 0 && el.querySelector(".recharts-line-curve") !== null;
      },
      undefined,
      { timeout: SAMPLE_WAIT_MS, polling: 1000 },
    );
    const points = await chart.getAttribute("data-points");
    return `${points} point(s); ${await shot("wa")}`;
  });

  // 6. GC view: per-daemon table and the activity charts.
  await check("GC view shows per-daemon GC state and activity charts", async () => {
    await page.getByRole("link", { name: "GC" }).click();
    const rows = page.locator('[data-testid="gc-table"] tbody tr');
    await rows.first().waitFor({ timeout: VIEW_WAIT_MS });
    const autoCell = (await rows.first().locator("td").nth(1).textContent()) ?? "";
    assert(autoCell === "on" || autoCell === "off", `auto GC cell reads '${autoCell}'`);
    await page.locator('[data-testid="gc-bytes-chart"]').first().waitFor({ timeout: VIEW_WAIT_MS });
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="gc-bytes-chart"]')?.getAttribute("data-points")) > 0,
      undefined,
      { timeout: SAMPLE_WAIT_MS, polling: 1000 },
    );
    return `${await rows.count()} daemon row(s), auto GC ${autoCell}; ${await shot("gc")}`;
  });

  // 7. Hybrid: no drive converts today, so the empty state.
  await check("hybrid view shows the no-hybrid-drives empty state", async () => {
    await page.getByRole("link", { name: "Hybrid" }).click();
    const empty = page.getByTestId("hybrid-empty");
    await empty.waitFor({ timeout: VIEW_WAIT_MS });
    const text = (await empty.textContent()) ?? "";
    assert(text.includes("no hybrid (CMR↔SMR convertible) drives"), `empty state reads '${text}'`);
    return await shot("hybrid");
  });

  // 8. A wrong token in the URL ends at the token form with the 401 message.
  await check("a wrong token returns to the token form with a 401 message", async () => {
    // A new tab: its sessionStorage is empty, so only the URL's token counts.
    const tab = await context.newPage();
    results.page = tab;
    tab.on("pageerror", (e) => pageErrors.push(e.message));
    await tab.goto(`${root}#/gc&token=wrong-${Date.now()}`, { waitUntil: "load" });
    await tab.getByRole("form", { name: "API token" }).waitFor({ timeout: VIEW_WAIT_MS });
    const alert = (await tab.getByRole("alert").textContent()) ?? "";
    assert(alert.includes("401"), `message reads '${alert}'`);
    await tab.screenshot({ path: join(outDir, "token-401.png"), fullPage: true });
    await tab.close();
    results.page = page;
    return `message: ${alert}`;
  });

  await check("no uncaught errors in the page", async () => {
    assert(pageErrors.length === 0, pageErrors.join(" | "));
  });
});

if (results.results.some((r) => !r.ok) && browserLog.length > 0) {
  console.log(`browser log (${browserLog.length} lines, last 20):`);
  for (const line of browserLog.slice(-20)) console.log(`  ${line}`);
}
results.finish();
