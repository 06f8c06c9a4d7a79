// A hybrid drive's realms (doc/stats-schema.md, `hybrid.realmmap`: one character per realm).
// The codes, their labels and descriptions come from ../api/statsCodes.ts, generated from the
// normative schema's x-realmmap-codes (web/scripts/gen-stats-codes.mjs).
import { REALM_CODES, REALMMAP_CODES, type RealmCode } from "../api/statsCodes";
import type { Rgb } from "./colors";

export type RealmKind = RealmCode | "unknown";

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Decodes one realm-map character; anything the schema does not list is "unknown". */
export function decodeRealmChar(ch: string): RealmKind {
  return ch.length === 1 && hasOwn(REALMMAP_CODES, ch) ? (ch as RealmCode) : "unknown";
}

export const REALM_LABELS: Readonly<Record<RealmKind, string>> = {
  ...(Object.fromEntries(REALM_CODES.map((c) => [c, REALMMAP_CODES[c].label])) as Record<RealmCode, string>),
  unknown: "unknown code",
};

export const REALM_DESCRIPTIONS: Readonly<Record<RealmKind, string>> = {
  ...(Object.fromEntries(REALM_CODES.map((c) => [c, REALMMAP_CODES[c].description])) as Record<RealmCode, string>),
  unknown: "a character the stats schema does not define",
};

// CMR realms blue, SMR realms green; emptying ones in the pale shade of their domain, the one
// the drive is converting amber. Every schema code must have a colour (typecheck).
export const REALM_COLORS: Readonly<Record<RealmKind, Rgb>> = {
  C: [37, 99, 235],
  S: [22, 163, 74],
  c: [147, 197, 253],
  s: [134, 239, 172],
  ">": [245, 158, 11],
  unknown: [255, 0, 0],
};

export type RealmCounts = Record<RealmKind, number>;

/** Realms per code (every schema code a key, 0 when absent, plus unknown). */
export function countRealms(realmmap: string): RealmCounts {
  const counts = {} as RealmCounts;
  for (const c of REALM_CODES) counts[c] = 0;
  counts.unknown = 0;
  for (let i = 0; i < realmmap.length; i++) counts[decodeRealmChar(realmmap.charAt(i))]++;
  return counts;
}

export interface PendingRealm {
  index: number;
  kind: RealmKind;
  /** What happens to it, for an operator: "emptying: CMR → SMR", "the drive is converting it". */
  what: string;
}

/** The realms being emptied or converted (c, s, >), in realm order. */
export function pendingRealms(realmmap: string): PendingRealm[] {
  const out: PendingRealm[] = [];
  for (let i = 0; i < realmmap.length; i++) {
    const kind = decodeRealmChar(realmmap.charAt(i));
    if (kind === "c") out.push({ index: i, kind, what: "emptying its data (CMR → SMR)" });
    else if (kind === "s") out.push({ index: i, kind, what: "emptying its data (SMR → CMR)" });
    else if (kind === ">") out.push({ index: i, kind, what: "the drive is converting it" });
  }
  return out;
}

/** Problems with a realm map as served (length vs the realm count, unknown codes); empty when consistent. */
export function realmMapProblems(realms: number | null | undefined, realmmap: string): string[] {
  const problems: string[] = [];
  if (typeof realms === "number" && realmmap.length !== realms) {
    problems.push(`realm map has ${realmmap.length} characters for ${realms} realms`);
  }
  const unknown = realmmap.split("").filter((ch) => decodeRealmChar(ch) === "unknown");
  if (unknown.length > 0) {
    problems.push(`${unknown.length} realm(s) with an unknown code (first: '${unknown[0] ?? ""}')`);
  }
  return problems;
}

/** Shares of the CMR / SMR capacity (0..1 each, summing to 1), or null when there is none. */
export function domainShares(cmrBytes: number | null | undefined, smrBytes: number | null | undefined): { cmr: number; smr: number } | null {
  const c = cmrBytes ?? 0;
  const s = smrBytes ?? 0;
  if (!(c >= 0 && s >= 0) || c + s <= 0) return null;
  return { cmr: c / (c + s), smr: s / (c + s) };
}

export interface LatencyScale {
  /** The axis' end, ms: the largest of the bound and the durations, with 10 % room. */
  top: number;
  /** Positions 0..1 on that axis (null: unknown). */
  bound: number | null;
  p99: number | null;
  max: number | null;
  /** p99 above the bound (the health check's condition); null when either is unknown. */
  over: boolean | null;
}

/** Where the latency bound and the migration quanta's p99 and max sit on one axis. */
export function latencyScale(boundMs: number | null | undefined, p99Ms: number | null | undefined, maxMs: number | null | undefined): LatencyScale {
  const vals = [boundMs, p99Ms, maxMs].filter((v): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0);
  const top = vals.length > 0 && Math.max(...vals) > 0 ? Math.max(...vals) * 1.1 : 1;
  const at = (v: number | null | undefined): number | null => (typeof v === "number" && Number.isFinite(v) ? Math.min(1, Math.max(0, v / top)) : null);
  const over = typeof boundMs === "number" && typeof p99Ms === "number" ? p99Ms > boundMs : null;
  return { top, bound: at(boundMs), p99: at(p99Ms), max: at(maxMs), over };
}
