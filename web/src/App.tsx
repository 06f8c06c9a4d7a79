import { useCallback, useEffect, useMemo, useState } from "react";
import { QueryCache, QueryClient, QueryClientProvider, useIsFetching } from "@tanstack/react-query";
import { ApiError, createApi } from "./api/client";
import { ApiContext, REFRESH_MS, shouldRetry } from "./api/queries";
import { TokenForm } from "./components/TokenForm";
import { Empty } from "./components/QueryState";
import { parseHash, routeHref, type Route } from "./lib/route";
import { sessionTokenStore, type TokenStore } from "./lib/token";
import { Overview } from "./views/Overview";
import { DaemonView } from "./views/DaemonView";
import { ZonesView } from "./views/ZonesView";
import { WaView } from "./views/WaView";
import { GcView } from "./views/GcView";
import { HybridView } from "./views/HybridView";

/** Reads the hash; a token in it is stored and removed from the address bar. */
function takeHash(store: TokenStore): Route {
  const p = parseHash(window.location.hash);
  if (p.token !== null) {
    store.set(p.token);
    window.history.replaceState(null, "", window.location.pathname + window.location.search + p.cleanHash);
  }
  return p.route;
}

function useRoute(store: TokenStore, onToken: (t: string) => void): Route {
  const [route, setRoute] = useState<Route>(() => takeHash(store));
  useEffect(() => {
    const onChange = () => {
      const before = store.get();
      setRoute(takeHash(store));
      const after = store.get();
      if (after !== null && after !== before) onToken(after);
    };
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, [store, onToken]);
  return route;
}

const NAV: ReadonlyArray<{ view: Route["view"]; label: string; route: Route }> = [
  { view: "overview", label: "Overview", route: { view: "overview" } },
  { view: "zones", label: "Zone map", route: { view: "zones", daemon: null, drive: null } },
  { view: "wa", label: "Write amplification", route: { view: "wa", daemon: null } },
  { view: "gc", label: "GC", route: { view: "gc" } },
  { view: "hybrid", label: "Hybrid", route: { view: "hybrid" } },
];

function RefreshIndicator() {
  const fetching = useIsFetching();
  return (
    <span className="refresh" aria-live="off">
      auto-refresh {REFRESH_MS / 1000} s{fetching > 0 ? " · updating…" : ""}
    </span>
  );
}

function View({ route }: { route: Route }) {
  switch (route.view) {
    case "overview":
      return <Overview />;
    case "daemon":
      return <DaemonView name={route.daemon} />;
    case "zones":
      return <ZonesView daemon={route.daemon} drive={route.drive} />;
    case "wa":
      return <WaView daemon={route.daemon} />;
    case "gc":
      return <GcView />;
    case "hybrid":
      return <HybridView />;
    case "notfound":
      return (
        <Empty>
          No view at <code>{route.path}</code>. <a href={routeHref({ view: "overview" })}>Overview</a>
        </Empty>
      );
  }
}

export interface AppProps {
  storage?: Storage;
  /** Replaces window.fetch (component tests). */
  fetch?: typeof globalThis.fetch;
  baseUrl?: string;
}

export function App({ storage, fetch: fetchImpl, baseUrl }: AppProps) {
  const store = useMemo(() => sessionTokenStore(storage ?? window.sessionStorage), [storage]);
  const [token, setToken] = useState<string | null>(() => {
    takeHash(store);
    return store.get();
  });
  const [message, setMessage] = useState<string | null>(null);
  const acceptToken = useCallback(
    (t: string) => {
      store.set(t);
      setMessage(null);
      setToken(t);
    },
    [store],
  );
  const route = useRoute(store, acceptToken);

  const logout = useCallback(
    (why: string | null) => {
      store.clear();
      setToken(null);
      setMessage(why);
    },
    [store],
  );

  const api = useMemo(
    () => (token === null ? null : createApi({ token, ...(fetchImpl ? { fetch: fetchImpl } : {}), ...(baseUrl !== undefined ? { baseUrl } : {}) })),
    [token, fetchImpl, baseUrl],
  );
  const queryClient = useMemo(
    () =>
      new QueryClient({
        queryCache: new QueryCache({
          onError: (error) => {
            if (error instanceof ApiError && error.unauthorized) {
              logout(`The API refused the token (HTTP 401): ${error.message}. Enter a valid token.`);
            }
          },
        }),
        defaultOptions: { queries: { retry: shouldRetry, staleTime: 2000 } },
      }),
    // A new token starts from an empty cache.
    [token, logout],
  );

  if (api === null) return <TokenForm message={message} onToken={acceptToken} />;

  return (
    <QueryClientProvider client={queryClient}>
      <ApiContext.Provider value={api}>
        <header className="top">
          <span className="brand">smrstore</span>
          <nav>
            {NAV.map((n) => (
              <a key={n.view} href={routeHref(n.route)} className={route.view === n.view ? "active" : undefined}>
                {n.label}
              </a>
            ))}
          </nav>
          <RefreshIndicator />
          <button className="logout" onClick={() => logout(null)}>
            forget token
          </button>
        </header>
        <main className="content">
          <View route={route} />
        </main>
      </ApiContext.Provider>
    </QueryClientProvider>
  );
}
