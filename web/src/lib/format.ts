// Formatting for operators: IEC byte units, ratios, percentages, durations, ages.

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"] as const;

/** 1536 → "1.50 KiB"; integers below 1024 stay exact ("512 B"). Invalid input → "–". */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return "–";
  const sign = bytes < 0 ? "-" : "";
  let v = Math.abs(bytes);
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  if (u === 0) return `${sign}${Math.round(v)} B`;
  const digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  return `${sign}${v.toFixed(digits)} ${UNITS[u]}`;
}

/** Bytes per second. */
export function formatRate(bytesPerSecond: number | null | undefined): string {
  const s = formatBytes(bytesPerSecond);
  return s === "–" ? s : `${s}/s`;
}

/** Write amplification: 0 means "no user bytes yet" in the schema. */
export function formatWa(wa: number | null | undefined): string {
  if (wa === null || wa === undefined || !Number.isFinite(wa)) return "–";
  if (wa === 0) return "n/a";
  return `${wa.toFixed(2)}×`;
}

/** Fraction 0..1 → "42.0 %". */
export function formatPercent(fraction: number | null | undefined, digits = 1): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return "–";
  return `${(fraction * 100).toFixed(digits)} %`;
}

/** part / whole as a fraction, or null when whole is 0 (nothing to divide). */
/** A finite number (not null, undefined, NaN or infinite): a figure the daemon reported. */
export function known(n: number | null | undefined): n is number {
  return typeof n === "number" && Number.isFinite(n);
}

export function ratio(part: number, whole: number): number | null {
  return whole > 0 ? part / whole : null;
}

/** Nanoseconds → "830 ms", "12.5 s", "3 min 20 s". */
export function formatNs(ns: number | null | undefined): string {
  if (ns === null || ns === undefined || !Number.isFinite(ns)) return "–";
  const ms = ns / 1e6;
  if (ms < 1) return `${Math.round(ns / 1e3)} µs`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
  return formatSeconds(ms / 1000);
}

/** Milliseconds → "0.250 ms", "20.6 ms", "254.5 ms", "1.5 s". */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "–";
  if (ms < 1) return `${ms.toFixed(3)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return formatSeconds(ms / 1000);
}

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return "–";
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s - m * 60)} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${m - h * 60} min`;
}

/** Age of a timestamp (seconds since the epoch) relative to `now` (same unit). */
export function formatAge(t: number | null | undefined, now: number): string {
  if (t === null || t === undefined || !Number.isFinite(t)) return "never";
  const d = now - t;
  if (d < 0) return "just now";
  return `${formatSeconds(d)} ago`;
}

/** Clock time of a timestamp in seconds since the epoch (chart axes). */
export function formatClock(t: number): string {
  const d = new Date(t * 1000);
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "–";
  return Math.round(n).toLocaleString("en-US");
}
