/** The first page: a run's report (facts, headline, per-type table, notes) and its six charts. */
import { api, type ReportTable, type RunList } from "../api.js";
import { routeHref } from "../route.js";
import { useFetch } from "../use-fetch.js";

export function Table({
  table,
  numericFrom = 1,
  caption,
  name,
}: {
  table: ReportTable;
  numericFrom?: number;
  caption?: string;
  name?: string;
}) {
  return (
    <div class="table-wrap">
      <table data-table={name}>
        {caption === undefined ? null : <caption>{caption}</caption>}
        <thead>
          <tr>
            {table.header.map((cell, column) => (
              <th key={column} class={column >= numericFrom ? "num" : undefined}>
                {cell}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, index) => (
            <tr key={index}>
              {row.map((cell, column) => (
                <td key={column} class={column >= numericFrom ? "num" : undefined}>
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ReportView({ runs, run }: { runs: RunList; run: number }) {
  const report = useFetch(`report:${run}`, () => api.report(run));
  return (
    <section class="report">
      {runs.runs.length > 1 ? (
        <nav class="tabs" aria-label="runs">
          {runs.runs.map((entry) => (
            <a key={entry.run} href={routeHref({ view: "report", run: entry.run })} class={entry.run === run ? "active" : undefined}>
              {entry.label}
            </a>
          ))}
        </nav>
      ) : null}
      {report.state === "loading" ? <p class="status">Loading the report…</p> : null}
      {report.state === "error" ? <p class="error">{report.message}</p> : null}
      {report.state === "ready" ? (
        <>
          <h1>{report.value.title}</h1>
          <dl class="facts">
            {report.value.facts.map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
          <h2 id="headline">Headline (per condition)</h2>
          <Table table={report.value.headline} name="headline" />
          {report.value.headlineNotes.map((note) => (
            <p key={note} class="note">
              {note}
            </p>
          ))}
          {report.value.summarySource === "recomputed" ? (
            <p class="note">summary.json is missing: these numbers were recomputed from the dialogues.</p>
          ) : null}
          <p>
            <a href={routeHref({ view: "dialogues", params: new URLSearchParams({ run: String(run) }) })}>Read this run's dialogues →</a>
          </p>
          <h2>Final score by trajectory type</h2>
          <Table table={report.value.byType} name="by-type" />
          <h2>Charts</h2>
          <div class="charts">
            {report.value.charts.map((chart) => (
              <figure key={chart.id} class="chart" id={chart.id}>
                <h3>{chart.title}</h3>
                <img src={chart.url} alt={chart.title} />
                <figcaption>{chart.caption}</figcaption>
              </figure>
            ))}
          </div>
          <h2>Notes</h2>
          {report.value.notes.length === 0 ? (
            <p class="note">None.</p>
          ) : (
            <ul class="notes">
              {report.value.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          )}
        </>
      ) : null}
    </section>
  );
}
