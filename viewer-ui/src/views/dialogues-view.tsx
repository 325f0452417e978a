/**
 * Every dialogue of the runs as a table, one page at a time from the server, with filters, a
 * search over the replies and sorting. The filters live in the URL, so a filtered table can be
 * linked and survives a reload.
 */
import { useEffect, useState } from "preact/hooks";
import { api, type DialogueSummary, type RunList } from "../api.js";
import { ChoiceList } from "../components/choice-list.js";
import { fixed } from "../format.js";
import { hidColumnLabel } from "../labels.js";
import { compareHref, dialogueHref, navigate } from "../route.js";
import { useFetch } from "../use-fetch.js";

const PAGE_SIZE = 50;
/** Filters of several values. */
type ListFilter = "run" | "condition" | "type" | "scenario" | "endReason" | "flag" | "status";

/** The sortable columns: label, sort key, and whether a column holds numbers; the HID column's label depends on the runs. */
const columnsOf = (hidLabel: string): Array<{ label: string; sort?: string; numeric?: boolean; title?: string }> => [
  { label: "dialogue", sort: "id" },
  { label: "condition" },
  { label: "type" },
  { label: "end" },
  { label: "FS", sort: "fs", numeric: true },
  { label: "final", sort: "finalEmotion", numeric: true, title: "final emotion" },
  { label: "lowest", sort: "lowestEmotion", numeric: true, title: "lowest emotion" },
  { label: "turns", sort: "turns", numeric: true },
  {
    label: hidLabel,
    numeric: true,
    title:
      hidLabel === "HID"
        ? "the simulated user's HID from the manipulation turn on"
        : "the simulated user's HID from the manipulation turn on; under the offline user the same move test that sets the reward, not an independent signal",
  },
  {
    label: "ECS (model judge)",
    numeric: true,
    title: "the run's headline ECS judge, the first that is a model; n/a when no model judge ran",
  },
  {
    label: "lexicon baseline",
    numeric: true,
    title: "the ECS lexicon baseline (offline-lexicon): reads the user's messages only, not a model judge, so never an ECS",
  },
  { label: "judge gap", sort: "judgeGap", numeric: true, title: "largest |ECS of judge A - ECS of judge B|" },
  { label: "prediction gap", sort: "predictionGap", numeric: true, title: "largest |predicted - true emotion| of any judged turn" },
  { label: "flags" },
  { label: "" },
];

function withParam(params: URLSearchParams, name: string, values: readonly string[] | string | undefined): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete(name);
  for (const value of typeof values === "string" ? [values] : (values ?? [])) if (value !== "") next.append(name, value);
  // A changed filter starts at the first page again.
  if (name !== "offset") next.delete("offset");
  return next;
}

function Row({ row, showRun, runLabel }: { row: DialogueSummary; showRun: boolean; runLabel: string }) {
  return (
    <tr class={row.status === "error" ? "errored" : undefined}>
      <td>
        <a href={dialogueHref(row.run, row.id)} class="dialogue-link">
          {row.id}
        </a>
        {showRun ? <div class="note">{runLabel}</div> : null}
      </td>
      <td>{row.condition}</td>
      <td>
        <span class={`type ${row.type === "cooperative" ? "cooperative" : ""}`}>{row.type}</span>
      </td>
      <td>{row.status === "error" ? "error" : row.endReason}</td>
      <td class="num">{row.status === "error" ? "n/a" : fixed(row.fs)}</td>
      <td class="num">{row.finalEmotion}</td>
      <td class="num">{row.lowestEmotion}</td>
      <td class="num">{row.turns}</td>
      <td class="num">{fixed(row.hid, 2)}</td>
      <td class="num">{fixed(row.ecs)}</td>
      <td class="num">{fixed(row.lexiconBaseline)}</td>
      <td class="num">{fixed(row.judgeGap)}</td>
      <td class="num">{fixed(row.predictionGap, 0)}</td>
      <td>
        {row.flags.map((flag) => (
          <span key={flag} class="flag">
            {flag}
          </span>
        ))}
      </td>
      <td>
        <a href={compareHref(row.scenarioId, row.repeat)} title="this scenario and repeat in every condition, side by side">
          side by side
        </a>
      </td>
    </tr>
  );
}

export function DialoguesView({ runs, params }: { runs: RunList; params: URLSearchParams }) {
  const go = (next: URLSearchParams) => navigate({ view: "dialogues", params: next }, true);
  const [search, setSearch] = useState(params.get("q") ?? "");
  useEffect(() => setSearch(params.get("q") ?? ""), [params.get("q")]);
  // The search is sent once typing pauses.
  useEffect(() => {
    if (search === (params.get("q") ?? "")) return;
    const timer = setTimeout(() => go(withParam(params, "q", search.trim() === "" ? undefined : search)), 300);
    return () => clearTimeout(timer);
  }, [search]);

  const query = new URLSearchParams(params);
  if (!query.has("limit")) query.set("limit", String(PAGE_SIZE));
  const page = useFetch(`dialogues:${query.toString()}`, () => api.dialogues(query));
  const facets = runs.facets;
  const list = (name: ListFilter) => params.getAll(name);
  const offset = Number(params.get("offset") ?? "0");
  const sort = params.get("sort") ?? "default";
  const order = params.get("order") ?? "asc";
  const setSort = (key: string) => {
    let next = withParam(params, "sort", key);
    next = withParam(next, "order", sort === key && order === "asc" ? "desc" : "asc");
    go(next);
  };
  const runLabel = (run: number) => runs.runs[run]?.label ?? String(run);

  return (
    <section class="dialogues">
      <h1>Dialogues</h1>
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <label class="search">
          Search replies
          <input
            type="search"
            name="q"
            placeholder="text in the opening, agent or user replies"
            value={search}
            onInput={(event) => setSearch((event.currentTarget as HTMLInputElement).value)}
          />
        </label>
        {runs.runs.length > 1 ? (
          <ChoiceList
            label="Run"
            name="run"
            options={runs.runs.map((run) => String(run.run))}
            display={(value) => runLabel(Number(value))}
            chosen={list("run")}
            onChange={(values) => go(withParam(params, "run", values))}
          />
        ) : null}
        <ChoiceList
          label="Condition"
          name="condition"
          options={facets.conditions}
          chosen={list("condition")}
          onChange={(values) => go(withParam(params, "condition", values))}
        />
        <ChoiceList
          label="Type"
          name="type"
          options={facets.types}
          chosen={list("type")}
          onChange={(values) => go(withParam(params, "type", values))}
        />
        <ChoiceList
          label="Scenario"
          name="scenario"
          options={facets.scenarios}
          chosen={list("scenario")}
          onChange={(values) => go(withParam(params, "scenario", values))}
        />
        <ChoiceList
          label="End reason"
          name="endReason"
          options={facets.endReasons}
          chosen={list("endReason")}
          onChange={(values) => go(withParam(params, "endReason", values))}
        />
        <ChoiceList
          label="Flags"
          name="flag"
          options={facets.flags}
          chosen={list("flag")}
          onChange={(values) => go(withParam(params, "flag", values))}
        />
        <ChoiceList
          label="Status"
          name="status"
          options={["done", "error"]}
          chosen={list("status")}
          onChange={(values) => go(withParam(params, "status", values))}
        />
        <fieldset class="range">
          <legend>Emotion</legend>
          <select
            name="emotionOf"
            value={params.get("emotionOf") ?? "final"}
            onChange={(event) => go(withParam(params, "emotionOf", (event.currentTarget as HTMLSelectElement).value))}
          >
            <option value="final">final</option>
            <option value="lowest">lowest</option>
          </select>
          <input
            type="number"
            name="emotionMin"
            min={0}
            max={100}
            placeholder="0"
            value={params.get("emotionMin") ?? ""}
            onChange={(event) => go(withParam(params, "emotionMin", (event.currentTarget as HTMLInputElement).value))}
          />
          <span>to</span>
          <input
            type="number"
            name="emotionMax"
            min={0}
            max={100}
            placeholder="100"
            value={params.get("emotionMax") ?? ""}
            onChange={(event) => go(withParam(params, "emotionMax", (event.currentTarget as HTMLInputElement).value))}
          />
        </fieldset>
        <fieldset class="range">
          <legend>Judge disagreement</legend>
          <select
            name="disagreement"
            value={params.get("disagreement") ?? ""}
            onChange={(event) => go(withParam(params, "disagreement", (event.currentTarget as HTMLSelectElement).value))}
          >
            <option value="">any</option>
            <option value="judges" disabled={facets.ecsJudges.length < 2}>
              |ECS judge A − judge B| ≥ (0-1)
            </option>
            <option value="prediction" disabled={facets.ecsJudges.length === 0}>
              |prediction − true emotion| ≥ (0-100)
            </option>
          </select>
          <input
            type="number"
            name="disagreementMin"
            min={0}
            max={100}
            step="any"
            placeholder="threshold"
            value={params.get("disagreementMin") ?? ""}
            onChange={(event) => go(withParam(params, "disagreementMin", (event.currentTarget as HTMLInputElement).value))}
          />
        </fieldset>
        <button type="button" onClick={() => go(new URLSearchParams())}>
          Clear all
        </button>
      </form>

      {page.state === "error" ? <p class="error">{page.message}</p> : null}
      {page.state === "loading" ? <p class="status">Loading…</p> : null}
      {page.state === "ready" ? (
        <>
          <p class="status" data-total={page.value.total}>
            {page.value.total === 0
              ? "No dialogue matches."
              : `${page.value.offset + 1}–${page.value.offset + page.value.rows.length} of ${page.value.total} dialogue(s)`}
          </p>
          <div class="table-wrap">
            <table class="dialogue-table">
              <thead>
                <tr>
                  {columnsOf(hidColumnLabel(runs)).map((column) => (
                    <th key={column.label} class={column.numeric === true ? "num" : undefined} title={column.title}>
                      {column.sort === undefined ? (
                        column.label
                      ) : (
                        <button type="button" class="link" onClick={() => setSort(column.sort as string)}>
                          {column.label}
                          {sort === column.sort ? (order === "asc" ? " ▲" : " ▼") : ""}
                        </button>
                      )}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {page.value.rows.map((row) => (
                  <Row key={`${row.run}:${row.id}`} row={row} showRun={runs.runs.length > 1} runLabel={runLabel(row.run)} />
                ))}
              </tbody>
            </table>
          </div>
          <nav class="pager">
            <button
              type="button"
              disabled={offset === 0}
              onClick={() => go(withParam(params, "offset", String(Math.max(0, offset - PAGE_SIZE))))}
            >
              ← previous
            </button>
            <button
              type="button"
              disabled={offset + PAGE_SIZE >= page.value.total}
              onClick={() => go(withParam(params, "offset", String(offset + PAGE_SIZE)))}
            >
              next →
            </button>
          </nav>
        </>
      ) : null}
    </section>
  );
}
