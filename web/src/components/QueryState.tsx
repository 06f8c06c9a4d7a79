// Loading / error / empty handling shared by every view.
import type { ReactNode } from "react";
import type { UseQueryResult } from "@tanstack/react-query";
import { ApiError } from "../api/client";

export function Loading({ what }: { what: string }) {
  return (
    <div className="state state-loading" role="status">
      Loading {what}…
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state state-empty">{children}</div>;
}

export function ErrorBox({ error, what }: { error: unknown; what: string }) {
  let title = `Could not load ${what}`;
  let text = error instanceof Error ? error.message : String(error);
  if (error instanceof ApiError) {
    if (error.status === 0) title = `Network error loading ${what}`;
    else if (error.notFound) title = `Not found: ${what}`;
    else if (error.status === 422) title = `Bad request for ${what}`;
    else if (error.status >= 500) title = `Server error loading ${what}`;
    text = error.message;
  }
  return (
    <div className="state state-error" role="alert">
      <strong>{title}</strong>
      <div>{text}</div>
    </div>
  );
}

interface Props<T> {
  query: UseQueryResult<T, ApiError>;
  what: string;
  /** When it returns a node, the data counts as empty and that node is shown instead. */
  empty?: (data: T) => ReactNode | null;
  children: (data: T) => ReactNode;
}

export function QueryState<T>({ query, what, empty, children }: Props<T>) {
  const { data, error } = query;
  // A failed refresh keeps showing the last good data under a banner, except when the thing
  // is gone (404): then the error replaces it.
  if (data === undefined || (error instanceof ApiError && error.notFound)) {
    if (error) return <ErrorBox error={error} what={what} />;
    return <Loading what={what} />;
  }
  const emptyNode = empty ? empty(data) : null;
  return (
    <>
      {error ? (
        <div className="state state-stale" role="status">
          Showing the last good data: refresh failed ({error.message})
        </div>
      ) : null}
      {emptyNode !== null && emptyNode !== undefined ? <Empty>{emptyNode}</Empty> : children(data)}
    </>
  );
}
