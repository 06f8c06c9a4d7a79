import { describe, expect, it } from "vitest";
import { sessionTokenStore, validateToken } from "./token";

describe("token", () => {
  it("stores, reads and clears the token in session storage", () => {
    const s = sessionTokenStore(sessionStorage);
    expect(s.get()).toBeNull();
    s.set("abc");
    expect(s.get()).toBe("abc");
    s.clear();
    expect(s.get()).toBeNull();
  });
  it("validates pasted tokens", () => {
    expect(validateToken("  abc.DEF_1  ")).toEqual({ token: "abc.DEF_1" });
    expect(validateToken("")).toHaveProperty("error");
    expect(validateToken("a b")).toHaveProperty("error");
    expect(validateToken("x".repeat(5000))).toHaveProperty("error");
  });
});
