/** The viewer: a header, and the view the URL's fragment names. */
import { api } from "./api.js";
import { routeHref, useRoute } from "./route.js";
import { useFetch } from "./use-fetch.js";
import { DialogueView } from "./views/dialogue-view.js";
import { DialoguesView } from "./views/dialogues-view.js";
import { ReportView } from "./views/report-view.js";
import { SideBySideView } from "./views/side-by-side-view.js";

export function App() {
  const route = useRoute();
  const runs = useFetch("runs", api.runs);
  return (
    <>
      <header class="top">
        <span class="brand">AEB viewer</span>
        <nav>
          <a
            href={routeHref({ view: "report", run: route.view === "report" ? route.run : 0 })}
            class={route.view === "report" ? "active" : undefined}
          >
            Report
          </a>
          <a
            href={routeHref({ view: "dialogues", params: new URLSearchParams() })}
            class={route.view === "dialogues" ? "active" : undefined}
          >
            Dialogues
          </a>
        </nav>
        {runs.state === "ready" ? (
          <span class="runs-summary">{runs.value.runs.map((run) => `${run.label} (${run.dialogues})`).join(" · ")}</span>
        ) : null}
      </header>
      <main>
        {runs.state === "loading" ? <p class="status">Loading…</p> : null}
        {runs.state === "error" ? <p class="error">{runs.message}</p> : null}
        {runs.state === "ready" ? (
          <>
            {runs.value.runs.flatMap((run) =>
              run.readingNotes.map((note) => <p key={`${run.run}:${note}`} class="note warning">{`${run.label}: ${note}`}</p>),
            )}
            {route.view === "report" ? <ReportView runs={runs.value} run={route.run} /> : null}
            {route.view === "dialogues" ? <DialoguesView runs={runs.value} params={route.params} /> : null}
            {route.view === "dialogue" ? <DialogueView runs={runs.value} run={route.run} id={route.id} /> : null}
            {route.view === "compare" ? <SideBySideView runs={runs.value} params={route.params} /> : null}
          </>
        ) : null}
      </main>
    </>
  );
}
