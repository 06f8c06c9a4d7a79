// Shared by the console's browser checks (e2e/*.mjs): argument parsing, the result list, and
// Debian's /usr/bin/chromium driven headless through playwright-core.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const CHROMIUM = process.env["SMRSTORE_E2E_CHROMIUM"] ?? "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * @param {string} usageLine
 * @param {string} msg
 * @returns {never}
 */
export function usage(usageLine, msg) {
  console.error(`e2e: ${msg}\nusage: ${usageLine}`);
  process.exit(2);
}

/**
 * BASE_URL TOKEN OUTDIR from argv (after `skip` leading arguments checked by the caller).
 * @param {string[]} args
 * @param {string} usageLine
 * @returns {{ root: string, token: string, outDir: string }}
 */
export function parseBase(args, usageLine) {
  const [baseArg, token, outDir] = args;
  if (baseArg === undefined || token === undefined || outDir === undefined) usage(usageLine, "BASE_URL TOKEN OUTDIR needed");
  /** @type {URL} */
  let base;
  try {
    base = new URL(baseArg);
  } catch {
    usage(usageLine, `BASE_URL '${baseArg}' is not a URL`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") usage(usageLine, `BASE_URL must be http(s), got ${base.protocol}`);
  if (token.length === 0) usage(usageLine, "TOKEN is empty");
  if (!existsSync(CHROMIUM)) usage(usageLine, `${CHROMIUM} not found (apt-get install chromium, or scripts/install-deps.sh web)`);
  mkdirSync(outDir, { recursive: true });
  return { root: base.href.endsWith("/") ? base.href : `${base.href}/`, token, outDir };
}

/**
 * @param {unknown} cond
 * @param {string} msg
 * @returns {asserts cond}
 */
export function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

/** Checks with a PASS/FAIL line each, a screenshot of the current page on failure. */
export class Results {
  /** @param {string} outDir */
  constructor(outDir) {
    this.outDir = outDir;
    /** @type {{ name: string, ok: boolean, detail: string }[]} */
    this.results = [];
    /** @type {import("playwright-core").Page | null} */
    this.page = null;
    this.failShots = 0;
  }

  /**
   * @param {string} name
   * @param {() => Promise<string | void>} fn
   */
  async check(name, fn) {
    try {
      const detail = await fn();
      this.record(name, true, typeof detail === "string" ? detail : "");
    } catch (e) {
      let detail = e instanceof Error ? (e.message.split("\n")[0] ?? "") : String(e);
      if (this.page !== null) {
        const file = join(this.outDir, `failure-${++this.failShots}.png`);
        await this.page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
        detail += ` (page ${this.page.url()}, screenshot ${file})`;
      }
      this.record(name, false, detail);
    }
  }

  /**
   * @param {string} name
   * @param {boolean} ok
   * @param {string} detail
   */
  record(name, ok, detail) {
    this.results.push({ name, ok, detail });
    console.log(`${ok ? "PASS" : "FAIL"} ${name}${detail ? ` — ${detail}` : ""}`);
  }

  /** Prints the verdict line; exits 1 when a check failed. */
  finish() {
    const failed = this.results.filter((r) => !r.ok);
    console.log(`e2e: ${this.results.length - failed.length} passed, ${failed.length} failed`);
    if (failed.length > 0) {
      console.error(`e2e: FAILED: ${failed.map((f) => f.name).join("; ")} (screenshots in ${this.outDir})`);
      process.exit(1);
    }
  }
}

/**
 * Runs fn with a fresh headless Chromium page (1400x1000); closes everything after.
 * @param {(page: import("playwright-core").Page, context: import("playwright-core").BrowserContext) => Promise<void>} fn
 */
export async function withBrowser(fn) {
  const profile = mkdtempSync(join(tmpdir(), "smrstore-e2e-profile-"));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: { width: 1400, height: 1000 },
    });
  } catch (e) {
    rmSync(profile, { recursive: true, force: true });
    console.error(`e2e: could not start ${CHROMIUM}: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  }
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await fn(page, context);
  } finally {
    await context.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
}
