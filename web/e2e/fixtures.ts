// Shared by the specs: Playwright's `test` with an automatic check that no page of the test
// had an uncaught error (the old runner's "no uncaught errors in the page"), the browser's
// console errors/warnings and failed requests attached to a failed test, and shot(), which
// keeps one PNG per view in OUT_DIR on success too (the failure screenshots and trace.zip are
// Playwright's, in the project's outputDir).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test as base, expect, type Page } from "@playwright/test";
import { OUT_DIR } from "./env";

export { expect };

export const test = base.extend<{ browserErrors: void }>({
  browserErrors: [
    async ({ context }, use, testInfo) => {
      const pageErrors: string[] = [];
      const log: string[] = [];
      context.on("weberror", (e) => pageErrors.push(`${e.page()?.url() ?? "?"}: ${e.error().message}`));
      context.on("console", (m) => {
        if (m.type() === "error" || m.type() === "warning") log.push(`console ${m.type()}: ${m.text()}`);
      });
      context.on("requestfailed", (r) => log.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ""}`));
      await use();
      if (testInfo.status !== testInfo.expectedStatus || pageErrors.length > 0) {
        if (log.length > 0) await testInfo.attach("browser-log", { body: log.join("\n"), contentType: "text/plain" });
      }
      expect(pageErrors, "no uncaught errors in the page").toEqual([]);
    },
    { auto: true },
  ],
});

/** Full-page PNG OUT_DIR/NAME.png (kept on success: one per view); returns its path. */
export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(OUT_DIR, { recursive: true });
  const file = join(OUT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Prints a check's detail line under its name (the list reporter shows it). */
export function detail(text: string): void {
  console.log(`  ${text}`);
  test.info().annotations.push({ type: "detail", description: text });
}
