// The console against a running smrstore mgr module (real ceph-mgr, a publishing store):
//   SMRSTORE_E2E_URL=BASE_URL SMRSTORE_E2E_TOKEN=TOKEN npx playwright test --project console
// (qa/ceph/0003_mgr_module.sh runs it). The API refuses no or a wrong token; without a token
// the app asks for one; every view shows real data; one PNG per view in OUT_DIR. Every test
// also fails on an uncaught page error (fixtures.ts).
import { type Page } from "@playwright/test";
import { envMs, requireTarget } from "./env";
import { detail, expect, shot, test } from "./fixtures";

const { root, token } = requireTarget();
/** How long to wait for data that needs a few module samples (history points). */
const SAMPLE_WAIT_MS = envMs("SMRSTORE_E2E_SAMPLE_WAIT_MS", 90000);
const VIEW_WAIT_MS = 20000;

const api = (path: string) => new URL(path, root).href;

/** Opens the console with the token in the URL and waits for the overview's daemon table. */
async function openWithToken(page: Page) {
  await page.goto(`${root}#token=${encodeURIComponent(token)}`, { waitUntil: "load" });
  const rows = page.locator('[data-testid="daemon-table"] tbody tr');
  await rows.first().waitFor({ timeout: VIEW_WAIT_MS });
  return rows;
}

test.describe("API", () => {
  test("API refuses a request without a token (401)", async ({ request }) => {
    const r = await request.get(api("api/v1/summary"));
    expect(r.status(), "GET /api/v1/summary without Authorization").toBe(401);
    const body: unknown = await r.json().catch(() => null);
    const det = body !== null && typeof body === "object" ? (body as { detail?: unknown }).detail : undefined;
    expect(typeof det, "the 401 answer has a JSON {detail}").toBe("string");
    detail(`detail: ${String(det)}`);
  });

  test("API refuses a wrong token (401)", async ({ request }) => {
    const r = await request.get(api("api/v1/daemons"), { headers: { Authorization: "Bearer not-a-valid-token" } });
    expect(r.status(), "GET /api/v1/daemons with a wrong token").toBe(401);
  });

  test("API accepts the token", async ({ request }) => {
    const r = await request.get(api("api/v1/daemons"), { headers: { Authorization: `Bearer ${token}` } });
    expect(r.status(), "GET /api/v1/daemons with the token").toBe(200);
    const ds: unknown = await r.json();
    expect(Array.isArray(ds), `an array of daemons (${JSON.stringify(ds).slice(0, 200)})`).toBe(true);
    const names = (ds as { name: string }[]).map((d) => d.name);
    expect(names.length, "daemons reported").toBeGreaterThan(0);
    detail(`${names.length} daemon(s): ${names.join(", ")}`);
  });
});

test.describe("console", () => {
  test("without a token the console shows the token form", async ({ page }) => {
    await page.goto(root, { waitUntil: "load" });
    await page.getByRole("form", { name: "API token" }).waitFor({ timeout: VIEW_WAIT_MS });
    detail(await shot(page, "token-form"));
  });

  test("overview lists daemons", async ({ page }) => {
    const rows = await openWithToken(page);
    const n = await rows.count();
    expect(n, "daemon table rows").toBeGreaterThanOrEqual(1);
    expect(page.url(), "the token has left the address bar").not.toContain("token=");
    const stored = await page.evaluate(() => sessionStorage.getItem("smrstore.token"));
    expect(stored, "the token kept in sessionStorage").toBe(token);
    await page.getByText("Health", { exact: true }).waitFor({ timeout: VIEW_WAIT_MS });
    detail(`${n} daemon row(s); ${await shot(page, "overview")}`);
  });

  test("zone map canvas draws zones and shows a tooltip on hover", async ({ page }) => {
    await openWithToken(page);
    const t0 = Date.now();
    await page.getByRole("link", { name: "Zone map" }).click();
    const canvas = page.locator("canvas.zonemap-canvas");
    await canvas.waitFor({ timeout: VIEW_WAIT_MS });
    const shownMs = Date.now() - t0;
    const box = await canvas.boundingBox();
    expect(box !== null && box.width > 0 && box.height > 0, `canvas has a size (${JSON.stringify(box)})`).toBe(true);
    if (box === null) return;
    const info = await canvas.evaluate((c: HTMLCanvasElement) => {
      const ctx = c.getContext("2d");
      if (ctx === null) return { w: c.width, h: c.height, painted: 0, cell: 0, label: "no 2d context" };
      const data = ctx.getImageData(0, 0, c.width, c.height).data;
      let painted = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) painted++;
      return { w: c.width, h: c.height, painted, cell: Number(c.dataset["cell"]), label: c.getAttribute("aria-label") };
    });
    expect(info.painted, "painted pixels on the canvas").toBeGreaterThan(0);
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
      expect(lastText.startsWith(`zone ${last} · `), `tooltip over the last cell reads '${lastText}', expected zone ${last}`).toBe(true);
    }
    await page.mouse.move(box.x + info.cell / 2, box.y + info.cell / 2);
    await tip.waitFor({ timeout: 5000 });
    const text = (await tip.textContent()) ?? "";
    expect(text, "tooltip over the first cell").toMatch(/^zone 0 · /);
    const file = await shot(page, "zonemap");
    await page.mouse.click(box.x + info.cell / 2, box.y + info.cell / 2);
    await page.getByTestId("pinned-zone").waitFor({ timeout: 5000 });
    await page.getByLabel("show streams").check();
    await shot(page, "zonemap-streams");
    detail(`${zones} zones, ${info.w}x${info.h} px canvas (${info.cell} px cells), ${info.painted} px painted, shown ${shownMs} ms after the click; tooltip '${text}'; ${file}`);
  });

  test("WA chart has points", async ({ page }) => {
    test.setTimeout(SAMPLE_WAIT_MS + 60000);
    await openWithToken(page);
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
    detail(`${points} point(s); ${await shot(page, "wa")}`);
  });

  test("GC view shows per-daemon GC state and activity charts", async ({ page }) => {
    test.setTimeout(SAMPLE_WAIT_MS + 60000);
    await openWithToken(page);
    await page.getByRole("link", { name: "GC" }).click();
    const rows = page.locator('[data-testid="gc-table"] tbody tr');
    await rows.first().waitFor({ timeout: VIEW_WAIT_MS });
    const autoCell = (await rows.first().locator("td").nth(1).textContent()) ?? "";
    expect(["on", "off"], `auto GC cell reads '${autoCell}'`).toContain(autoCell);
    await page.locator('[data-testid="gc-bytes-chart"]').first().waitFor({ timeout: VIEW_WAIT_MS });
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="gc-bytes-chart"]')?.getAttribute("data-points")) > 0,
      undefined,
      { timeout: SAMPLE_WAIT_MS, polling: 1000 },
    );
    detail(`${await rows.count()} daemon row(s), auto GC ${autoCell}; ${await shot(page, "gc")}`);
  });

  test("hybrid view shows the no-hybrid-drives empty state", async ({ page }) => {
    await openWithToken(page);
    await page.getByRole("link", { name: "Hybrid" }).click();
    const empty = page.getByTestId("hybrid-empty");
    await empty.waitFor({ timeout: VIEW_WAIT_MS });
    const text = (await empty.textContent()) ?? "";
    expect(text, "the hybrid empty state").toContain("no hybrid (CMR↔SMR convertible) drives");
    detail(await shot(page, "hybrid"));
  });

  test("a wrong token returns to the token form with a 401 message", async ({ page }) => {
    // A fresh context: its sessionStorage is empty, so only the URL's token counts.
    await page.goto(`${root}#/gc&token=wrong-${Date.now()}`, { waitUntil: "load" });
    await page.getByRole("form", { name: "API token" }).waitFor({ timeout: VIEW_WAIT_MS });
    const alert = (await page.getByRole("alert").textContent()) ?? "";
    expect(alert, "the token form's message").toContain("401");
    await shot(page, "token-401");
    detail(`message: ${alert}`);
  });
});
