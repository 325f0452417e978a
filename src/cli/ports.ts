/**
 * Binding a port, for every command that listens (serve, view, mock-llm): a port that is taken or
 * an address that cannot be used is a mistake a person can fix, so it becomes one clear message
 * naming the port, the likely holder and the flag to change, never "unexpected error".
 */
import { createServer } from "node:net";
import { ConfigError } from "../core/errors.js";

/** Whether `port` on `host` can be bound now (the answer can change the moment after). */
export function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** The error to throw for a failed listen: a ConfigError naming the cause and the fix, or the error itself when it is something else. */
export function listenFailure(error: unknown, where: { host: string; port: number; holder: string }): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EADDRINUSE")
    return new ConfigError(
      `port ${where.port} on ${where.host} is already in use (${where.holder}); choose another --port, or --port 0 for a free one`,
    );
  if (code === "EADDRNOTAVAIL")
    return new ConfigError(`cannot listen on ${where.host}:${where.port}: this machine has no address ${where.host}; check --host`);
  if (code === "EACCES")
    return new ConfigError(
      `cannot listen on ${where.host}:${where.port}: permission denied (ports below 1024 need privileges); choose a --port of 1024 or more`,
    );
  return error;
}
