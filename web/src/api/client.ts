// Typed client of the smrstore mgr module's REST API (/api/v1), over the types that
// `npm run gen:api` generates from mgr-module/openapi.json into schema.d.ts.
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./schema";

export type Schemas = components["schemas"];
export type Summary = Schemas["Summary"];
export type DaemonSummary = Schemas["DaemonSummary"];
export type DaemonDetail = Schemas["DaemonDetail"];
export type Drive = Schemas["Drive"];
export type DriveZones = Schemas["DriveZones"];
export type HistoryOut = Schemas["HistoryOut"];
export type HistoryPoint = Schemas["HistoryPoint"];
export type GcOut = Schemas["GcOut"];
export type GcDaemon = Schemas["GcDaemon"];
export type ConversionDrive = Schemas["ConversionDrive"];
export type HealthCheck = Schemas["HealthCheckOut"];

/** An HTTP answer other than 2xx (status > 0) or a failed request (status 0: network). */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }
  get unauthorized(): boolean {
    return this.status === 401;
  }
  get notFound(): boolean {
    return this.status === 404;
  }
}

/** FastAPI error bodies: {"detail": "text"} or {"detail": [{"msg": ..., "loc": [...]}]}. */
export function errorDetail(body: unknown): string | null {
  if (typeof body !== "object" || body === null || !("detail" in body)) return null;
  const detail = (body as { detail: unknown }).detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    const parts = detail.map((d: unknown) => {
      if (typeof d !== "object" || d === null) return String(d);
      const rec = d as { msg?: unknown; loc?: unknown };
      const loc = Array.isArray(rec.loc) ? rec.loc.join(".") : "";
      return `${loc ? loc + ": " : ""}${typeof rec.msg === "string" ? rec.msg : JSON.stringify(d)}`;
    });
    return parts.join("; ");
  }
  return null;
}

/** Directory of the page (the mgr module serves the console and the API from one root). */
export function apiBase(pathname: string): string {
  return pathname.replace(/\/[^/]*$/, "");
}

export interface ApiOptions {
  token: string;
  baseUrl?: string;
  fetch?: typeof globalThis.fetch;
}

export function createApi(opts: ApiOptions) {
  const client = createClient<paths>({
    baseUrl: opts.baseUrl ?? apiBase(globalThis.location?.pathname ?? "/"),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const auth: Middleware = {
    onRequest({ request }) {
      request.headers.set("Authorization", `Bearer ${opts.token}`);
      return request;
    },
  };
  client.use(auth);

  async function unwrap<T>(
    what: string,
    call: Promise<{ data?: T; error?: unknown; response: Response }>,
  ): Promise<T> {
    let res: { data?: T; error?: unknown; response: Response };
    try {
      res = await call;
    } catch (e) {
      throw new ApiError(0, `${what}: the console could not reach the API (${e instanceof Error ? e.message : String(e)})`);
    }
    if (res.response.ok && res.data !== undefined) return res.data;
    const detail = errorDetail(res.error) ?? res.response.statusText;
    throw new ApiError(res.response.status, `${what}: HTTP ${res.response.status}${detail ? ` — ${detail}` : ""}`);
  }

  return {
    summary: () => unwrap("summary", client.GET("/api/v1/summary")),
    daemons: () => unwrap("daemons", client.GET("/api/v1/daemons")),
    daemon: (name: string) =>
      unwrap(`daemon ${name}`, client.GET("/api/v1/daemons/{name}", { params: { path: { name } } })),
    zones: (name: string, index: number) =>
      unwrap(
        `zones of ${name} drive ${index}`,
        client.GET("/api/v1/daemons/{name}/drives/{index}/zones", { params: { path: { name, index } } }),
      ),
    history: (daemon: string | null, window: number) =>
      unwrap(
        "history",
        client.GET("/api/v1/history", {
          params: { query: daemon === null ? { window } : { daemon, window } },
        }),
      ),
    gc: (window: number) => unwrap("gc", client.GET("/api/v1/gc", { params: { query: { window } } })),
    conversion: () => unwrap("conversion", client.GET("/api/v1/conversion")),
    health: () => unwrap("health", client.GET("/api/v1/health")),
  };
}

export type Api = ReturnType<typeof createApi>;
