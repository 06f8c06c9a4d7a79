// Decoding of the per-zone strings of doc/stats-schema.md (smrstore.stats/1):
// `zonemap` (condition + live-data ratio) and `streams` (placement stream), one char per zone.

export type ZoneCondition =
  | "reserved"
  | "free"
  | "open"
  | "sealed"
  | "offline"
  | "readonly"
  | "conventional"
  | "unknown";

export interface ZoneCell {
  condition: ZoneCondition;
  /** Live data as a fraction of zone capacity (0, 0.1, ... 1) for open/sealed zones, else null. */
  live: number | null;
}

export type StreamKind = "none" | "user" | "small" | "gc" | "gc-cold" | "user-hot" | "unknown";

const CODE_A = "A".charCodeAt(0);
const CODE_K = "K".charCodeAt(0);
const CODE_a = "a".charCodeAt(0);
const CODE_k = "k".charCodeAt(0);

/** Decodes one zonemap character. Unknown characters decode to condition "unknown". */
export function decodeZoneChar(ch: string): ZoneCell {
  const code = ch.length === 1 ? ch.charCodeAt(0) : -1;
  if (code >= CODE_A && code <= CODE_K) return { condition: "open", live: (code - CODE_A) / 10 };
  if (code >= CODE_a && code <= CODE_k) return { condition: "sealed", live: (code - CODE_a) / 10 };
  switch (ch) {
    case "#":
      return { condition: "reserved", live: null };
    case ".":
      return { condition: "free", live: null };
    case "X":
      return { condition: "offline", live: null };
    case "!":
      return { condition: "readonly", live: null };
    case "=":
      return { condition: "conventional", live: null };
    default:
      return { condition: "unknown", live: null };
  }
}

const STREAMS: Readonly<Record<string, StreamKind>> = {
  "-": "none",
  u: "user",
  s: "small",
  g: "gc",
  G: "gc-cold",
  h: "user-hot",
};

export function decodeStreamChar(ch: string): StreamKind {
  return STREAMS[ch] ?? "unknown";
}

export const STREAM_LABELS: Readonly<Record<StreamKind, string>> = {
  none: "none",
  user: "user",
  small: "small + metadata",
  gc: "GC",
  "gc-cold": "GC cold",
  "user-hot": "user hot",
  unknown: "unknown",
};

export const CONDITION_LABELS: Readonly<Record<ZoneCondition, string>> = {
  reserved: "reserved (superblock log)",
  free: "free",
  open: "open",
  sealed: "sealed (full)",
  offline: "offline",
  readonly: "read-only",
  conventional: "conventional (unused)",
  unknown: "unknown code",
};

export type ConditionCounts = Record<ZoneCondition, number>;

/** Counts zones per condition in one pass over the string (no per-zone objects). */
export function countConditions(zonemap: string): ConditionCounts {
  const counts: ConditionCounts = {
    reserved: 0,
    free: 0,
    open: 0,
    sealed: 0,
    offline: 0,
    readonly: 0,
    conventional: 0,
    unknown: 0,
  };
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
