// What the browser tests are pointed at, from the environment (qa/ceph/0003_mgr_module.sh and
// 0007_console_osds.sh set it; see web/README.md). Imported by playwright.config.ts (paths,
// Chromium) and by the specs (URL, token, OSDs), which call requireTarget() and so fail at
// load, naming the variable, when it is missing or malformed.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Debian's Chromium (no browser download: Playwright drives it through executablePath). */
export const CHROMIUM = process.env["SMRSTORE_E2E_CHROMIUM"] ?? "/usr/bin/chromium";

/** Screenshots of every view, Playwright's per-test output and the HTML report go here. */
export const OUT_DIR = process.env["SMRSTORE_E2E_OUT"] ?? fileURLToPath(new URL("../../build/e2e", import.meta.url));

export interface Target {
  /** The module's base URL, ending in "/". */
  root: string;
  /** An API token (`ceph smrstore token create`). */
  token: string;
}

function fail(msg: string): never {
  throw new Error(
    `e2e: ${msg}\nusage: SMRSTORE_E2E_URL=http://HOST:PORT SMRSTORE_E2E_TOKEN=TOKEN [SMRSTORE_E2E_OSDS='0 1 2' CEPH_CONF=...] ` +
      "npx playwright test --project console|osds (in web/)",
  );
}

/** SMRSTORE_E2E_URL and SMRSTORE_E2E_TOKEN, checked; Chromium present. */
export function requireTarget(): Target {
  const url = process.env["SMRSTORE_E2E_URL"];
  const token = process.env["SMRSTORE_E2E_TOKEN"];
  if (url === undefined || url === "") fail("SMRSTORE_E2E_URL (the module's base URL) is not set");
  if (token === undefined || token === "") fail("SMRSTORE_E2E_TOKEN is not set or empty");
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    fail(`SMRSTORE_E2E_URL '${url}' is not a URL`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") fail(`SMRSTORE_E2E_URL must be http(s), got ${base.protocol}`);
  if (!existsSync(CHROMIUM)) fail(`${CHROMIUM} not found (apt-get install chromium, or scripts/install-deps.sh web)`);
  return { root: base.href.endsWith("/") ? base.href : `${base.href}/`, token };
}

/** SMRSTORE_E2E_OSDS: the OSD ids to compare ("0 1 2"), checked. */
export function requireOsds(): number[] {
  const raw = (process.env["SMRSTORE_E2E_OSDS"] ?? "").trim();
  const osds = raw === "" ? [] : raw.split(/[\s,]+/).map(Number);
  if (osds.length === 0 || osds.some((n) => !Number.isInteger(n) || n < 0)) {
    fail(`SMRSTORE_E2E_OSDS must list OSD ids (0 1 2 ...), got '${raw}'`);
  }
  return osds;
}

/** A number from the environment, or the default. */
export function envMs(name: string, dflt: number): number {
  const v = process.env[name];
  if (v === undefined || v === "") return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) fail(`${name} must be a number of milliseconds, got '${v}'`);
  return n;
}
