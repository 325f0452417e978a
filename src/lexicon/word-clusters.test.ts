import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "../../test/helpers/temporary-directory.js";
import { sentenceFeatures } from "./sentence-features.js";
import { readWordClusters, shippedWordClusters } from "./word-clusters.js";

describe("word clusters", () => {
  const clusters = shippedWordClusters();

  it("put words alike in meaning together, and words unlike apart", () => {
    expect(clusters.size).toBe(80_000);
    expect(clusters.get("despicable")).toBe(clusters.get("disgraceful"));
    expect(clusters.get("terrified")).toBe(clusters.get("frightened"));
    expect(clusters.get("unfair")).not.toBe(clusters.get("wonderful"));
    expect(clusters.get("unfair")).not.toBe(clusters.get("terrified"));
  });

  it("are read as one feature per word, negated in a negation's scope as the word is", () => {
    const plain = sentenceFeatures("That was despicable.");
    const withClusters = sentenceFeatures("That was despicable.", clusters);
    expect(withClusters.filter((feature) => !plain.includes(feature))).toEqual([
      clusters.get("that"),
      clusters.get("was"),
      clusters.get("despicable"),
    ]);
    expect(sentenceFeatures("It was not despicable.", clusters)).toContain(`NOT_${clusters.get("despicable")}`);
    // A masked word of the user's is no evidence of anything, its cluster neither.
    expect(sentenceFeatures("uword", clusters).some((feature) => feature.startsWith("K_"))).toBe(false);
  });

  it("reject a malformed file, naming the file and the line", () => {
    const directory = temporaryDirectory();
    const path = join(directory, "clusters.tsv");
    writeFileSync(path, "unfair\t12\nDespicable\t12\n");
    expect(() => readWordClusters(path)).toThrow(/clusters\.tsv, line 2: expected "word<TAB>cluster"/);
    writeFileSync(path, "unfair 12\n");
    expect(() => readWordClusters(path)).toThrow(/line 1/);
    expect(() => readWordClusters(join(directory, "missing.tsv"))).toThrow(/cannot read the word clusters/);
  });
});
