import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createUndiciFetch } from "./undici-fetch.js";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A tiny HTTP server answering every request with `handler`. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const fetchFn = createUndiciFetch();

describe("createUndiciFetch", () => {
  it("sends method, headers and body, and returns status, headers and the whole JSON body", async () => {
    let seen: { method?: string; auth?: string; body?: string } = {};
    const url = await serve((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        seen = { method: req.method, auth: req.headers.authorization, body };
        res.setHeader("set-cookie", ["a=1", "b=2"]);
        res.writeHead(201, { "content-type": "application/json", "x-request-id": "r-1" });
        res.end('{"ok":true,"text":"é\\u2028"}');
      });
    });

    const response = await fetchFn(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: new Headers({ authorization: "Bearer k", "content-type": "application/json" }),
      body: '{"model":"m"}',
    });

    expect(seen).toEqual({ method: "POST", auth: "Bearer k", body: '{"model":"m"}' });
    expect(response.status).toBe(201);
    expect(response.headers.get("x-request-id")).toBe("r-1");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await response.json()).toEqual({ ok: true, text: "é\u2028" });
  });

  it("lets a buffered body be read once, as text, JSON or bytes", async () => {
    const url = await serve((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"a":"ü"}'));

    const asText = await fetchFn(url, { method: "GET" });
    expect(await asText.text()).toBe('{"a":"ü"}');
    await expect(asText.json()).rejects.toThrow(/already been read/);

    const asBytes = await fetchFn(url, { method: "GET" });
    expect(new TextDecoder().decode(await asBytes.arrayBuffer())).toBe('{"a":"ü"}');
  });

  it("keeps a server-sent-event body streaming, chunk by chunk", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: 1\n\n");
      setTimeout(() => res.end("data: 2\n\n"), 20);
    });

    const response = await fetchFn(url, { method: "POST", body: "{}" });
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) chunks.push(decoder.decode(chunk));

    expect(chunks.join("")).toBe("data: 1\n\ndata: 2\n\n");
    expect(chunks.length).toBeGreaterThanOrEqual(2);
  });

  it("answers a 204 with a null body instead of throwing", async () => {
    const url = await serve((_req, res) => res.writeHead(204).end());
    const response = await fetchFn(url, { method: "GET" });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it("rejects when the signal aborts a request the server never answers", async () => {
    const url = await serve(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const error = await fetchFn(url, { method: "GET", signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "AbortError" });
  });

  it("rejects a connection dropped in the middle of a JSON body", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"choices":[');
      setTimeout(() => res.destroy(), 10);
    });
    await expect(fetchFn(url, { method: "GET" })).rejects.toThrow();
  });

  it("names an unsupported request body instead of sending it wrong", async () => {
    await expect(fetchFn("http://127.0.0.1:9", { method: "POST", body: new Blob(["x"]) })).rejects.toThrow(
      /unsupported request body type \[object Blob\]/,
    );
  });
});
