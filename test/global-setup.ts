/**
 * Builds dist/ before the tests when a source is newer than the build, so the few tests that run
 * the `aeb` executable as a process of its own never test stale code, and the viewer's front end
 * when a file under viewer-ui/ is newer than it (`npm test` builds first anyway; this covers `npx
 * vitest` after an edit).
 *
 * It also gives the run a temp dir of its own and fails the run when the tests leave anything in
 * it: see `isolateTemporaryDirectory`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
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

/**
 * Points TMPDIR (so `os.tmpdir()` in the test forks, which inherit this process's environment, and
 * in every process a test starts) at a fresh directory, and returns the teardown, which runs after
 * the last test file: whatever is still in that directory was left by a test or by the product
 * (a temp dir it did not remove), so it lists it, sets a failing exit code, and removes it. A
 * directory of the run's own keeps the check exact while other runs share the machine's temp dir.
 * Its name is short because it lengthens every temp path: Chromium puts a Unix socket under
 * TMPDIR, and a socket's path may not exceed 107 bytes.
 */
function isolateTemporaryDirectory(): () => void {
  const outer = tmpdir();
  const dir = mkdtempSync(join(outer, "aeb-vitest-"));
  const saved = { TMPDIR: process.env.TMPDIR, TMP: process.env.TMP, TEMP: process.env.TEMP };
  // TMPDIR on Linux and macOS, TMP and TEMP on Windows.
  for (const name of Object.keys(saved)) process.env[name] = dir;
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    const left = readdirSync(dir);
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    if (left.length === 0) return;
    console.error(
      `test/global-setup.ts: the tests left ${left.length === 1 ? "1 entry" : `${left.length} entries`} in the temp dir (removed now): ${left.join(", ")}. ` +
        "Make temporary directories with temporaryDirectory() from test/helpers/temporary-directory.ts (removed after each test file), " +
        "and have the product remove its own temp dirs.",
    );
    process.exitCode = 1;
  };
}

export default function setup(): () => void {
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

  return isolateTemporaryDirectory();
}
