import { Option, type Command } from "commander";
import { join } from "node:path";
import { extractUpstreamPack, UPSTREAM_SOURCES, type UpstreamSource } from "../../prompts/extract-upstream.js";
import { BUILTIN_PACKS, loadPromptPack } from "../../prompts/prompt-pack.js";

export function registerPromptsCommand(program: Command): void {
  const prompts = program
    .command("prompts")
    .description(
      "The simulated user's prompt packs: list the built-in ones, or extract SAGE's or RLVER's original prompts from your checkout.",
    );
  prompts
    .command("list")
    .description("List the built-in prompt packs (simulator.promptPack).")
    .action(() => {
      for (const name of BUILTIN_PACKS) {
        const pack = loadPromptPack(name);
        console.log(
          `${name.padEnd(10)} ${pack.manifest.format.padEnd(6)} ${pack.manifest.languages.join(",").padEnd(6)} ${pack.manifest.description}`,
        );
      }
    });
  prompts
    .command("extract")
    .description(
      "Read SAGE's or RLVER's simulator prompts out of a checkout of their repository (their Python source, never run) and write them as a prompt pack, their placeholders mapped to AEB's, so that simulator.promptPack: { dir: DIR } runs the exact upstream prompts.",
    )
    .addOption(new Option("--from <source>", "whose prompts").choices([...UPSTREAM_SOURCES]).makeOptionMandatory())
    .argument("<path>", "the checkout's root (or the simulator's .py file itself)")
    .requiredOption("-o, --out <dir>", "the pack directory to write")
    .addHelpText(
      "after",
      "\nExample:\n  git clone https://github.com/Tencent/digitalhuman ~/src/digitalhuman\n  aeb prompts extract --from sage ~/src/digitalhuman --out packs/sage-original\n  # then in the run config: simulator: { kind: llm, promptPack: { dir: packs/sage-original }, ... }\n",
    )
    .action((path: string, flags: { from: UpstreamSource; out: string }) => {
      const result = extractUpstreamPack(flags.from, path, flags.out);
      const { manifest } = result.pack;
      console.log(`read ${result.sourceFile}`);
      for (const file of result.files) console.log(`wrote ${join(flags.out, file)}`);
      if (manifest.format === "tagged") {
        console.log(
          `analyst sections: ${manifest.analyst.fields.join(", ")}; actor sections: ${manifest.actor.fields.join(", ")}${manifest.sampling.temperature !== undefined ? `; temperature ${manifest.sampling.temperature}` : ""}`,
        );
      }
      for (const note of result.notes) console.error(`note: ${note}`);
      console.log(`\nthe pack loads; use it with  simulator: { kind: llm, promptPack: { dir: ${flags.out} } }`);
    });
}
