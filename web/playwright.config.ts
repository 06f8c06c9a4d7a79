// The console's browser tests (@playwright/test), against a live smrstore mgr module; see
// web/README.md. Debian's Chromium through executablePath: no browser download. Three projects:
//   console  e2e/console.spec.ts  the module with a publishing store (qa/ceph/0003_mgr_module.sh)
//   osds     e2e/osds.spec.ts     real smrstore OSDs vs `ceph tell` (qa/ceph/0007_console_osds.sh)
//   hybrid   e2e/hybrid.spec.ts   a store on a converting emulated hybrid drive (e2e/hybrid-stack.sh)
// Everything lands under SMRSTORE_E2E_OUT (default build/e2e): the PNG of each view (kept on
// success), results-PROJECT/ (per failed test: its screenshot, trace.zip, error context), and
// the HTML report in report/ (qa scripts set PLAYWRIGHT_HTML_OUTPUT_DIR=.../report-PROJECT).
import { join } from "node:path";
import { defineConfig } from "@playwright/test";
import { CHROMIUM, OUT_DIR } from "./e2e/env";

export default defineConfig({
  testDir: "./e2e",
  fullyParallel: false,
  workers: 1, // one shared, small machine; the specs read a live cluster
  retries: 0, // a flaky check is a failure, as it was with the old runner
  forbidOnly: true,
  timeout: 120000,
  reporter: [["list"], ["html", { outputFolder: join(OUT_DIR, "report"), open: "never" }]],
  use: {
    headless: true,
    viewport: { width: 1400, height: 1000 },
    screenshot: { mode: "only-on-failure", fullPage: true },
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: CHROMIUM,
      args: ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  projects: [
    { name: "console", testMatch: "console.spec.ts", outputDir: join(OUT_DIR, "results-console") },
    { name: "osds", testMatch: "osds.spec.ts", outputDir: join(OUT_DIR, "results-osds") },
    { name: "hybrid", testMatch: "hybrid.spec.ts", outputDir: join(OUT_DIR, "results-hybrid") },
  ],
});
