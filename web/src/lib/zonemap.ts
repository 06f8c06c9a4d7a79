// Decoding of the per-zone strings of doc/stats-schema.md (smrstore.stats/1):
// `zonemap` (condition + live-data ratio) and `streams` (placement stream), one char per zone.
// The codes come from ../api/statsCodes.ts, generated from the normative schema
// mgr-module/smrstore/stats_schema.json (web/scripts/gen-stats-codes.mjs).
import {
  STREAM_CODES,
  STREAM_LABELS as SCHEMA_STREAM_LABELS,
  ZONE_STATE_LABELS,
  ZONE_STATES,
  ZONEMAP_CODES,
  type Stream,
  type ZoneState,
} from "../api/statsCodes";

export type ZoneCondition = ZoneState | "unknown";

export interface ZoneCell {
  condition: ZoneCondition;
  /** Live data as a fraction of zone capacity (0, 0.1, ... 1) for open/sealed zones, else null. */
  live: number | null;
}

export type StreamKind = Stream | "unknown";

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Decodes one zonemap character. Unknown characters decode to condition "unknown". */
export function decodeZoneChar(ch: string): ZoneCell {
  const code = ch.length === 1 && hasOwn(ZONEMAP_CODES, ch) ? ZONEMAP_CODES[ch] : undefined;
  if (code === undefined) return { condition: "unknown", live: null };
  return { condition: code.state, live: code.liveTenths === null ? null : code.liveTenths / 10 };
}

export function decodeStreamChar(ch: string): StreamKind {
  return (ch.length === 1 && hasOwn(STREAM_CODES, ch) ? STREAM_CODES[ch] : undefined) ?? "unknown";
}

export const STREAM_LABELS: Readonly<Record<StreamKind, string>> = {
  ...SCHEMA_STREAM_LABELS,
  unknown: "unknown",
};

export const CONDITION_LABELS: Readonly<Record<ZoneCondition, string>> = {
  ...ZONE_STATE_LABELS,
  unknown: "unknown code",
};

export type ConditionCounts = Record<ZoneCondition, number>;

/** Counts zones per condition in one pass over the string (no per-zone objects). */
export function countConditions(zonemap: string): ConditionCounts {
  const counts = {} as ConditionCounts;
  for (const s of ZONE_STATES) counts[s] = 0;
  counts.unknown = 0;
  for (let i = 0; i < zonemap.length; i++) {
    counts[decodeZoneChar(zonemap.charAt(i)).condition]++;
  }
  return counts;
}

export interface ZoneDetails {
  index: number;
  condition: ZoneCondition;
  live: number | null;
  stream: StreamKind;
  /** The raw characters, for operators comparing against `ceph smrstore zones`. */
  zoneChar: string;
  streamChar: string;
}

/** Details of zone `index`, or null when the index is outside the map. */
export function zoneDetails(zonemap: string, streams: string, index: number): ZoneDetails | null {
  if (!Number.isInteger(index) || index < 0 || index >= zonemap.length) return null;
  const zoneChar = zonemap.charAt(index);
  const streamChar = index < streams.length ? streams.charAt(index) : "-";
  const cell = decodeZoneChar(zoneChar);
  return {
    index,
    condition: cell.condition,
    live: cell.live,
    stream: decodeStreamChar(streamChar),
    zoneChar,
    streamChar,
  };
}

/**
 * Problems with a zone map as served (length mismatch, unknown codes), as human-readable
 * strings; empty when the map is consistent. The view shows them instead of guessing.
 */
export function zoneMapProblems(nrZones: number, zonemap: string, streams: string): string[] {
  const problems: string[] = [];
  if (zonemap.length !== nrZones) {
    problems.push(`zone map has ${zonemap.length} characters for ${nrZones} zones`);
  }
  if (streams.length !== 0 && streams.length !== zonemap.length) {
    problems.push(`stream map has ${streams.length} characters for ${zonemap.length} zones`);
  }
  let unknown = 0;
  let first = -1;
  for (let i = 0; i < zonemap.length; i++) {
    if (decodeZoneChar(zonemap.charAt(i)).condition === "unknown") {
      if (first < 0) first = i;
      unknown++;
    }
  }
  if (unknown > 0) {
    problems.push(
      `${unknown} zone(s) with an unknown code (first: zone ${first}, '${zonemap.charAt(first)}')`,
    );
  }
  return problems;
}

/** Zones per stream (the streams string), in STREAM_LABELS order, without "none". */
export function countStreams(streams: string): Array<{ stream: StreamKind; count: number }> {
  const counts = new Map<StreamKind, number>();
  for (let i = 0; i < streams.length; i++) {
    const s = decodeStreamChar(streams.charAt(i));
    if (s !== "none") counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  return (Object.keys(STREAM_LABELS) as StreamKind[])
    .filter((s) => counts.has(s))
    .map((s) => ({ stream: s, count: counts.get(s) ?? 0 }));
}
