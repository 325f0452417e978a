import type { FastifyPluginCallback } from "fastify";
import fp from "fastify-plugin";
import { HttpError } from "./http-error.js";
import { hostName } from "./loopback.js";

/**
 * DNS rebinding: a web page whose name is made to resolve to 127.0.0.1 would reach an app on
 * loopback from the browser. Its requests still carry the page's name in their Host header, so a
 * loopback app refuses (421 `misdirected_request`) any Host that is not one of its own.
 */
export interface HostCheckOptions {
  /** The Host names accepted; undefined: every Host (not listening yet, or listening beyond loopback). Read per request. */
  allowedHosts: () => ReadonlySet<string> | undefined;
  /** What a refused request is told: which Host names are accepted and how to add one. */
  refusal: string;
}

const hostCheckPlugin: FastifyPluginCallback<HostCheckOptions> = (app, options, done) => {
  // Callback style: no promise per request on the hot path.
  app.addHook("onRequest", (request, _reply, next) => {
    const allowed = options.allowedHosts();
    if (allowed !== undefined && !allowed.has(hostName(request.headers.host))) {
      return next(new HttpError(421, "misdirected_request", options.refusal));
    }
    next();
  });
  done();
};

/** Refuses requests addressed to another Host than this machine's (registered before every other onRequest hook). */
export const hostCheck = fp(hostCheckPlugin, { name: "aeb-host-check", fastify: "5.x" });
