// TanStack Query hooks over the API; every view refreshes every REFRESH_MS.
import { createContext, useContext } from "react";
import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import type { Api } from "./client";
import { ApiError } from "./client";

export const REFRESH_MS = 5000;

export const ApiContext = createContext<Api | null>(null);

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (api === null) throw new Error("useApi outside <ApiContext.Provider>");
  return api;
}

/** Retry transient failures (network, 5xx) twice; never 4xx (401 logs out, 404 is final). */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
  return failureCount < 2;
}

type Q<T> = UseQueryResult<T, ApiError>;

export function useSummary(): Q<Awaited<ReturnType<Api["summary"]>>> {
  const api = useApi();
  return useQuery({ queryKey: ["summary"], queryFn: api.summary, refetchInterval: REFRESH_MS });
}

export function useDaemons(): Q<Awaited<ReturnType<Api["daemons"]>>> {
  const api = useApi();
  return useQuery({ queryKey: ["daemons"], queryFn: api.daemons, refetchInterval: REFRESH_MS });
}

export function useDaemon(name: string): Q<Awaited<ReturnType<Api["daemon"]>>> {
  const api = useApi();
  return useQuery({ queryKey: ["daemon", name], queryFn: () => api.daemon(name), refetchInterval: REFRESH_MS });
}

export function useZones(name: string, index: number): Q<Awaited<ReturnType<Api["zones"]>>> {
  const api = useApi();
  return useQuery({
    queryKey: ["zones", name, index],
    queryFn: () => api.zones(name, index),
    refetchInterval: REFRESH_MS,
  });
}

export function useHistory(daemon: string | null, window: number): Q<Awaited<ReturnType<Api["history"]>>> {
  const api = useApi();
  return useQuery({
    queryKey: ["history", daemon, window],
    queryFn: () => api.history(daemon, window),
    refetchInterval: REFRESH_MS,
  });
}

export function useGc(window: number): Q<Awaited<ReturnType<Api["gc"]>>> {
  const api = useApi();
  return useQuery({ queryKey: ["gc", window], queryFn: () => api.gc(window), refetchInterval: REFRESH_MS });
}

export function useConversion(): Q<Awaited<ReturnType<Api["conversion"]>>> {
  const api = useApi();
  return useQuery({ queryKey: ["conversion"], queryFn: api.conversion, refetchInterval: REFRESH_MS });
}
