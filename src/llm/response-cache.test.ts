import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createResponseCache, responseCacheKey, type CachedCompletion, type ResponseCacheKeyParts } from "./response-cache.js";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "aeb-cache-"));
  dirs.push(dir);
  return dir;
}

const parts: ResponseCacheKeyParts = {
  baseUrl: "http://gpu-1:8000/v1",
  model: "qwen3-8b",
  messages: [{ role: "user", content: "hi" }],
  params: { temperature: 0.7, seed: 1 },
  sampleKey: "d1/t0/agent",
};
const reply: CachedCompletion = {
  text: "Hello.",
  usage: { promptTokens: 3, completionTokens: 2 },
  finishReason: "stop",
  endpoint: "http://gpu-2:8000/v1",
  model: "qwen3-8b",
};

describe("responseCacheKey", () => {
  it("is a sha256 hex digest, stable under key order", () => {
    const key = responseCacheKey(parts);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(responseCacheKey({ ...parts, params: { seed: 1, temperature: 0.7 } })).toBe(key);
  });

  it("changes with anything that changes the reply", () => {
    const key = responseCacheKey(parts);
    expect(responseCacheKey({ ...parts, sampleKey: "d2/t0/agent" })).not.toBe(key);
    expect(responseCacheKey({ ...parts, params: { temperature: 0.8, seed: 1 } })).not.toBe(key);
    expect(responseCacheKey({ ...parts, baseUrl: "http://other:8000/v1" })).not.toBe(key);
    expect(responseCacheKey({ ...parts, jsonSchema: { name: "x", schema: {} } })).not.toBe(key);
  });
});

describe("ResponseCache", () => {
  it("round-trips an entry in a sharded file, leaving no temp files", async () => {
    const dir = await tempDir();
    const cache = createResponseCache({ dir });
    const key = responseCacheKey(parts);

    expect(await cache.get(key)).toBeUndefined();
    expect(await cache.set(key, reply)).toBe(true);

    expect(await cache.get(key)).toEqual(reply);
    expect(cache.pathFor(key)).toBe(join(dir, key.slice(0, 2), `${key}.json`));
    expect(await readdir(join(dir, key.slice(0, 2)))).toEqual([`${key}.json`]);
  });

  it("refuses to store an empty reply", async () => {
    const cache = createResponseCache({ dir: await tempDir() });
    const key = responseCacheKey(parts);
    expect(await cache.set(key, { ...reply, text: "  " })).toBe(false);
    expect(await cache.get(key)).toBeUndefined();
  });

  it("treats a corrupt entry as a miss, reports once, and heals on the next write", async () => {
    const warnings: string[] = [];
    const cache = createResponseCache({ dir: await tempDir(), warn: (m) => warnings.push(m) });
    const keyA = responseCacheKey(parts);
    const keyB = responseCacheKey({ ...parts, sampleKey: "other" });
    await cache.set(keyA, reply);
    await cache.set(keyB, reply);
    await writeFile(cache.pathFor(keyA), "{ truncated");
    await writeFile(cache.pathFor(keyB), JSON.stringify({ format: 1, key: keyB, createdAt: "x", response: {} }));

    expect(await cache.get(keyA)).toBeUndefined();
    expect(await cache.get(keyB)).toBeUndefined();
    expect(cache.corruptEntries).toBe(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(cache.pathFor(keyA));

    await cache.set(keyA, reply);
    expect(await cache.get(keyA)).toEqual(reply);
  });

  it("rejects an entry filed under the wrong key", async () => {
    const cache = createResponseCache({ dir: await tempDir(), warn: () => undefined });
    const keyA = responseCacheKey(parts);
    const keyB = responseCacheKey({ ...parts, sampleKey: "other" });
    await cache.set(keyA, reply);
    await cache.set(keyB, reply);
    await writeFile(cache.pathFor(keyB), await readFile(cache.pathFor(keyA), "utf8"));
    expect(await cache.get(keyB)).toBeUndefined();
  });

  it("reports a failed write once and keeps going", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "blocker"), "");
    const warnings: string[] = [];
    // A regular file where the cache directory should be makes every write fail.
    const cache = createResponseCache({ dir: join(dir, "blocker"), warn: (m) => warnings.push(m) });
    expect(await cache.set(responseCacheKey(parts), reply)).toBe(false);
    expect(await cache.set(responseCacheKey({ ...parts, sampleKey: "x" }), reply)).toBe(false);
    expect(cache.writeFailures).toBe(2);
    expect(warnings).toHaveLength(1);
  });
});
