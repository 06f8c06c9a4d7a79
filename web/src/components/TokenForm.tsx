import { useState, type FormEvent } from "react";
import { validateToken } from "../lib/token";

interface Props {
  message: string | null;
  onToken: (token: string) => void;
}

export function TokenForm({ message, onToken }: Props) {
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = validateToken(value);
    if ("error" in r) setError(r.error);
    else onToken(r.token);
  };
  return (
    <main className="token-page">
      <form className="token-form" onSubmit={submit} aria-label="API token">
        <h1>smrstore console</h1>
        {message ? (
          <p className="state state-error" role="alert">
            {message}
          </p>
        ) : null}
        <p>
          Paste an API token. Create one on a node with the admin keyring:{" "}
          <code>ceph smrstore token create</code>
        </p>
        <label htmlFor="token">Token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
        {error ? <p className="field-error">{error}</p> : null}
        <button type="submit">Open console</button>
      </form>
    </main>
  );
}
