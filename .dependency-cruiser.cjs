/**
 * The layers of docs/architecture.md, checked on every `npm test` (`npm run check:layers`).
 * Tests (*.test.ts) are left out: a test may exercise a module with anything.
 *
 * Two lists say the same house twice, on purpose. `tiers` is the drawing: a folder may import
 * only folders of its own tier or below. `imports` is exact: each folder's list holds the folders
 * it does import, no more, so a new edge between folders is a decision someone writes down here.
 * test/layers.test.ts keeps them honest: every listed edge points down the tiers, and every listed
 * edge is used by src/ (a list left longer than the code stops saying anything).
 */
const tiers = [
  ["cli"],
  ["server", "interop", "viewer", "testing"],
  ["runner", "probe"],
  ["report"],
  ["record"],
  ["analysis"],
  ["episode"],
  ["agents", "simulated-user", "reward", "judges", "metrics"], // domain modules
  ["scenarios", "lexicon", "prompts"], // domain data access
  ["llm", "stats", "http"],
  ["core"],
];

const imports = {
  core: [],
  stats: ["core"],
  llm: ["core"],
  http: ["core"],
  lexicon: ["core"],
  prompts: ["core", "lexicon"],
  scenarios: ["core", "lexicon"],
  reward: ["core", "lexicon"],
  metrics: ["core", "stats"],
  agents: ["core", "llm", "lexicon", "prompts", "scenarios"],
  "simulated-user": ["core", "llm", "lexicon", "prompts", "scenarios"],
  judges: ["core", "llm", "lexicon", "prompts", "metrics"],
  episode: ["core", "lexicon", "scenarios", "reward", "agents", "simulated-user"],
  analysis: ["core", "stats", "metrics"],
  record: ["core", "llm", "metrics", "analysis"],
  report: ["core", "stats", "prompts", "metrics", "analysis", "record"],
  runner: [
    "core",
    "llm",
    "lexicon",
    "prompts",
    "scenarios",
    "metrics",
    "agents",
    "simulated-user",
    "judges",
    "episode",
    "analysis",
    "record",
    "report",
  ],
  probe: ["core", "stats", "lexicon", "scenarios", "agents", "simulated-user", "episode", "report"],
  server: ["core", "http", "lexicon", "scenarios", "reward", "agents", "simulated-user", "episode", "record"],
  interop: ["core", "lexicon", "scenarios", "metrics", "agents", "simulated-user", "judges", "episode", "analysis", "record", "report"],
  viewer: ["core", "http", "metrics", "analysis", "record", "report"],
  testing: ["core", "llm", "lexicon", "agents", "simulated-user"],
  cli: [
    "core",
    "llm",
    "prompts",
    "scenarios",
    "agents",
    "simulated-user",
    "episode",
    "analysis",
    "record",
    "report",
    "runner",
    "probe",
    "server",
    "interop",
    "viewer",
    "testing",
  ],
};

/**
 * src/testing/ holds test doubles for tests and benchmarks. These CLI commands, and no other module
 * of src/, may import it, each because it offers a double as a feature.
 */
const testingImporters = {
  "src/cli/commands/mock-llm.ts": "`aeb mock-llm` serves the mock OpenAI-compatible server",
  "src/cli/commands/serve.ts": "`aeb serve --mock-user-latency` serves DelayedSimulatedUser, for the server benchmark",
  "src/cli/commands/run.ts": "`aeb run --dry-run` plays the plan against the mock's reply policy, to count prompt tokens",
};

/** A path as a regular expression that matches only it (dots and dashes escaped). */
const literal = (text) => text.replace(/[.-]/g, "\\$&");

const forbidden = [
  {
    name: "no-circular",
    severity: "error",
    comment: "An import circle means two modules are one; split them or move what they share down a layer.",
    from: { path: "^src/" },
    to: { circular: true },
  },
  {
    name: "cli-command-imports-command",
    severity: "error",
    comment:
      "A CLI command (src/cli/commands/) never imports another: move what they share into a module of src/cli/ (run-config-flags.ts, skipped-line.ts, ...).",
    from: { path: "^src/cli/commands/", pathNot: "\\.test\\.ts$" },
    to: { path: "^src/cli/commands/" },
  },
  {
    name: "testing-outside-tests",
    severity: "error",
    comment: `src/testing/ (test doubles) is imported by tests and benchmarks; in src/ only by ${Object.keys(testingImporters).join(", ")} (.dependency-cruiser.cjs says why).`,
    from: {
      path: "^src/",
      pathNot: [`^src/testing/`, "\\.test\\.ts$", ...Object.keys(testingImporters).map((file) => `^${literal(file)}$`)],
    },
    to: { path: "^src/testing/" },
  },
];

for (const [folder, allowed] of Object.entries(imports)) {
  const ok = [folder, ...allowed].map(literal).join("|");
  forbidden.push({
    name: `layer-${folder}`,
    severity: "error",
    comment: `src/${folder}/ imports only from ${allowed.length === 0 ? "itself" : allowed.join(", ")}: a new edge is added to \`imports\` in .dependency-cruiser.cjs, down the tiers of docs/architecture.md.`,
    from: { path: `^src/${literal(folder)}/`, pathNot: "\\.test\\.ts$" },
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
/** The tiers and lists themselves, for test/layers.test.ts; not enumerable, because dependency-cruiser refuses a config with keys it does not know. */
Object.defineProperty(module.exports, "layers", { value: { tiers, imports, testingImporters }, enumerable: false });
