// lib/zonemap.ts decodes every character as the normative schema says
// (mgr-module/smrstore/stats_schema.json, read here directly, not through the generated
// api/statsCodes.ts): a decoder that bypasses or overrides the generated tables fails here.
import { describe, expect, it } from "vitest";
import schema from "../../../mgr-module/smrstore/stats_schema.json";
import { CONDITION_LABELS, countConditions, decodeStreamChar, decodeZoneChar, STREAM_LABELS } from "./zonemap";

const zoneCodes = new Map(schema["x-zonemap-codes"].map((c) => [c.char, c] as const));
const streamCodes = new Map(schema["x-streams-codes"].map((c) => [c.char, c] as const));
const every = Array.from({ length: 256 }, (_, i) => String.fromCharCode(i));

describe("zonemap.ts against stats_schema.json", () => {
  it("decodes each of the 256 one-byte characters as the schema's x-zonemap-codes", () => {
    for (const ch of every) {
      const code = zoneCodes.get(ch);
      const want = code
        ? { condition: code.state, live: code.live_tenths === undefined ? null : code.live_tenths / 10 }
        : { condition: "unknown", live: null };
      expect(decodeZoneChar(ch), `zone-map character ${JSON.stringify(ch)}`).toEqual(want);
    }
  });
  it("decodes each of the 256 one-byte characters as the schema's x-streams-codes", () => {
    for (const ch of every) {
      expect(decodeStreamChar(ch), `stream character ${JSON.stringify(ch)}`).toBe(
        streamCodes.get(ch)?.stream ?? "unknown",
      );
    }
  });
  it("labels the schema's states and streams, in its order, plus unknown", () => {
    expect(Object.entries(CONDITION_LABELS)).toEqual([
      ...schema["x-zonemap-states"].map((s) => [s.state, s.label]),
      ["unknown", "unknown code"],
    ]);
    expect(Object.entries(STREAM_LABELS)).toEqual([
      ...schema["x-streams-codes"].map((s) => [s.stream, s.label]),
      ["unknown", "unknown"],
    ]);
  });
  it("counts every state of a map holding every code once per code", () => {
    const all = schema["x-zonemap-codes"].map((c) => c.char).join("");
    const want: Record<string, number> = { unknown: 1 };
    for (const c of schema["x-zonemap-codes"]) want[c.state] = (want[c.state] ?? 0) + 1;
    expect(countConditions(all + "?")).toEqual(want);
  });
});
