import type { FastifyInstance } from "fastify";
import {
  ResetRequestSchema,
  ResetResponseSchema,
  ScenarioListSchema,
  StepRequestSchema,
  StepResponseSchema,
  type ResetRequest,
  type StepRequest,
} from "../api-schemas.js";
import { clientSignal, ERROR_RESPONSES, playAndRecord, timedStep, type RouteContext } from "../route-context.js";

/** The stateless API: `/v1/scenarios`, `/v1/reset` and `/v1/step` (a fastify plugin; its options are the route context). */
export async function environmentRoutes(app: FastifyInstance, context: RouteContext): Promise<void> {
  const { environment, metrics } = context;

  app.get(
    "/v1/scenarios",
    {
      schema: {
        summary: "The scenarios this server plays (visible fields only)",
        tags: ["environment"],
        response: { 200: ScenarioListSchema, ...ERROR_RESPONSES },
      },
    },
    async () => ({
      scenarios: environment.listScenarios(),
    }),
  );

  app.post<{ Body: ResetRequest }>(
    "/v1/reset",
    {
      schema: {
        summary: "Start an episode: scenario by id, by type or sampled with a seed",
        tags: ["environment"],
        body: ResetRequestSchema,
        response: { 200: ResetResponseSchema, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const result = await environment.reset(request.body);
      metrics.countReset(result.preset);
      return result;
    },
  );

  app.post<{ Body: StepRequest }>(
    "/v1/step",
    {
      schema: {
        summary: "Play one turn: the user's reply, emotion, reward and the next token",
        tags: ["environment"],
        body: StepRequestSchema,
        response: { 200: StepResponseSchema, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) =>
      (await timedStep(context, "stateless", () => playAndRecord(context, () => environment.step(request.body, clientSignal(reply)))))
        .response,
  );
}
