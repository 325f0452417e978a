/**
 * Node module hooks that run the TypeScript sources directly, for code the tests start in a worker
 * thread (vitest's own transform does not reach threads): a `.js` import that does not exist
 * resolves to the `.ts` beside it, and `.ts` files are transpiled with the project's TypeScript.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath, URL } from "node:url";
import ts from "typescript";

export async function resolve(specifier, context, nextResolve) {
  if (specifier.endsWith(".js") && context.parentURL?.endsWith(".ts") && (specifier.startsWith(".") || specifier.startsWith("file:"))) {
    const candidate = new URL(specifier, context.parentURL);
    if (!existsSync(fileURLToPath(candidate))) return { url: candidate.href.replace(/\.js$/, ".ts"), shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith(".ts")) return nextLoad(url, context);
  const source = readFileSync(fileURLToPath(url), "utf8");
  const { outputText } = ts.transpileModule(source, {
    fileName: fileURLToPath(url),
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: false, inlineSourceMap: true },
  });
  return { format: "module", source: outputText, shortCircuit: true };
}
