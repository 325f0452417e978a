import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { BatchStepRequestSchema, BatchStepResponseSchema, StepRequestSchema } from "../api-schemas.js";
import type { ErrorBody } from "../environment-error.js";
import { invalidRequest, toEnvironmentError } from "../http-errors.js";
import { clientSignal, ERROR_RESPONSES, timedStep, type RouteContext } from "../route-context.js";
import type { StepPool } from "../step-pool.js";

/**
 * `POST /v1/step/batch`: steps of independent episodes, each validated and played on its own, so
 * one bad step fails alone. With a step pool (a CPU-bound simulated user) the raw body goes to a
 * thread, which parses, validates and plays it; the event loop only moves bytes. Without one (an
 * LLM user, whose steps wait on the model) the steps are played concurrently on the event loop.
 */
export async function registerBatchRoutes(app: FastifyInstance, context: RouteContext): Promise<void> {
  const schema = {
    summary: `Play up to ${context.maxBatchSize} steps of independent episodes; each result is ok or an error of its own`,
    tags: ["environment"],
    body: BatchStepRequestSchema,
    response: { 200: BatchStepResponseSchema, ...ERROR_RESPONSES },
  };
  const pool = context.pool;
  if (pool === undefined) {
    app.post<{ Body: { steps: unknown[] } }>("/v1/step/batch", { bodyLimit: context.batchBodyLimit, schema }, (request, reply) => playOnEventLoop(context, request, reply));
    return;
  }
  // In a scope of its own, so that only this route keeps JSON bodies as raw bytes.
  await app.register(async (scope) => {
    scope.removeContentTypeParser("application/json");
    scope.addContentTypeParser("application/json", { parseAs: "buffer", bodyLimit: context.batchBodyLimit }, (_request, body, done) => done(null, body));
    scope.post<{ Body: Buffer }>("/v1/step/batch", { bodyLimit: context.batchBodyLimit, schema }, (request, reply) => playInPool(context, pool, request, reply));
  });
}

async function playInPool(context: RouteContext, pool: StepPool, request: FastifyRequest<{ Body: Buffer }>, reply: FastifyReply): Promise<FastifyReply> {
  const { metrics } = context;
  const played = await pool.run(request.body, clientSignal(reply));
  for (const stat of played.stats) {
    metrics.observeStep("batch", stat.seconds, stat.outcome);
    for (const call of stat.stages) metrics.observeSimulatorCall(call.stage, call.ok ? "ok" : "error", call.seconds);
    if (stat.outcome !== "ok") {
      metrics.countError(stat.outcome, stat.status ?? 500);
      if (stat.internalCause !== undefined) request.log.error({ cause: stat.internalCause, code: stat.outcome }, "internal error in a batched step");
      continue;
    }
    metrics.observeResult({ reward: stat.reward ?? 0, rewardMode: stat.rewardMode ?? "final", flags: stat.flags ?? [], endReason: stat.endReason ?? null });
    if (stat.finished !== undefined && context.recordEpisode !== undefined) {
      metrics.countRecorded();
      context.recordEpisode(stat.finished);
    }
  }
  return reply.type("application/json; charset=utf-8").send(played.body);
}

async function playOnEventLoop(context: RouteContext, request: FastifyRequest<{ Body: { steps: unknown[] } }>, reply: FastifyReply): Promise<{ results: unknown[] }> {
  const signal = clientSignal(reply);
  const results = await Promise.all(
    request.body.steps.map(async (item, index) => {
      try {
        const parsed = StepRequestSchema.safeParse(item);
        if (!parsed.success) throw invalidRequest(`step ${index}`, parsed.error.issues);
        return { ok: true as const, result: (await timedStep(context, "batch", () => context.environment.step(parsed.data, signal))).response };
      } catch (error) {
        const failure = toEnvironmentError(error, context.batchBodyLimit);
        if (failure.status >= 500 && failure.cause !== undefined) request.log.error({ err: failure.cause, code: failure.code }, failure.message);
        context.metrics.countError(failure.code, failure.status);
        return { ok: false as const, status: failure.status, error: failure.toBody() satisfies ErrorBody };
      }
    }),
  );
  return { results };
}
