// An agent written in code, benchmarked beside a reference agent against the offline user.
//   npm run build && node examples/library-agent.mjs [OUT_DIR]
// In your own project, import from "aeb" the same way (npm install the package first).
import { parseRunConfig, runBenchmark } from "aeb";

/** Reflects the user's last words back and asks one open question: an agent is any function of the visible conversation. */
async function reflectiveAgent({ history, language }) {
  const last =
    history
      .at(-1)
      .content.split(/(?<=[.!?。！？])\s*/u)
      .filter(Boolean)
      .at(-1) ?? "";
  return language === "zh" ? `你说“${last}”。能多跟我说说吗？` : `You said: "${last}" Tell me more about that?`;
}

const config = parseRunConfig(
  {
    scenarios: { suite: "starter" },
    conditions: [
      // `id` names the agent's version in run.json: change it when the code changes.
      { name: "reflective", agent: { kind: "library", id: "reflective-v1" } },
      { name: "attuned", agent: { kind: "reference", id: "attuned" } },
    ],
  },
  "examples/library-agent.mjs",
);
const outDir = process.argv[2] ?? "runs/library-agent";
const result = await runBenchmark({ config, outDir, agents: { reflective: reflectiveAgent } });
for (const condition of result.summary.conditions)
  console.log(`${condition.name}: FS ${condition.fs.mean?.toFixed(3)} over ${condition.n} dialogues`);
console.log(`-> ${outDir}`);
