// lib/realms.ts and the legend follow the normative schema's x-realmmap-codes
// (mgr-module/smrstore/stats_schema.json, read here directly, not through the generated
// api/statsCodes.ts), and the zone-map legend has every zone state of x-zonemap-states.
import { describe, expect, it } from "vitest";
import { render } from "@testing-library/react";
import schema from "../../../mgr-module/smrstore/stats_schema.json";
import { Legend } from "../components/Legend";
import { RealmLegend } from "../views/HybridView";
import { cellColor, rgbCss } from "./colors";
import { decodeRealmChar, REALM_COLORS, REALM_DESCRIPTIONS, REALM_LABELS } from "./realms";
import { CONDITION_LABELS, decodeZoneChar } from "./zonemap";

const codes = schema["x-realmmap-codes"];
const every = Array.from({ length: 256 }, (_, i) => String.fromCharCode(i));

describe("realms.ts against stats_schema.json", () => {
  it("decodes each of the 256 one-byte characters as the schema's x-realmmap-codes", () => {
    const chars = new Set(codes.map((c) => c.char));
    for (const ch of every) expect(decodeRealmChar(ch), JSON.stringify(ch)).toBe(chars.has(ch) ? ch : "unknown");
  });
  it("labels and describes the codes as the schema does, in its order, plus unknown", () => {
    expect(Object.entries(REALM_LABELS)).toEqual([...codes.map((c) => [c.char, c.label]), ["unknown", "unknown code"]]);
    expect(codes.map((c) => REALM_DESCRIPTIONS[decodeRealmChar(c.char)])).toEqual(codes.map((c) => c.description));
  });
  it("gives every code its own colour", () => {
    const colors = codes.map((c) => REALM_COLORS[decodeRealmChar(c.char)].join(","));
    expect(new Set([...colors, REALM_COLORS.unknown.join(",")]).size).toBe(codes.length + 1);
  });
  it("the realm legend lists every schema code in order with its count", () => {
    const { container } = render(<RealmLegend realmmap="SSSSSSSScCSS" />);
    const items = Array.from(container.querySelectorAll(".legend-item"));
    expect(items.map((i) => i.getAttribute("data-code"))).toEqual(codes.map((c) => c.char));
    expect(items.map((i) => i.getAttribute("data-count"))).toEqual(["1", "10", "1", "0", "0"]);
    for (const [i, c] of codes.entries()) {
      expect(items[i]?.textContent).toContain(c.label);
      expect(items[i]?.getAttribute("title")).toBe(c.description);
    }
  });
});

describe("zone-map legend against stats_schema.json", () => {
  it("has one swatch per zone state other than open/sealed, inactive included, in the state's colour", () => {
    const { container } = render(<Legend overlay={false} />);
    const labels = Array.from(container.querySelectorAll(".legend-item")).map((i) => i.getAttribute("data-label"));
    for (const s of schema["x-zonemap-states"]) {
      if (s.state === "open" || s.state === "sealed") continue;
      expect(labels, s.state).toContain(s.label);
    }
    const inactive = container.querySelector('.legend-item[data-label="inactive (hybrid)"] .swatch');
    expect((inactive as HTMLElement | null)?.style.background).toBe(rgbCss(cellColor({ condition: "inactive", live: null })));
    expect(CONDITION_LABELS.inactive).toBe("inactive (hybrid)");
  });
  it("colours inactive zones apart from free zones and from the page background", () => {
    const inactive = cellColor(decodeZoneChar("_")).join(",");
    expect(inactive).not.toBe(cellColor(decodeZoneChar(".")).join(","));
    expect(inactive).not.toBe("248,250,252");
  });
});
