/**
 * Builds dist/ before the tests when a source is newer than the build, so the few tests that run
 * the `aeb` executable as a process of its own never test stale code, and the viewer's front end
 * when a file under viewer-ui/ is newer than it (`npm test` builds first anyway; this covers `npx
 * vitest` after an edit).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");

function newestMtime(dir: string, keep: (name: string) => boolean): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, keep));
    else if (keep(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  const sources = newestMtime(join(root, "src"), (name) => name.endsWith(".ts") && !name.endsWith(".test.ts"));
  let built = 0;
  try {
    built = statSync(join(root, "dist", "cli", "main.js")).mtimeMs;
  } catch {
    // Not built yet.
  }
  if (built === 0 || sources > built)
    execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], {
      cwd: root,
      stdio: "inherit",
    });

  // The viewer's front end (aeb view serves dist/viewer-ui/, which its tests open).
  const ui = newestMtime(join(root, "viewer-ui"), () => true);
  let uiBuilt = 0;
  try {
    uiBuilt = statSync(join(root, "dist", "viewer-ui", "index.html")).mtimeMs;
  } catch {
    // Not built yet.
  }
  if (uiBuilt === 0 || ui > uiBuilt)
    execFileSync(
      process.execPath,
      [join(root, "node_modules", "vite", "bin", "vite.js"), "build", "--config", "viewer-ui/vite.config.ts"],
      { cwd: root, stdio: "inherit" },
    );
}
