import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "../../test/helpers/temporary-directory.js";
import { loadReplyTokenizer } from "./reply-tokenizer.js";

const FIXTURE = join(import.meta.dirname, "..", "..", "test", "fixtures", "tokenizer");

describe("loadReplyTokenizer", () => {
  it("counts a reply's tokens with the vocabulary of a tokenizer.json (a directory or the file)", () => {
    const fromDirectory = loadReplyTokenizer(FIXTURE);
    // i | hear | you | , | feel ##ing | so | tired | .  -> 9 tokens (subwords count one each)
    expect(fromDirectory.count("I hear you, feeling so tired.")).toBe(9);
    // Unknown words are one [UNK] each: "That sounds unbearable" -> that | sounds | [UNK]
    expect(fromDirectory.count("That sounds unbearable")).toBe(3);
    expect(fromDirectory.count("")).toBe(0);
    expect(fromDirectory.name).toBe("tokenizer");
    expect(fromDirectory.sha256).toMatch(/^[0-9a-f]{64}$/);
    const fromFile = loadReplyTokenizer(join(FIXTURE, "tokenizer.json"));
    expect(fromFile.count("I hear you, feeling so tired.")).toBe(9);
    expect(fromFile.sha256).toBe(fromDirectory.sha256);
  });

  it("names the file when it is missing, not JSON, or not a tokenizer", () => {
    const dir = temporaryDirectory("aeb-tok-");
    expect(() => loadReplyTokenizer(join(dir, "nope.json"))).toThrow(/cannot read tokenizer file .*nope\.json/);
    writeFileSync(join(dir, "broken.json"), "{ not json");
    expect(() => loadReplyTokenizer(join(dir, "broken.json"))).toThrow(/broken\.json is not valid JSON/);
    writeFileSync(join(dir, "vocab.json"), '{"hello": 1}');
    expect(() => loadReplyTokenizer(join(dir, "vocab.json"))).toThrow(/vocab\.json has no "model" object/);
    expect(() => loadReplyTokenizer(dir)).toThrow(/cannot read tokenizer file .*tokenizer\.json/);
  });
});
