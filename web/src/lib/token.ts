// The API token lives in sessionStorage (per tab, gone when the tab closes), never in the URL.

export const TOKEN_KEY = "smrstore.token";

export interface TokenStore {
  get(): string | null;
  set(token: string): void;
  clear(): void;
}

export function sessionTokenStore(storage: Storage): TokenStore {
  return {
    get: () => {
      const t = storage.getItem(TOKEN_KEY);
      return t !== null && t.length > 0 ? t : null;
    },
    set: (token: string) => storage.setItem(TOKEN_KEY, token),
    clear: () => storage.removeItem(TOKEN_KEY),
  };
}

/** Trims a pasted token and rejects what cannot be a bearer token; returns an error text or null. */
export function validateToken(input: string): { token: string } | { error: string } {
  const token = input.trim();
  if (token.length === 0) return { error: "Enter the token printed by `ceph smrstore token create`." };
  if (token.length > 4096) return { error: "That token is too long." };
  if (!/^[\x21-\x7e]+$/.test(token)) {
    return { error: "A token is printable ASCII without spaces." };
  }
  return { token };
}
