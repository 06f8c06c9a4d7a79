// Hash router: "#/", "#/daemons/NAME", "#/zones/NAME/INDEX", "#/wa", "#/gc", "#/hybrid".
// A token may arrive in the hash ("#token=T" or "#/zones/a/0&token=T"); it is split off here.

export type Route =
  | { view: "overview" }
  | { view: "daemon"; daemon: string }
  | { view: "zones"; daemon: string | null; drive: number | null }
  | { view: "wa"; daemon: string | null }
  | { view: "gc" }
  | { view: "hybrid" }
  | { view: "notfound"; path: string };

export interface ParsedHash {
  route: Route;
  /** Token carried in the hash, if any. */
  token: string | null;
  /** The hash with the token removed (what the address bar should show). */
  cleanHash: string;
}

function decodeSegment(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

export function parseRoute(path: string): Route {
  const parts = path.split("/").filter((p) => p.length > 0);
  const [head, a, b] = parts;
  if (head === undefined) return { view: "overview" };
  const decoded = parts.map(decodeSegment);
  if (decoded.some((p) => p === null)) return { view: "notfound", path };
  const da = a === undefined ? null : (decoded[1] ?? null);
  switch (head) {
    case "daemons":
      if (da !== null && parts.length === 2) return { view: "daemon", daemon: da };
      break;
    case "zones": {
      if (parts.length > 3) break;
      if (b === undefined) return { view: "zones", daemon: da, drive: null };
      if (!/^\d{1,6}$/.test(b)) break;
      return { view: "zones", daemon: da, drive: Number(b) };
    }
    case "wa":
      if (parts.length <= 2) return { view: "wa", daemon: da };
      break;
    case "gc":
      if (parts.length === 1) return { view: "gc" };
      break;
    case "hybrid":
      if (parts.length === 1) return { view: "hybrid" };
      break;
    default:
      break;
  }
  return { view: "notfound", path };
}

/** Splits "#/path&token=T" / "#token=T" / "#/path" into route, token and the hash to keep. */
export function parseHash(hash: string): ParsedHash {
  const raw = hash.startsWith("#") ? hash.slice(1) : hash;
  let path = raw;
  let token: string | null = null;
  const m = /(^|[&?])token=([^&]*)/.exec(raw);
  if (m) {
    const value = decodeSegment(m[2] ?? "");
    token = value !== null && value.length > 0 ? value : null;
    path = (raw.slice(0, m.index) + raw.slice(m.index + m[0].length)).replace(/[&?]$/, "");
  }
  if (path === "") path = "/";
  return { route: parseRoute(path), token, cleanHash: `#${path.startsWith("/") ? path : "/" + path}` };
}

export function routeHref(route: Route): string {
  const enc = encodeURIComponent;
  switch (route.view) {
    case "overview":
      return "#/";
    case "daemon":
      return `#/daemons/${enc(route.daemon)}`;
    case "zones":
      if (route.daemon === null) return "#/zones";
      return route.drive === null
        ? `#/zones/${enc(route.daemon)}`
        : `#/zones/${enc(route.daemon)}/${route.drive}`;
    case "wa":
      return route.daemon === null ? "#/wa" : `#/wa/${enc(route.daemon)}`;
    case "gc":
      return "#/gc";
    case "hybrid":
      return "#/hybrid";
    case "notfound":
      return `#${route.path}`;
  }
}
