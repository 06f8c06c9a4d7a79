import type { ReactNode } from "react";

/**
 * One labelled figure. `exact` (the unformatted number behind a rounded `value`) goes into
 * data-value and the tooltip, so an operator (and the e2e check) can read the exact figure.
 */
export function Stat({
  label,
  value,
  hint,
  exact,
  testId,
}: {
  label: string;
  value: ReactNode;
  hint?: ReactNode;
  exact?: number | null;
  testId?: string;
}) {
  const hasExact = exact !== undefined && exact !== null;
  return (
    <div
      className="stat"
      data-testid={testId}
      data-value={hasExact ? String(exact) : undefined}
      title={hasExact ? `${label}: ${exact.toLocaleString("en-US")}` : undefined}
    >
      <div className="stat-label">{label}</div>
      <div className="stat-value">{value}</div>
      {hint !== undefined ? <div className="stat-hint">{hint}</div> : null}
    </div>
  );
}

export function Badge({ tone, children }: { tone: "ok" | "warn" | "err" | "muted"; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}
