import type { FastifyInstance } from "fastify";
import { HealthSchema } from "../api-schemas.js";
import type { RecorderHealth } from "../episode-recorder.js";
import { EnvironmentError } from "../environment-error.js";
import type { RouteContext } from "../route-context.js";

export interface OperationsRoutesOptions {
  context: RouteContext;
  isClosing: () => boolean;
  metricsText: () => Promise<string>;
  recorderHealth?: () => RecorderHealth;
}

/** `/healthz` (no auth, no rate limit; 503 while draining) and `/metrics` (Prometheus); a fastify plugin. */
export async function operationsRoutes(app: FastifyInstance, options: OperationsRoutesOptions): Promise<void> {
  const { environment, metrics } = options.context;
  app.get(
    "/healthz",
    {
      schema: { summary: "Liveness and readiness", tags: ["operations"], security: [], response: { 200: HealthSchema, 503: HealthSchema } },
    },
    async (_request, reply) => {
      const closing = options.isClosing();
      const recorder = options.recorderHealth?.();
      // A recorder that cannot write makes the replica unready: every episode it finishes would be refused.
      const status = closing ? "shutting_down" : recorder?.state === "failing" ? "recorder_failing" : "ok";
      return reply.code(status === "ok" ? 200 : 503).send({
        status,
        simulator: environment.simulatorId,
        scenarios: environment.scenarioCount,
        uptimeSeconds: Math.round(process.uptime()),
        ...(recorder !== undefined ? { recorder } : {}),
      });
    },
  );

  app.get("/metrics", { schema: { summary: "Prometheus metrics", tags: ["operations"], hide: false } }, async (_request, reply) => {
    let text: string;
    try {
      text = await options.metricsText();
    } catch (error) {
      // --workers: the primary sums the workers' registries; one that is busy or dying makes a scrape fail, not the server.
      throw new EnvironmentError(
        503,
        "metrics_unavailable",
        `the metrics could not be collected (${(error as Error).message}); scrape again`,
        { retryable: true, retryAfterSeconds: 1, cause: error },
      );
    }
    return reply.header("content-type", metrics.registry.contentType).send(text);
  });
}
