import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { z } from "zod";

/** A zod schema as JSON Schema for the OpenAPI document. */
function jsonSchemaOf(schema: unknown, io: "input" | "output"): unknown {
  if (!(schema instanceof z.ZodType)) return schema;
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

/** The OpenAPI 3.1 document (`/openapi.json`) and interactive docs (`/docs`), generated from the routes' zod schemas. */
export async function registerOpenApi(app: FastifyInstance, options: { authRequired: boolean }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "AEB RL environment",
        version: "1",
        description:
          "Verifiable emotion rewards from AEB's simulated users, for RL trainers. Stateless API: reset returns a signed state token; each step sends it back with the messages so far and the agent's reply. See docs/server.md.",
      },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      security: options.authRequired ? [{ bearer: [] }] : [],
    },
    transform: ({ schema, url }) => {
      if (schema === undefined || schema === null) return { schema, url };
      const { body, params, response, ...rest } = schema as Record<string, unknown>;
      const converted: Record<string, unknown> = { ...rest };
      if (body !== undefined) converted.body = jsonSchemaOf(body, "input");
      if (params !== undefined) converted.params = jsonSchemaOf(params, "input");
      if (response !== undefined) {
        converted.response = Object.fromEntries(
          Object.entries(response as Record<string, unknown>).map(([status, item]) => [status, jsonSchemaOf(item, "output")]),
        );
      }
      return { schema: converted, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
