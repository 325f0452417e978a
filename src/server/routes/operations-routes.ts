import type { FastifyInstance } from "fastify";
import { HealthSchema } from "../api-schemas.js";
import type { RouteContext } from "../route-context.js";

/** `/healthz` (no auth, no rate limit; 503 while draining) and `/metrics` (Prometheus). */
export function registerOperationsRoutes(app: FastifyInstance, context: RouteContext, options: { isClosing: () => boolean; metricsText: () => Promise<string> }): void {
  const { environment, metrics } = context;
  app.get("/healthz", { schema: { summary: "Liveness and readiness", tags: ["operations"], security: [], response: { 200: HealthSchema, 503: HealthSchema } } }, async (_request, reply) => {
    const closing = options.isClosing();
    return reply.code(closing ? 503 : 200).send({ status: closing ? "shutting_down" : "ok", simulator: environment.simulatorId, scenarios: environment.scenarioCount, uptimeSeconds: Math.round(process.uptime()) });
  });

  app.get("/metrics", { schema: { summary: "Prometheus metrics", tags: ["operations"], hide: false } }, async (_request, reply) => {
    return reply.header("content-type", metrics.registry.contentType).send(await options.metricsText());
  });
}
