import type { FastifyPluginCallback } from "fastify";
import fp from "fastify-plugin";

/**
 * The headers that keep a browser from doing more with an app's answers than showing them: a
 * Content-Security-Policy (a route may name a stricter one in its `config.contentSecurityPolicy`,
 * e.g. an SVG image), no MIME sniffing, no referrer, no use of the answers by other sites.
 */
export interface SecurityHeadersOptions {
  /** The policy of every answer whose route names none. */
  contentSecurityPolicy: string;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** This route's Content-Security-Policy, instead of the app's (security-headers.ts). */
    contentSecurityPolicy?: string;
  }
}

const securityHeadersPlugin: FastifyPluginCallback<SecurityHeadersOptions> = (app, options, done) => {
  app.addHook("onSend", (request, reply, payload, next) => {
    void reply.header("content-security-policy", request.routeOptions.config?.contentSecurityPolicy ?? options.contentSecurityPolicy);
    void reply.header("x-content-type-options", "nosniff");
    void reply.header("referrer-policy", "no-referrer");
    void reply.header("cross-origin-resource-policy", "same-origin");
    next(null, payload);
  });
  done();
};

/** Sets the security headers on every answer, errors and 404s included. */
export const securityHeaders = fp(securityHeadersPlugin, { name: "aeb-security-headers", fastify: "5.x" });
