/**
 * Where a short step's CPU goes, in one process (`npm run bench:step-profile`): no sockets, no load
 * generator, so the figures move far less with the machine's load than `npm run bench:server`'s.
 *
 * It plays episodes of the starter suite with the reference agents against an in-process
 * `Environment` (offline user) and keeps every step request (the short rows of `bench:server`
 * replay the same kind of bodies), then measures the CPU per step, minimum over rounds:
 *
 * - `Environment.step` with the offline user, the body parsed from its JSON text as the server
 *   does;
 * - the same with a user that answers at once (what the server adds around the user, without HTTP);
 * - POST /v1/step through the whole fastify app of `aeb serve` (`buildServer`, bearer auth and the
 *   rate limiter on, as the CLI starts it) with `app.inject`: routing, hooks, validation, the step,
 *   metrics and serialisation, everything but the socket and its `writev`;
 * - `Environment.step` with the offline user on replies the process has never read (what a trainer
 *   sends: every reply new, so the recogniser's memo of sentences misses): the recorded bodies with
 *   their reply replaced by one of the validity corpus's human-written replies
 *   (data/validity-corpus/), each read once per build, a share of them in each round.
 *
 * Then a V8 CPU profile (node:inspector) of the inject loop, printed as the functions with the most
 * self time and as shares by source area (the offline user, the recogniser, the token, fastify...).
 *
 * Settings (environment): PROFILE_ROUNDS (default 5), PROFILE_SECONDS of profiling (default 3),
 * PROFILE_TOP functions listed (default 25), PROFILE_JSON (a file for the results as JSON),
 * PROFILE_DIST (the build to measure, default this checkout's dist/), PROFILE_BASE (another build's
 * dist/, measured in the same process with its rounds interleaved: the report adds this build's
 * CPU over the base's, round by round; a base needs data/, scenarios/ and node_modules/ beside it).
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dist = resolve(process.env.PROFILE_DIST ?? join(root, "dist"));
const baseDist = process.env.PROFILE_BASE === undefined ? undefined : resolve(process.env.PROFILE_BASE);
const rounds = Number(process.env.PROFILE_ROUNDS ?? 5);
const profileSeconds = Number(process.env.PROFILE_SECONDS ?? 3);
const top = Number(process.env.PROFILE_TOP ?? 25);
const secret = "bench-secret-bench-secret-bench-secret";
const bearer = "bench-token-bench-token";

type Message = { role: "user" | "assistant"; content: string };
interface Injected {
  statusCode: number;
  body: string;
}
interface AebLibrary {
  createReferenceAgent(id: string): {
    reply(input: {
      history: Message[];
      language: "en" | "zh";
      turnIndex: number;
      seed: number;
      dialogueId: string;
    }): Promise<{ text: string }>;
  };
  loadScenarioDirectory(path: string): Array<{ id: string; language: "en" | "zh" }>;
  filterScenarios<T>(scenarios: T[], filter: { suite?: string }): T[];
  BUILTIN_SCENARIO_DIR: string;
  OfflineSimulatedUser: new () => unknown;
  Environment: new (options: { scenarios: unknown[]; user: unknown; secret: string }) => {
    reset(request: { scenarioId: string; seed: number }): Promise<{ token: string; messages: Message[]; done: boolean }>;
    step(request: unknown): Promise<{ response: { token: string; message: string; done: boolean } }>;
  };
  buildServer(options: Record<string, unknown>): Promise<{
    app: { inject(request: { method: string; url: string; headers: Record<string, string>; payload: string }): Promise<Injected> };
    close(): Promise<void>;
  }>;
}

/** A CPU profile as node:inspector returns it (the fields used here). */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }>;
  samples?: number[];
}

const AGENTS = ["attuned", "labeler", "advice", "formulaic", "sycophant"];

/** Step bodies (JSON text) of episodes played by the reference agents: 20 seeds of each starter scenario. */
async function recordBodies(library: AebLibrary, scenarios: Array<{ id: string; language: "en" | "zh" }>): Promise<string[]> {
  const environment = new library.Environment({ scenarios, user: new library.OfflineSimulatedUser(), secret });
  const bodies: string[] = [];
  for (let seed = 0; seed < 20; seed += 1) {
    for (const scenario of scenarios) {
      const agent = library.createReferenceAgent(AGENTS[seed % AGENTS.length] as string);
      const reset = await environment.reset({ scenarioId: scenario.id, seed });
      let state = { token: reset.token, messages: reset.messages, done: reset.done };
      while (!state.done) {
        const { text } = await agent.reply({
          history: state.messages,
          language: scenario.language,
          turnIndex: (state.messages.length - 1) / 2,
          seed,
          dialogueId: `bench/${scenario.id}/${seed}`,
        });
        const body = { token: state.token, messages: state.messages, reply: text };
        bodies.push(JSON.stringify(body));
        const { response } = await environment.step(body);
        state = {
          token: response.token,
          messages: [...state.messages, { role: "assistant", content: text }, { role: "user", content: response.message }],
          done: response.done,
        };
      }
    }
  }
  return bodies;
}

/** The validity corpus's replies (human-written, data/validity-corpus/), from a build's agents folder. */
async function validityReplies(from: string): Promise<string[]> {
  const { loadValidityCorpus } = (await import(pathToFileURL(join(from, "agents", "validity-corpus-agent.js")).href)) as {
    loadValidityCorpus(): Array<{ replies: Record<string, string[]> }>;
  };
  return loadValidityCorpus().flatMap((file) => Object.values(file.replies).flat());
}

/** CPU microseconds per call of `play` over every body. */
async function microsPerStep(bodies: readonly string[], play: (body: string) => Promise<unknown>): Promise<number> {
  const started = process.cpuUsage();
  for (const body of bodies) await play(body);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / bodies.length;
}

/** Where a profiled function lives, by its file: the parts of a step the report adds up. */
function areaOf(url: string, name: string): string {
  const path = url.replace(/^file:\/\//, "");
  if (path === "") return name === "(garbage collector)" ? "garbage collector" : name.startsWith("(") ? name : "V8 / native";
  const inDist = /\/dist\/(.+)$/.exec(path);
  if (inDist !== null && !path.includes("node_modules")) {
    const file = inDist[1] as string;
    if (file.startsWith("lexicon/")) return "lexicon (recogniser, features, patterns)";
    if (file.startsWith("simulated-user/")) return "simulated-user (offline user)";
    if (file.startsWith("episode/") || file.startsWith("reward/") || file.startsWith("core/")) return "episode step";
    if (file === "server/state-token.js") return "state token (HMAC, history hash, payload check)";
    if (file === "server/prometheus-metrics.js") return "metrics (aeb side)";
    if (file.startsWith("server/")) return "server (other)";
    return `aeb ${file.split("/")[0]}`;
  }
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (dependency !== null) return dependency[1] as string;
  if (path.startsWith("node:")) return "node internals";
  return path;
}

/** Self time per function and per area from a profile's samples. */
function selfTimes(profile: CpuProfile): {
  functions: Array<{ name: string; where: string; share: number }>;
  areas: Array<{ area: string; share: number }>;
} {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const counts = new Map<number, number>();
  for (const sample of profile.samples ?? []) counts.set(sample, (counts.get(sample) ?? 0) + 1);
  const total = (profile.samples ?? []).length;
  const functions = new Map<string, { name: string; where: string; hits: number }>();
  const areas = new Map<string, number>();
  for (const [id, hits] of counts) {
    const { functionName, url, lineNumber } = (byNode.get(id) as CpuProfile["nodes"][number]).callFrame;
    if (functionName === "(idle)" || functionName === "(program)") continue;
    const where = url === "" ? "" : `${url.replace(/^.*\/(dist|node_modules)\//, "$1/")}:${lineNumber + 1}`;
    const key = `${functionName}@${where}`;
    const entry = functions.get(key) ?? { name: functionName || "(anonymous)", where, hits: 0 };
    entry.hits += hits;
    functions.set(key, entry);
    const area = areaOf(url, functionName);
    areas.set(area, (areas.get(area) ?? 0) + hits);
  }
  return {
    functions: [...functions.values()]
      .sort((a, b) => b.hits - a.hits)
      .map((entry) => ({ name: entry.name, where: entry.where, share: entry.hits / total })),
    areas: [...areas.entries()].sort((a, b) => b[1] - a[1]).map(([area, hits]) => ({ area, share: hits / total })),
  };
}

type PlayName = "offline" | "noUser" | "inject";
interface Build {
  dist: string;
  library: AebLibrary;
  plays: Record<PlayName, (body: string) => Promise<unknown>>;
  close(): Promise<void>;
}

/** Loads a build (Environment is on the `aeb/server` face, the rest on the main entry). */
async function libraryOf(from: string): Promise<AebLibrary> {
  return {
    ...(await import(pathToFileURL(join(from, "index.js")).href)),
    ...(await import(pathToFileURL(join(from, "server", "index.js")).href)),
  } as AebLibrary;
}

/** The three ways to play a step with one build. */
async function prepare(from: string, scenarioIds: readonly string[]): Promise<Build> {
  const library = await libraryOf(from);
  const scenarios = library
    .filterScenarios(library.loadScenarioDirectory(library.BUILTIN_SCENARIO_DIR), { suite: "starter" })
    .filter((scenario) => scenarioIds.includes(scenario.id));
  const answersAtOnce = {
    id: "offline",
    cpuBound: true,
    appraise: async (input: { memory: Record<string, unknown> }) => ({ simulatorDelta: 1, details: {}, memory: input.memory }),
    reply: async () => ({ text: "I see.", left: false }),
  };
  const offline = new library.Environment({ scenarios, user: new library.OfflineSimulatedUser(), secret });
  const noUser = new library.Environment({ scenarios, user: answersAtOnce, secret });
  const server = await library.buildServer({ scenarios, user: new library.OfflineSimulatedUser(), secret, authToken: bearer });
  const headers = { "content-type": "application/json", authorization: `Bearer ${bearer}` };
  const inject = async (body: string) => {
    const answer = await server.app.inject({ method: "POST", url: "/v1/step", headers, payload: body });
    if (answer.statusCode !== 200) throw new Error(`POST /v1/step answered ${answer.statusCode}: ${answer.body}`);
  };
  return {
    dist: from,
    library,
    plays: { offline: (body) => offline.step(JSON.parse(body)), noUser: (body) => noUser.step(JSON.parse(body)), inject },
    close: () => server.close(),
  };
}

const PLAY_LABELS: Record<PlayName, string> = {
  offline: "Environment.step, offline user",
  noUser: "Environment.step, a user that answers at once",
  inject: "POST /v1/step through the fastify app (app.inject, auth and rate limit on)",
};

const FRESH_LABEL = (perRound: number) =>
  `Environment.step, offline user, replies never read before (${perRound} validity-corpus replies a round, each read once)`;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const library = await libraryOf(dist);
  const scenarios = library.filterScenarios(library.loadScenarioDirectory(library.BUILTIN_SCENARIO_DIR), { suite: "starter" });
  const bodies = await recordBodies(library, scenarios);
  // Never-read replies on real step requests (token and history as recorded: they verify).
  const freshBodies = (await validityReplies(dist)).map((reply, index) =>
    JSON.stringify({ ...(JSON.parse(bodies[(index * 7) % bodies.length] as string) as object), reply }),
  );
  const freshPerRound = Math.floor(freshBodies.length / rounds);
  const ids = scenarios.map((scenario) => scenario.id);
  // PROFILE_BASE: another build in the same process, its rounds interleaved with this one's, so both
  // meet the same load and the ratio per round is a fair comparison on a busy machine.
  const builds = [await prepare(dist, ids), ...(baseDist !== undefined ? [await prepare(baseDist, ids)] : [])];
  const names: PlayName[] = ["offline", "noUser", "inject"];
  // Warm-up: the recogniser's memo, the JIT, the token memory.
  for (const build of builds) for (const name of names) await microsPerStep(bodies, build.plays[name]);
  const measured = builds.map(() => ({ offline: [] as number[], noUser: [] as number[], inject: [] as number[], fresh: [] as number[] }));
  for (let round = 0; round < rounds; round += 1) {
    for (const name of names)
      for (const [index, build] of builds.entries()) measured[index]![name].push(await microsPerStep(bodies, build.plays[name]));
    // Each build has its own memos, so this round's share of replies is new to each of them.
    const fresh = freshBodies.slice(round * freshPerRound, (round + 1) * freshPerRound);
    for (const [index, build] of builds.entries()) measured[index]!.fresh.push(await microsPerStep(fresh, build.plays.offline));
  }
  const inject = (builds[0] as Build).plays.inject;

  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  const end = performance.now() + profileSeconds * 1000;
  let profiledSteps = 0;
  // All the bodies in turn (early and late turns alike), until the time is up.
  while (performance.now() < end) {
    await inject(bodies[profiledSteps % bodies.length] as string);
    profiledSteps += 1;
  }
  const { profile } = (await session.post("Profiler.stop")) as { profile: CpuProfile };
  session.disconnect();
  for (const build of builds) await build.close();
  const { functions, areas } = selfTimes(profile);

  const best = (values: number[]) => Math.min(...values);
  const shown = (values: number[]) => `${best(values).toFixed(0)} µs (rounds: ${values.map((value) => value.toFixed(0)).join(", ")})`;
  console.log(`# Short step, in-process CPU (${bodies.length} step requests of the starter suite, ${rounds} rounds, minimum)\n`);
  console.log(`load average before: ${loadBefore.toFixed(2)}\n`);
  for (const [index, build] of builds.entries()) {
    console.log(`${index === 0 ? "This build" : "Base (PROFILE_BASE)"}: ${build.dist}\n`);
    for (const name of names) console.log(`- ${PLAY_LABELS[name]}: ${shown(measured[index]![name])}`);
    console.log(`- ${FRESH_LABEL(freshPerRound)}: ${shown(measured[index]!.fresh)}`);
    console.log("");
  }
  if (builds.length === 2) {
    console.log("This build over the base, round by round (median):\n");
    for (const name of [...names, "fresh" as const]) {
      const ratios = measured[0]![name].map((value, round) => value / (measured[1]![name][round] as number));
      const label = name === "fresh" ? FRESH_LABEL(freshPerRound) : PLAY_LABELS[name];
      console.log(`- ${label}: ${median(ratios).toFixed(3)} (${ratios.map((ratio) => ratio.toFixed(2)).join(", ")})`);
    }
  }
  console.log(`\n## Self time in the inject loop (${profiledSteps} steps, V8 sampling every 100 µs)\n`);
  console.log("| area | share |\n| --- | --- |");
  for (const { area, share } of areas.slice(0, 20)) console.log(`| ${area} | ${(share * 100).toFixed(1)}% |`);
  console.log("\n| function | where | self |\n| --- | --- | --- |");
  for (const { name, where, share } of functions.slice(0, top)) console.log(`| ${name} | ${where} | ${(share * 100).toFixed(1)}% |`);
  console.log(`\nload average after: ${(loadavg()[0] ?? 0).toFixed(2)}`);
  if (process.env.PROFILE_JSON)
    writeFileSync(
      process.env.PROFILE_JSON,
      `${JSON.stringify({ loadBefore, loadAfter: loadavg()[0], steps: bodies.length, freshStepsPerRound: freshPerRound, builds: builds.map((build, index) => ({ dist: build.dist, microsPerStep: measured[index] })), areas, functions: functions.slice(0, 100) }, null, 2)}\n`,
    );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
