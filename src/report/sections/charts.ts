import type { ReportSection } from "./section.js";

/** The six charts (charts/index.ts), right under the headline: a reader sees the results at a glance (issue 24). */
export function chartsSection(): ReportSection {
  return { id: "charts", title: "Charts", navLabel: "Charts", lines: [[{ kind: "charts" }]] };
}
