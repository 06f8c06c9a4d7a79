// Fails when src/api/schema.d.ts is not what `npm run gen:api` makes of
// ../mgr-module/openapi.json today (the API changed and the client was not regenerated).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const web = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const spec = resolve(web, "../mgr-module/openapi.json");
const committed = join(web, "src/api/schema.d.ts");
if (!existsSync(spec)) {
  console.error(`check-api: ${spec} is missing (mgr-module/tools/export_openapi.py writes it)`);
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), "smrstore-api-"));
try {
  const fresh = join(dir, "schema.d.ts");
  execFileSync(join(web, "node_modules/.bin/openapi-typescript"), [spec, "-o", fresh], { stdio: "pipe" });
  const a = readFileSync(committed, "utf8");
  const b = readFileSync(fresh, "utf8");
  if (a !== b) {
    const al = a.split("\n");
    const bl = b.split("\n");
    let i = 0;
    while (i < al.length && al[i] === bl[i]) i++;
    console.error(
      `check-api: src/api/schema.d.ts is out of date with mgr-module/openapi.json (first difference at line ${i + 1}:\n` +
        `  committed: ${al[i] ?? "<end>"}\n  generated: ${bl[i] ?? "<end>"})\nRun 'npm run gen:api' in web/ and commit the result.`,
    );
    process.exit(1);
  }
  console.log("check-api: src/api/schema.d.ts matches mgr-module/openapi.json");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
