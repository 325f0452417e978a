import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { BatchStepRequestSchema, BatchStepResponseSchema, StepRequestSchema } from "../api-schemas.js";
import { invalidRequest, toHttpError, type ErrorBody, type HttpError } from "../../http/http-error.js";
import { clientSignal, ERROR_RESPONSES, playAndRecord, timedStep, type RouteContext } from "../route-context.js";
import { SERVER_DEFAULTS } from "../server-options.js";
import type { StepPool } from "../step-pool.js";
import type { StepStat } from "../step-pool-protocol.js";

/**
 * `POST /v1/step/batch`: steps of independent episodes, each validated and played on its own, so
 * one bad step fails alone. With a step pool (a CPU-bound simulated user) the raw body goes to a
 * thread, which parses, validates and plays it; the event loop only moves bytes. Without one (an
 * LLM user, whose steps wait on the model) the steps are played concurrently on the event loop.
 * A fastify plugin; its options are the route context.
 */
export async function batchRoutes(app: FastifyInstance, context: RouteContext): Promise<void> {
  const schema = {
    summary: `Play up to ${context.maxBatchSize} steps of independent episodes; each result is ok or an error of its own`,
    tags: ["environment"],
    body: BatchStepRequestSchema,
    response: { 200: BatchStepResponseSchema, ...ERROR_RESPONSES },
  };
  const pool = context.pool;
  if (pool === undefined) {
    app.post<{ Body: { steps: unknown[] } }>("/v1/step/batch", { bodyLimit: context.batchBodyLimit, schema }, (request, reply) =>
      playOnEventLoop(context, request, reply),
    );
    return;
  }
  // In a scope of its own, so that only this route keeps JSON bodies as raw bytes.
  await app.register(async (scope) => {
    scope.removeContentTypeParser("application/json");
    scope.addContentTypeParser("application/json", { parseAs: "buffer", bodyLimit: context.batchBodyLimit }, (_request, body, done) =>
      done(null, body),
    );
    scope.post<{ Body: Buffer }>("/v1/step/batch", { bodyLimit: context.batchBodyLimit, schema }, (request, reply) =>
      playInPool(context, pool, request, reply),
    );
  });
}

async function playInPool(
  context: RouteContext,
  pool: StepPool,
  request: FastifyRequest<{ Body: Buffer }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { metrics } = context;
  const played = await pool.run(request.body, clientSignal(reply));
  const recording = recordBatchEpisodes(context, played.stats);
  for (const stat of played.stats) {
    metrics.observeStep("batch", stat.seconds, stat.outcome);
    for (const timing of stat.stages) metrics.observeSimulatorCall(timing);
    if (stat.outcome !== "ok") {
      metrics.countError(stat.outcome, stat.status ?? 500);
      if (stat.internalCause !== undefined)
        request.log.error({ cause: stat.internalCause, code: stat.outcome }, "internal error in a batched step");
      continue;
    }
    metrics.observeResult({
      reward: stat.reward ?? 0,
      rewardMode: stat.rewardMode ?? SERVER_DEFAULTS.defaultRewardMode,
      flags: stat.flags ?? [],
      endReason: stat.endReason ?? null,
    });
  }
  const failed = await recording;
  if (failed.size === 0) return reply.type("application/json; charset=utf-8").send(played.body);
  // Rare (the recorder is failing): the steps whose episode could not be written answer the error instead.
  const body = JSON.parse(played.body) as { results: unknown[] };
  for (const [index, failure] of failed) {
    body.results[index] = { ok: false, status: failure.status, error: failure.toBody() satisfies ErrorBody };
    metrics.countError(failure.code, failure.status);
  }
  return reply.type("application/json; charset=utf-8").send(JSON.stringify(body));
}

/** Writes the episodes a pooled batch finished, all at once; resolves with the steps whose record could not be written. */
async function recordBatchEpisodes(context: RouteContext, stats: readonly StepStat[]): Promise<Map<number, HttpError>> {
  const failed = new Map<number, HttpError>();
  const record = context.recordEpisode;
  if (record === undefined) return failed;
  await Promise.all(
    stats.map(async (stat, index) => {
      if (stat.outcome !== "ok" || stat.finished === undefined) return;
      try {
        await record(stat.finished);
      } catch (error) {
        failed.set(index, toHttpError(error, context.batchBodyLimit));
      }
    }),
  );
  return failed;
}

async function playOnEventLoop(
  context: RouteContext,
  request: FastifyRequest<{ Body: { steps: unknown[] } }>,
  reply: FastifyReply,
): Promise<{ results: unknown[] }> {
  const signal = clientSignal(reply);
  const results = await Promise.all(
    request.body.steps.map(async (item, index) => {
      try {
        const parsed = StepRequestSchema.safeParse(item);
        if (!parsed.success) throw invalidRequest(`step ${index}`, parsed.error.issues);
        return {
          ok: true as const,
          result: (await timedStep(context, "batch", () => playAndRecord(context, () => context.environment.step(parsed.data, signal))))
            .response,
        };
      } catch (error) {
        const failure = toHttpError(error, context.batchBodyLimit);
        if (failure.status >= 500 && failure.cause !== undefined)
          request.log.error({ err: failure.cause, code: failure.code }, failure.message);
        context.metrics.countError(failure.code, failure.status);
        return { ok: false as const, status: failure.status, error: failure.toBody() satisfies ErrorBody };
      }
    }),
  );
  return { results };
}
