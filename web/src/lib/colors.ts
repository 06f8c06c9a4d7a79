// Colour scale of the zone map: one RGB per zonemap character, precomputed into a lookup table
// indexed by char code so drawing tens of thousands of zones is a table lookup per zone.
import { decodeStreamChar, decodeZoneChar, type StreamKind, type ZoneCell } from "./zonemap";

export type Rgb = readonly [number, number, number];

const FREE: Rgb = [226, 232, 240];
const RESERVED: Rgb = [71, 85, 105];
const OFFLINE: Rgb = [15, 15, 15];
const READONLY: Rgb = [219, 39, 119];
const CONVENTIONAL: Rgb = [168, 162, 158];
// Hybrid drives: a zone of its realm's inactive domain (no media behind it now). Pale violet:
// apart from free zones and from the page background (#f8fafc) the canvas sits on.
const INACTIVE: Rgb = [200, 190, 245];
const UNKNOWN: Rgb = [255, 0, 0];
// Sealed zones: pale amber at 0 % live (cheap GC victims) to deep green at 100 % live.
const SEALED_LO: Rgb = [254, 240, 138];
const SEALED_HI: Rgb = [21, 128, 61];
// Open zones: light to deep blue by live data.
const OPEN_LO: Rgb = [191, 219, 254];
const OPEN_HI: Rgb = [29, 78, 216];

export function mix(a: Rgb, b: Rgb, t: number): Rgb {
  const u = Math.min(1, Math.max(0, t));
  return [
    Math.round(a[0] + (b[0] - a[0]) * u),
    Math.round(a[1] + (b[1] - a[1]) * u),
    Math.round(a[2] + (b[2] - a[2]) * u),
  ];
}

export function cellColor(cell: ZoneCell): Rgb {
  switch (cell.condition) {
    case "free":
      return FREE;
    case "reserved":
      return RESERVED;
    case "offline":
      return OFFLINE;
    case "readonly":
      return READONLY;
    case "conventional":
      return CONVENTIONAL;
    case "inactive":
      return INACTIVE;
    case "open":
      return mix(OPEN_LO, OPEN_HI, cell.live ?? 0);
    case "sealed":
      return mix(SEALED_LO, SEALED_HI, cell.live ?? 0);
    case "unknown":
      return UNKNOWN;
  }
}

export const STREAM_COLORS: Readonly<Record<StreamKind, Rgb>> = {
  none: [0, 0, 0],
  user: [37, 99, 235],
  small: [147, 51, 234],
  gc: [234, 88, 12],
  "gc-cold": [120, 53, 15],
  "user-hot": [220, 38, 38],
  unknown: [255, 0, 0],
};

/** Lookup tables (char code 0..127 → packed RGB) for the zone and stream characters. */
function buildTable(colorOf: (ch: string) => Rgb): Uint32Array {
  const table = new Uint32Array(128);
  for (let code = 0; code < 128; code++) {
    const [r, g, b] = colorOf(String.fromCharCode(code));
    table[code] = (r << 16) | (g << 8) | b;
  }
  return table;
}

export const ZONE_TABLE: Uint32Array = buildTable((ch) => cellColor(decodeZoneChar(ch)));
export const STREAM_TABLE: Uint32Array = buildTable((ch) => STREAM_COLORS[decodeStreamChar(ch)]);
const UNKNOWN_PACKED = (UNKNOWN[0] << 16) | (UNKNOWN[1] << 8) | UNKNOWN[2];

export function packedZoneColor(code: number): number {
  return code < 128 ? (ZONE_TABLE[code] ?? UNKNOWN_PACKED) : UNKNOWN_PACKED;
}

export function packedStreamColor(code: number): number {
  return code < 128 ? (STREAM_TABLE[code] ?? UNKNOWN_PACKED) : UNKNOWN_PACKED;
}

export function rgbCss(c: Rgb): string {
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}
