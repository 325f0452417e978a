/**
 * The HTTP foundation both apps stand on (src/http/): one loopback rule, one binding assertion,
 * one Host check, one error body, the security headers, and the server's settings as one schema.
 * Each is checked on the environment server and on the viewer, through their real apps.
 */
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import { ErrorBodySchema } from "../src/http/http-error.js";
import { allowedHostNames, assertSafeBinding, isLoopbackHost } from "../src/http/loopback.js";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../src/scenarios/load-scenarios.js";
import { buildServer, type EnvironmentServer } from "../src/server/app.js";
import { Environment } from "../src/server/environment.js";
import {
  flagDefault,
  flagMeta,
  SERVE_DEFAULTS,
  SERVER_DEFAULTS,
  serverDefaultsTable,
  ServeSettingsSchema,
  settingFromFlag,
  type ServeSettings,
} from "../src/server/server-options.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";
import type { ReportPage } from "../src/viewer/api-schemas.js";
import { buildViewer, type Viewer } from "../src/viewer/viewer-app.js";
import { runCli, temporaryDirectory } from "./helpers/cli.js";

const scenarios = filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "starter" });
const SECRET = "test-secret-test-secret-test-secret";

let server: EnvironmentServer;
let viewer: Viewer;

/**
 * `aeb serve --help`'s entry for each flag, by flag: its help text with the lines commander
 * wrapped it into (at spaces, to the terminal's width) joined again by single spaces, so a check
 * reads the text and not where a line happened to break.
 */
function helpEntries(help: string): Map<string, string> {
  const entries = new Map<string, string>();
  let flag: string | undefined;
  for (const line of help.split("\n")) {
    const start = /^ {2}(?:-\w, )?(--[\w-]+)(?: <[^>]+>)? {2,}(\S.*)$/.exec(line);
    if (start !== null) {
      flag = start[1]!;
      entries.set(flag, start[2]!);
    } else if (flag !== undefined && /^ {3,}\S/.test(line)) entries.set(flag, `${entries.get(flag)} ${line.trim()}`);
    else flag = undefined;
  }
  return entries;
}

beforeAll(async () => {
  server = await buildServer({ scenarios, user: new OfflineSimulatedUser(), secret: SECRET });
  const run = join(temporaryDirectory("aeb-http-foundation-"), "run");
  const played = await runCli(["run", "--suite", "starter", "--scenario", scenarios[0]!.id, "--out", run, "--no-progress"]);
  expect(played.code, played.stderr).toBe(0);
  viewer = await buildViewer({ dirs: [run] });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await viewer?.close();
});

/** A GET to a listening app with the given Host header, answered with its status and JSON body. */
function getWithHost(url: string, path: string, host: string): Promise<{ status: number; body: unknown }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const call = httpRequest({ host: "127.0.0.1", port, path, headers: { host } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text === "" ? null : (JSON.parse(text) as unknown) }));
    });
    call.on("error", reject);
    call.end();
  });
}

describe("one loopback rule for both apps", () => {
  it("counts loopback addresses and the name localhost as loopback", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "::ffff:127.0.0.1", "[::FFFF:127.0.0.9]"])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["0.0.0.0", "10.0.0.5", "::", "example.org", "::ffff:10.0.0.1", "128.0.0.1"])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it("is the stricter of the two former checks where they differed", () => {
    // The viewer's check lower-cased names: LOCALHOST was loopback to `aeb view`, not to `aeb serve`.
    // Only the exact name is one every resolver keeps on loopback; both apps now refuse the others.
    expect(isLoopbackHost("LOCALHOST")).toBe(false);
    expect(isLoopbackHost("Localhost")).toBe(false);
    // Both stripped a bracket at either end on its own, and took any 1-3 digit octets: neither is an address.
    expect(isLoopbackHost("[::1")).toBe(false);
    expect(isLoopbackHost("::1]")).toBe(false);
    expect(isLoopbackHost("127.0.0.256")).toBe(false);
    expect(isLoopbackHost("127.999.0.1")).toBe(false);
  });

  it("one binding assertion, naming the host, what it would expose and the flag that allows it", () => {
    const rule = { app: "aeb view", exposes: "every transcript", allowed: false, howToAllow: "Pass --allow-remote to do it anyway" };
    expect(() => assertSafeBinding("0.0.0.0", rule)).toThrow(ConfigError);
    expect(() => assertSafeBinding("0.0.0.0", rule)).toThrow(
      /^aeb view listens on loopback only \(127\.0\.0\.1, ::1, localhost\); 0\.0\.0\.0 would expose every transcript to the network\. Pass --allow-remote/,
    );
    expect(() => assertSafeBinding("0.0.0.0", { ...rule, allowed: true })).not.toThrow();
    expect(() => assertSafeBinding("127.0.0.1", rule)).not.toThrow();
    expect(() => assertSafeBinding("LOCALHOST", rule)).toThrow(/LOCALHOST would expose/);
  });

  it("the Host names a loopback listener answers, and none beyond loopback", () => {
    expect([...(allowedHostNames("127.0.0.2", ["Proxy.Local"]) ?? [])]).toEqual([
      "127.0.0.1",
      "localhost",
      "[::1]",
      "127.0.0.2",
      "proxy.local",
    ]);
    expect(allowedHostNames("0.0.0.0")).toBeUndefined();
  });
});

describe("one Host check and one error body for both apps", () => {
  it("refuses another Host with 421 misdirected_request on both apps, in the one error body", async () => {
    const serverListening = await buildServer({ scenarios, user: new OfflineSimulatedUser(), secret: SECRET });
    const viewerListening = await buildViewer({ dirs: viewer.runs.map((run) => run.index.dir) });
    try {
      for (const [url, path] of [
        [await serverListening.listen({ host: "127.0.0.1", port: 0 }), "/v1/scenarios"],
        [await viewerListening.listen({ host: "127.0.0.1", port: 0 }), "/api/runs"],
      ] as const) {
        const port = new URL(url).port;
        expect((await getWithHost(url, path, `127.0.0.1:${port}`)).status, url).toBe(200);
        expect((await getWithHost(url, path, `LOCALHOST:${port}`)).status, url).toBe(200);
        const refused = await getWithHost(url, path, "attacker.example");
        expect(refused.status, url).toBe(421);
        expect(ErrorBodySchema.parse(refused.body), url).toMatchObject({ code: "misdirected_request", retryable: false });
      }
    } finally {
      await serverListening.close();
      await viewerListening.close();
    }
  });

  it("answers an unknown route with 404 route_not_found on both apps", async () => {
    const fromServer = await server.app.inject({ method: "GET", url: "/v1/nothing?x=1" });
    const fromViewer = await viewer.app.inject({ method: "POST", url: "/api/runs" });
    expect(fromServer.statusCode).toBe(404);
    expect(fromViewer.statusCode).toBe(404);
    expect(ErrorBodySchema.parse(fromServer.json())).toEqual({
      error: "no route GET /v1/nothing (see /docs)",
      code: "route_not_found",
      retryable: false,
    });
    expect(ErrorBodySchema.parse(fromViewer.json())).toEqual({
      error: "nothing at POST /api/runs",
      code: "route_not_found",
      retryable: false,
    });
  });

  it("maps a validation failure to 400 invalid_request naming each issue, on both apps", async () => {
    const fromServer = await server.app.inject({ method: "POST", url: "/v1/reset", payload: { repeat: -1 } });
    const fromViewer = await viewer.app.inject({ method: "GET", url: "/api/dialogues?limit=5000&offset=x" });
    expect(fromServer.statusCode).toBe(400);
    expect(fromViewer.statusCode).toBe(400);
    const serverBody = ErrorBodySchema.parse(fromServer.json());
    const viewerBody = ErrorBodySchema.parse(fromViewer.json());
    expect(serverBody).toMatchObject({ code: "invalid_request", retryable: false });
    expect(serverBody.error).toMatch(/^invalid request body: repeat: /);
    expect(serverBody.issues?.map((issue) => issue.path)).toEqual(["repeat"]);
    expect(viewerBody).toMatchObject({ code: "invalid_request", retryable: false });
    expect(viewerBody.error).toMatch(/^invalid request query: /);
    expect(viewerBody.issues?.map((issue) => issue.path).sort()).toEqual(["limit", "offset"]);
  });

  it("sets the security headers on the viewer's pages and errors, a route's own policy where it names one", async () => {
    const page = await viewer.app.inject({ method: "GET", url: "/" });
    const refused = await viewer.app.inject({ method: "GET", url: "/api/runs/7/report" });
    for (const response of [page, refused]) {
      expect(response.headers["content-security-policy"]).toMatch(/^default-src 'none'; script-src 'self'/);
      expect(response.headers["x-content-type-options"]).toBe("nosniff");
      expect(response.headers["referrer-policy"]).toBe("no-referrer");
      expect(response.headers["cross-origin-resource-policy"]).toBe("same-origin");
    }
    expect(ErrorBodySchema.parse(refused.json()).code).toBe("not_found");
    const report = (await viewer.app.inject({ method: "GET", url: "/api/runs/0/report" })).json<ReportPage>();
    expect(report.charts.length).toBeGreaterThan(0);
    const chart = await viewer.app.inject({ method: "GET", url: report.charts[0]!.url });
    expect(chart.statusCode).toBe(200);
    expect(chart.headers["content-security-policy"]).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(chart.headers["x-content-type-options"]).toBe("nosniff");
  });
});

describe("the server's settings: one schema, every default once", () => {
  it("refuses an invalid setting with a ConfigError naming the field, its flag and the value", async () => {
    await expect(buildServer({ scenarios, user: new OfflineSimulatedUser(), secret: SECRET, maxBatchSize: 0 })).rejects.toThrow(
      ConfigError,
    );
    await expect(buildServer({ scenarios, user: new OfflineSimulatedUser(), secret: SECRET, maxBatchSize: 0 })).rejects.toThrow(
      /invalid server option maxBatchSize \(--max-batch\): .*>=1.*got 0/,
    );
    await expect(buildServer({ scenarios, user: new OfflineSimulatedUser(), secret: SECRET, stepTimeoutMs: 1.5 })).rejects.toThrow(
      /stepTimeoutMs \(--step-timeout\): .*got 1\.5/,
    );
  });

  it("gives the server, the environment and aeb serve the same defaults", async () => {
    expect(SERVE_DEFAULTS).toMatchObject(SERVER_DEFAULTS);
    expect(new Environment({ scenarios, user: new OfflineSimulatedUser(), secret: SECRET }).listScenarios().length).toBe(scenarios.length);
    const reset = await server.app.inject({ method: "POST", url: "/v1/reset", payload: { scenarioId: scenarios[0]!.id, seed: 1 } });
    expect(reset.json()).toMatchObject({ preset: SERVER_DEFAULTS.defaultPreset, rewardMode: SERVER_DEFAULTS.defaultRewardMode });
    // Flags in their own unit: seconds and MiB for settings kept in ms and bytes.
    expect(flagDefault("sessionIdleTimeoutMs")).toBe(SERVER_DEFAULTS.sessionIdleTimeoutMs / 1000);
    expect(settingFromFlag("sessionMemoryBytes", flagDefault("sessionMemoryBytes"))).toBe(SERVER_DEFAULTS.sessionMemoryBytes);
    const help = helpEntries((await runCli(["serve", "--help"])).stdout);
    expect(help.get("--max-batch")).toMatch(new RegExp(`\\(default: ${SERVER_DEFAULTS.maxBatchSize}\\)$`));
    expect(help.get("--session-ttl")).toMatch(new RegExp(`\\(default: ${flagDefault("sessionIdleTimeoutMs")}\\)$`));
  });

  it("aeb serve --help shows every setting's flag with the schema's description and the default in the flag's unit", async () => {
    const help = helpEntries((await runCli(["serve", "--help"])).stdout);
    for (const key of Object.keys(ServeSettingsSchema.shape) as (keyof ServeSettings)[]) {
      const meta = flagMeta(key);
      const value = flagDefault(key);
      const shown =
        meta.serveDefault !== undefined
          ? ` (default: ${meta.serveDefault})`
          : typeof value === "number"
            ? ` (default: ${value})`
            : typeof value === "string"
              ? ` (default: "${value}")`
              : "";
      expect(help.get(meta.flag), `aeb serve --help's entry for ${meta.flag} (setting ${key})`).toBe(`${meta.description}${shown}`);
    }
  });

  it("docs/server.md's table of defaults is the schema's", () => {
    const doc = readFileSync(join(import.meta.dirname, "..", "docs", "server.md"), "utf8");
    const table = /<!-- server-defaults:start[^>]*-->\n([\s\S]*?)\n<!-- server-defaults:end -->/.exec(doc)?.[1];
    expect(table, "docs/server.md has no table between <!-- server-defaults:start --> and <!-- server-defaults:end -->").toBeDefined();
    expect(table, "docs/server.md's defaults table is stale: run `npm run docs:tables`").toBe(serverDefaultsTable());
  });
});
