import type { FastifyInstance } from "fastify";
import {
  ResetRequestSchema,
  SessionCreatedSchema,
  SessionParamsSchema,
  SessionStateSchema,
  SessionStepRequestSchema,
  SessionStepResponseSchema,
  type ResetRequest,
} from "../api-schemas.js";
import { EnvironmentError } from "../environment-error.js";
import { clientSignal, ERROR_RESPONSES, playAndRecord, timedStep, type RouteContext } from "../route-context.js";
import type { SessionStore } from "../session-store.js";

/** The session API (`/v1/sessions...`): server-side state for simple clients, on one replica (a fastify plugin; its options are the route context). */
export async function sessionRoutes(app: FastifyInstance, context: RouteContext): Promise<void> {
  const sessions = context.sessions;
  if (sessions === undefined) {
    const unavailable = async () => {
      throw new EnvironmentError(
        501,
        "sessions_unavailable",
        "the session API keeps state in one process and is off with --workers > 1; use the stateless API (/v1/reset, /v1/step)",
      );
    };
    app.all("/v1/sessions", { schema: { hide: true } }, unavailable);
    app.all("/v1/sessions/*", { schema: { hide: true } }, unavailable);
    return;
  }
  registerSessions(app, context, sessions);
}

function registerSessions(app: FastifyInstance, context: RouteContext, sessions: SessionStore): void {
  const { environment, metrics } = context;

  app.post<{ Body: ResetRequest }>(
    "/v1/sessions",
    {
      schema: {
        summary: "Start an episode held server-side (simple clients)",
        tags: ["sessions"],
        body: ResetRequestSchema,
        response: { 201: SessionCreatedSchema, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const reset = await environment.reset(request.body);
      const session = sessions.create(reset);
      metrics.countReset(reset.preset);
      const { token: _token, ...visible } = reset;
      return reply
        .code(201)
        .send({ sessionId: session.id, idleTimeoutSeconds: Math.round(context.sessionIdleTimeoutMs / 1000), ...visible });
    },
  );

  app.post<{ Params: { sessionId: string }; Body: { reply: string; turnIndex: number } }>(
    "/v1/sessions/:sessionId/step",
    {
      schema: {
        summary: "Play the session's turn `turnIndex` (a retry of the last step gets the same answer)",
        tags: ["sessions"],
        params: SessionParamsSchema,
        body: SessionStepRequestSchema,
        response: { 200: SessionStepResponseSchema, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const signal = clientSignal(reply);
      const outcome = await timedStep(context, "session", () =>
        sessions.step(request.params.sessionId, request.body.turnIndex, request.body.reply, (step) =>
          playAndRecord(context, () => environment.step(step, signal)),
        ),
      );
      const { token: _token, ...visible } = outcome.response;
      return { sessionId: outcome.session.id, ...visible };
    },
  );

  app.get<{ Params: { sessionId: string } }>(
    "/v1/sessions/:sessionId",
    {
      schema: {
        summary: "The session's conversation and state",
        tags: ["sessions"],
        params: SessionParamsSchema,
        response: { 200: SessionStateSchema, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const session = sessions.get(request.params.sessionId);
      return {
        sessionId: session.id,
        ...session.episode,
        messages: session.messages,
        emotion: session.emotion,
        turnIndex: session.turnIndex,
        done: session.done,
        endReason: session.endReason,
        totalReward: session.totalReward,
      };
    },
  );

  app.delete<{ Params: { sessionId: string } }>(
    "/v1/sessions/:sessionId",
    { schema: { summary: "End a session and free it", tags: ["sessions"], params: SessionParamsSchema, response: { ...ERROR_RESPONSES } } },
    async (request, reply) => {
      sessions.delete(request.params.sessionId);
      return reply.code(204).send();
    },
  );
}
