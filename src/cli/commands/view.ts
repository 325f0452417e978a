import { InvalidArgumentError, type Command } from "commander";
import { buildViewer } from "../../viewer/viewer-app.js";
import { nonNegativeInteger } from "../options.js";
import { isPortFree, listenFailure } from "../ports.js";

interface ViewFlags {
  host: string;
  port: number;
  allowRemote?: boolean;
}

const port = (value: string): number => {
  const parsed = nonNegativeInteger(value);
  if (parsed > 65_535) throw new InvalidArgumentError(`expected a port (0-65535), got "${value}"`);
  return parsed;
};

export function registerViewCommand(program: Command): void {
  program
    .command("view")
    .description(
      "Open run directories in a local, read-only web app: the report, every dialogue with filters and search, a dialogue's turns, one scenario across conditions side by side.",
    )
    .argument("<dirs...>", "run directories (made by aeb run --out DIR, aeb import, aeb serve --record)")
    .option("--host <host>", "address to listen on (loopback unless --allow-remote)", "127.0.0.1")
    .option("--port <n>", "port (0 picks a free one)", port, 8790)
    .option("--allow-remote", "allow a host beyond loopback: anyone who can reach it reads every transcript (there is no login)")
    .addHelpText("after", "\nExamples:\n  aeb view runs/quick\n  aeb view runs/baseline runs/rl-checkpoint --port 9000\n")
    .action(async (dirs: string[], flags: ViewFlags) => {
      const started = performance.now();
      const viewer = await buildViewer({ dirs });
      // Two viewers (or anything else) on the default port: take a free one and say so, rather than fail.
      let listenPort = flags.port;
      if (listenPort !== 0 && !(await isPortFree(flags.host, listenPort))) {
        console.error(
          `note: port ${listenPort} on ${flags.host} is in use (another aeb view?); listening on a free port instead (--port N picks one)`,
        );
        listenPort = 0;
      }
      let url: string;
      try {
        url = await viewer.listen({ host: flags.host, port: listenPort, allowRemote: flags.allowRemote === true });
      } catch (error) {
        await viewer.close();
        throw listenFailure(error, { host: flags.host, port: listenPort, holder: "another aeb view?" });
      }
      const dialogues = viewer.runs.reduce((sum, run) => sum + run.index.dialogues.length, 0);
      for (const run of viewer.runs) for (const note of run.index.readingNotes) console.error(`note: ${run.index.label}: ${note}`);
      console.log(
        `aeb view: ${dialogues} dialogue(s) in ${viewer.runs.length} run(s), indexed in ${((performance.now() - started) / 1000).toFixed(1)} s; open ${url} (Ctrl-C stops)`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          viewer.close().finally(resolve);
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
    });
}
