/** Calls to the viewer's API (src/viewer/viewer-app.ts); only types come from the server's code. */
import type { DialoguePage, DialogueResponse, ErrorBody, ReportPage, RunList, SideBySideResponse } from "../../src/viewer/api-schemas.js";

export type {
  DialoguePage,
  DialogueResponse,
  DialogueSummary,
  Facets,
  ReportPage,
  ReportTable,
  RunList,
  SideBySideResponse,
} from "../../src/viewer/api-schemas.js";
export type { DialogueRecord, TurnRecord } from "../../src/core/dialogue.js";

/** An answer the API refused, with the reason it gave. */
export class ApiError extends Error {}

/** The error body every refusal of the viewer carries (src/http/http-error.ts), when the answer has one. */
function errorBodyOf(body: unknown): ErrorBody | undefined {
  if (body === null || typeof body !== "object") return undefined;
  const { error, code } = body as Partial<Record<keyof ErrorBody, unknown>>;
  return typeof error === "string" && typeof code === "string" ? (body as ErrorBody) : undefined;
}

async function getJson<T>(path: string, params?: URLSearchParams): Promise<T> {
  const query = params === undefined || params.size === 0 ? "" : `?${params.toString()}`;
  const response = await fetch(`${path}${query}`, { headers: { accept: "application/json" } });
  const body = (await response.json().catch(() => null)) as unknown;
  if (!response.ok) {
    const refusal = errorBodyOf(body);
    throw new ApiError(`${response.status}: ${refusal?.error ?? response.statusText}`);
  }
  return body as T;
}

export const api = {
  runs: () => getJson<RunList>("/api/runs"),
  report: (run: number) => getJson<ReportPage>(`/api/runs/${run}/report`),
  dialogues: (params: URLSearchParams) => getJson<DialoguePage>("/api/dialogues", params),
  dialogue: (run: number, id: string) => getJson<DialogueResponse>("/api/dialogue", new URLSearchParams({ run: String(run), id })),
  sideBySide: (params: URLSearchParams) => getJson<SideBySideResponse>("/api/side-by-side", params),
};
