import { describe, expect, it } from "vitest";
import { stableStringify } from "./stable-json.js";

describe("stableStringify", () => {
  it("sorts keys recursively so construction order does not matter", () => {
    expect(stableStringify({ b: 1, a: { d: [1, { z: 0, y: 1 }], c: 2 } })).toBe('{"a":{"c":2,"d":[1,{"y":1,"z":0}]},"b":1}');
  });

  it("treats an undefined member like an absent one", () => {
    expect(stableStringify({ a: 1, seed: undefined })).toBe(stableStringify({ a: 1 }));
  });

  it("keeps array order and maps undefined items to null, like JSON.stringify", () => {
    expect(stableStringify([3, undefined, 1])).toBe("[3,null,1]");
  });
});
