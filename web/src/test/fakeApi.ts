// A fetch for component tests: routes → JSON answers, records the requests it saw.
export interface Answer {
  status?: number;
  body?: unknown;
  /** Reject like a failed network request. */
  networkError?: boolean;
}

export interface FakeFetch {
  fetch: typeof globalThis.fetch;
  requests: Request[];
}

export function fakeFetch(routes: Record<string, Answer | (() => Answer)>): FakeFetch {
  const requests: Request[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = input instanceof Request ? input : new Request(input, init);
    requests.push(req);
    const path = new URL(req.url).pathname;
    const route = routes[path];
    const a = typeof route === "function" ? route() : route;
    if (a === undefined) {
      return new Response(JSON.stringify({ detail: `no route ${path}` }), { status: 404, headers: { "Content-Type": "application/json" } });
    }
    if (a.networkError) throw new TypeError("Failed to fetch");
    return new Response(JSON.stringify(a.body ?? null), {
      status: a.status ?? 200,
      headers: { "Content-Type": "application/json" },
    });
  };
  return { fetch: fetch as typeof globalThis.fetch, requests };
}
