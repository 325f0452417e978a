import type { Command } from "commander";
import { runMockLlmServer } from "../../testing/mock-llm-cli.js";
import { startMockLlmServer } from "../../testing/mock-llm-server.js";
import { aebMockReply } from "../../testing/aeb-mock-policy.js";
import { nonNegativeInteger, seedValue } from "../options.js";
import { listenFailure } from "../ports.js";

interface MockFlags {
  port: number;
  host: string;
  model: string[];
  reply?: string;
  script?: string;
  aeb: boolean;
  latencyMs?: number;
  latencyMedianMs?: number;
  latencySigma?: string;
  failureRate?: string;
  failureStatus?: number;
  reasoning?: string;
  seed?: number;
}

export function registerMockLlmCommand(program: Command): void {
  program
    .command("mock-llm")
    .description(
      "Serve a mock OpenAI-compatible endpoint (/v1/chat/completions, /v1/models) for tests and demos. With --aeb it plays AEB's roles: agent, simulated user and judges.",
    )
    .option("--port <n>", "port (0 picks a free one)", nonNegativeInteger, 8000)
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--model <name...>", "model name(s) served", ["mock-model"])
    .option("--aeb", "answer as AEB's agent, simulated user and judges (deterministic)", false)
    .option("--reply <text>", "fixed reply text")
    .option("--script <file>", "JSON script of replies")
    .option("--latency-ms <n>", "fixed latency before each response", nonNegativeInteger)
    .option("--latency-median-ms <n>", "log-normal latency median", nonNegativeInteger)
    .option("--latency-sigma <x>", "log-normal latency sigma")
    .option("--failure-rate <p>", "probability of answering with --failure-status")
    .option("--failure-status <n>", "status of injected failures", nonNegativeInteger)
    .option("--reasoning <text>", "reasoning text sent in reasoning_content")
    .option("--seed <n>", "seed for latency and failures", seedValue)
    .action(async (flags: MockFlags) => {
      let server: { url: string; close(): Promise<void> };
      // Nothing outside this process can read recorded requests; keeping them would only grow the heap.
      const recordRequests = false;
      try {
        if (flags.aeb) {
          const latency =
            flags.latencyMedianMs !== undefined
              ? { medianMs: flags.latencyMedianMs, sigma: Number(flags.latencySigma ?? "0.5"), seed: flags.seed ?? 1 }
              : (flags.latencyMs ?? 0);
          server = await startMockLlmServer({
            host: flags.host,
            port: flags.port,
            models: flags.model,
            reply: aebMockReply,
            latency,
            recordRequests,
            // The AEB policy's answer is a function of the request alone: worked out on arrival, only it waits out the latency.
            answerOnArrival: true,
          });
          console.log(`mock LLM server (AEB roles) listening at ${server.url} (models: ${flags.model.join(", ")})`);
        } else {
          server = await runMockLlmServer({
            port: flags.port,
            host: flags.host,
            model: flags.model,
            recordRequests,
            ...(flags.reply !== undefined ? { reply: flags.reply } : {}),
            ...(flags.script !== undefined ? { script: flags.script } : {}),
            ...(flags.latencyMs !== undefined ? { latencyMs: flags.latencyMs } : {}),
            ...(flags.latencyMedianMs !== undefined
              ? { latencyMedianMs: flags.latencyMedianMs, latencySigma: Number(flags.latencySigma ?? "0.5") }
              : {}),
            ...(flags.failureRate !== undefined ? { failureRate: Number(flags.failureRate) } : {}),
            ...(flags.failureStatus !== undefined ? { failureStatus: flags.failureStatus } : {}),
            ...(flags.reasoning !== undefined ? { reasoning: flags.reasoning } : {}),
            ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
          });
        }
      } catch (error) {
        throw listenFailure(error, {
          host: flags.host,
          port: flags.port,
          holder: "another aeb mock-llm, or the model server it stands in for?",
        });
      }
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          void server.close().then(resolve);
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
    });
}
