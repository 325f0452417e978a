import type { Server } from "node:http";
import { Server as NetServer } from "node:net";

/**
 * Graceful shutdown at the connection level. Node's `http.Server.close()` also closes idle
 * keep-alive connections at once, so a client that sends its next request on one meets a reset
 * connection instead of an answer. Here the listener is closed alone: open connections stay, their
 * requests are answered (503 `shutting_down` with `Connection: close`, by the app), in-flight
 * requests finish, and only then, or at the timeout, are the remaining connections closed.
 */
export class ConnectionDrain {
  private inFlight = 0;
  private idle: Array<() => void> = [];

  constructor(private readonly server: Server) {
    server.on("request", (_request, response) => {
      this.inFlight += 1;
      response.once("close", () => {
        this.inFlight -= 1;
        if (this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
      });
    });
  }

  /** Requests received and not yet answered (or abandoned by their client). */
  get requestsInFlight(): number {
    return this.inFlight;
  }

  /**
   * Stops accepting connections, waits until no request is in flight or `timeoutMs` passes, then
   * closes every connection. Returns how many requests the timeout cut.
   */
  async drain(timeoutMs: number): Promise<{ cut: number }> {
    if (this.server.listening) NetServer.prototype.close.call(this.server);
    if (this.inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.idle.push(resolve)),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    }
    const cut = this.inFlight;
    this.server.closeIdleConnections();
    if (cut > 0) this.server.closeAllConnections();
    return { cut };
  }
}
