export const WINDOWS: ReadonlyArray<{ seconds: number; label: string }> = [
  { seconds: 300, label: "5 min" },
  { seconds: 900, label: "15 min" },
  { seconds: 3600, label: "1 h" },
  { seconds: 6 * 3600, label: "6 h" },
  { seconds: 24 * 3600, label: "24 h" },
];

export function WindowPicker({ value, onChange }: { value: number; onChange: (s: number) => void }) {
  return (
    <label>
      window{" "}
      <select value={value} onChange={(e) => onChange(Number(e.target.value))} aria-label="window">
        {WINDOWS.map((w) => (
          <option key={w.seconds} value={w.seconds}>
            {w.label}
          </option>
        ))}
      </select>
    </label>
  );
}
