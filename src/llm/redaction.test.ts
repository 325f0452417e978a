import { describe, expect, it } from "vitest";
import { displayEndpoint, redactSecrets, REDACTED } from "./redaction.js";

describe("displayEndpoint", () => {
  it("drops credentials, query, fragment and trailing slashes", () => {
    expect(displayEndpoint("https://bob:pw@proxy.example.com/v1/?api-key=sk-x#frag")).toBe("https://proxy.example.com/v1");
  });

  it("keeps host, port and path", () => {
    expect(displayEndpoint("http://127.0.0.1:8000/v1")).toBe("http://127.0.0.1:8000/v1");
  });

  it("does not echo unparseable input, which may itself be a secret", () => {
    expect(displayEndpoint("sk-not-a-url")).toBe("<invalid base URL>");
  });
});

describe("redactSecrets", () => {
  it("replaces every occurrence of each secret", () => {
    expect(redactSecrets("key sk-secret-123 again sk-secret-123", ["sk-secret-123"])).toBe(`key ${REDACTED} again ${REDACTED}`);
  });

  it("ignores secrets too short to be meaningful", () => {
    expect(redactSecrets("a cat", ["a"])).toBe("a cat");
  });
});
