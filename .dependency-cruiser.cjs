/**
 * The layers of docs/architecture.md, checked on every `npm test` (`npm run check:layers`).
 * Layers point one way: a folder of src/ may import only from the folders below it.
 * Tests (*.test.ts) are left out: a test may exercise a module with anything.
 *
 *   cli
 *   server  interop  mock  viewer
 *   runner  probe
 *   report
 *   record
 *   analysis
 *   episode
 *   agents  simulated-user  reward  judges  metrics      (domain modules)
 *   scenarios  lexicon  prompts                          (domain data access)
 *   llm  stats
 *   core
 */
const layers = {
  core: [],
  stats: ["core"],
  llm: ["core"],
  lexicon: ["core"],
  prompts: ["core", "lexicon"],
  scenarios: ["core", "lexicon"],
  reward: ["core", "lexicon"],
  metrics: ["core", "lexicon", "stats"],
  agents: ["core", "lexicon", "prompts", "scenarios", "llm"],
  "simulated-user": ["core", "lexicon", "prompts", "scenarios", "llm"],
  judges: ["core", "lexicon", "prompts", "llm", "metrics"],
  episode: ["core", "lexicon", "prompts", "scenarios", "reward", "agents", "simulated-user"],
  analysis: ["core", "stats", "metrics"],
  record: ["core", "stats", "llm", "metrics", "analysis"],
  report: ["core", "stats", "metrics", "analysis", "record", "lexicon", "prompts"],
  runner: ["core", "stats", "llm", "lexicon", "prompts", "scenarios", "reward", "metrics", "agents", "simulated-user", "judges", "episode", "analysis", "record", "report"],
  probe: ["core", "stats", "llm", "lexicon", "prompts", "scenarios", "reward", "metrics", "agents", "simulated-user", "judges", "episode", "analysis", "record", "report"],
  interop: ["core", "stats", "lexicon", "scenarios", "metrics", "agents", "simulated-user", "judges", "episode", "analysis", "record", "report"],
  mock: ["core", "lexicon", "llm", "agents"],
  server: ["core", "stats", "llm", "lexicon", "prompts", "scenarios", "reward", "metrics", "agents", "simulated-user", "judges", "episode", "analysis", "record", "report", "runner"],
  viewer: ["core", "stats", "metrics", "analysis", "record", "report"],
  cli: ["*"],
};

const forbidden = [
  {
    name: "no-circular",
    severity: "error",
    comment: "An import circle means two modules are one; split them or move what they share down a layer.",
    from: { path: "^src/" },
    to: { circular: true },
  },
];

for (const [layer, allowed] of Object.entries(layers)) {
  if (allowed.includes("*")) continue;
  const ok = [layer, ...allowed].map((name) => name.replace("-", "\\-")).join("|");
  forbidden.push({
    name: `layer-${layer}`,
    severity: "error",
    comment: `src/${layer}/ may import only from ${allowed.length === 0 ? "itself" : allowed.join(", ")} (docs/architecture.md).`,
    from: { path: `^src/${layer}/`, pathNot: "\\.test\\.ts$" },
    to: { path: "^src/[^/]+/", pathNot: `^src/(${ok})/` },
  });
}

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.test\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
