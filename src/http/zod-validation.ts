import type { FastifyPluginCallback } from "fastify";
import fp from "fastify-plugin";
import type { z } from "zod";
import { HttpError, invalidRequest } from "./http-error.js";

/**
 * Route schemas are zod schemas: requests are validated with them (no coercion beyond what a
 * schema itself does, unknown fields refused where the schema is strict), and a failure is a 400
 * `invalid_request` naming every issue by path. Responses are serialised with `JSON.stringify`.
 */
export interface ZodValidationOptions {
  /**
   * A route's schema swapped for another at validation (the OpenAPI document keeps the declared
   * one), e.g. a batch envelope whose items are validated one by one.
   */
  overrides?: ReadonlyMap<unknown, z.ZodType>;
}

const WHERE: Record<string, string> = { body: "request body", params: "request path parameters", querystring: "request query" };

const zodValidationPlugin: FastifyPluginCallback<ZodValidationOptions> = (app, options, done) => {
  const overrides = options.overrides ?? new Map<unknown, z.ZodType>();
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const validator = overrides.get(schema) ?? (schema as z.ZodType);
    const where = WHERE[httpPart ?? ""] ?? `request ${httpPart}`;
    return (data: unknown) => {
      if (httpPart === "body" && (data === null || data === undefined)) {
        return { error: new HttpError(400, "invalid_request", "the request needs a JSON body (Content-Type: application/json)") };
      }
      // A body still raw bytes (a batch handed to a worker thread) is validated where it is parsed.
      if (httpPart === "body" && data instanceof Uint8Array) return { value: data };
      const result = validator.safeParse(data);
      if (result.success) return { value: result.data };
      return { error: invalidRequest(where, result.error.issues) };
    };
  });
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  done();
};

/** Zod validation and JSON serialisation for every route of the app. */
export const zodValidation = fp(zodValidationPlugin, { name: "aeb-zod-validation", fastify: "5.x" });
