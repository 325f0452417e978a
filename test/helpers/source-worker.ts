/**
 * The step pool's worker thread for tests. vitest's transform does not reach worker threads, so the
 * thread runs the built dist/server/step-worker.js when dist/ is up to date with src/ (`npm test`
 * builds first), and otherwise the TypeScript sources through the hooks of typescript-hooks.mjs
 * (several seconds slower to start, but never stale).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const root = resolve(import.meta.dirname, "..", "..");

/** Is every source file of src/ (tests aside) older than its compiled file in dist/? */
function distIsCurrent(): boolean {
  const walk = (dir: string): boolean =>
    readdirSync(dir, { withFileTypes: true }).every((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      if (!entry.name.endsWith(".ts") || entry.name.endsWith(".test.ts")) return true;
      const compiled = join(root, "dist", relative(join(root, "src"), path)).replace(/\.ts$/, ".js");
      return existsSync(compiled) && statSync(compiled).mtimeMs >= statSync(path).mtimeMs;
    });
  return walk(join(root, "src"));
}

const hooks = pathToFileURL(join(root, "test", "helpers", "typescript-hooks.mjs")).href;

export const SOURCE_STEP_WORKER = distIsCurrent()
  ? { url: pathToFileURL(join(root, "dist", "server", "step-worker.js")) }
  : {
      url: pathToFileURL(join(root, "src", "server", "step-worker.ts")),
      execArgv: ["--import", `data:text/javascript,import { register } from "node:module"; register(${JSON.stringify(hooks)});`],
    };
