// Builds the benchmark scripts and runs one of them: `node bench/run.mjs <script> [args...]`.
//
// The scripts are TypeScript (type-checked with the rest of the project by `npm run typecheck`)
// and import the harness from ../src for their types. Here each bench/*.ts file is transpiled on
// its own to runs/.bench-build/, with its ../src/ imports pointed at ../dist/, so what
// is measured is the built package (`npm run build` first; the npm scripts do), and no TypeScript
// compiler or loader sits in the measured processes.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = resolve(benchDir, "..");
// Inside the checkout, not under node_modules: a node_modules linked from elsewhere (a worktree's)
// would resolve the relative imports to the other checkout's dist/, and be shared with its runs.
const outDir = join(root, "runs", ".bench-build");
const distFromOut = "../../dist/";

const [script, ...args] = process.argv.slice(2);
const sources = readdirSync(benchDir).filter((name) => name.endsWith(".ts"));
if (script === undefined || !sources.includes(`${script}.ts`)) {
  process.stderr.write(`usage: node bench/run.mjs <${sources.map((name) => name.replace(/\.ts$/, "")).join("|")}> [args...]\n`);
  process.exit(2);
}

mkdirSync(outDir, { recursive: true });
for (const name of sources) {
  const source = readFileSync(join(benchDir, name), "utf8");
  const { outputText } = ts.transpileModule(source, {
    fileName: name,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: false, sourceMap: false },
  });
  // Static and dynamic imports of the harness sources go to the build of the same file.
  const pointed = outputText.replace(/(["'])\.\.\/src\//g, `$1${distFromOut}`);
  writeFileSync(join(outDir, name.replace(/\.ts$/, ".js")), pointed);
}
writeFileSync(join(outDir, "package.json"), '{ "type": "module" }\n');

const child = spawn(process.execPath, [join(outDir, `${script}.js`), ...args], {
  stdio: "inherit",
  env: { ...process.env, AEB_ROOT: root },
});
child.on("exit", (code, signal) => process.exit(signal === null ? (code ?? 1) : 1));
