/**
 * The report's sections in the page's order (issue 24: the headline, then the charts, then the
 * other tables). Both renderers iterate this list; a new section is a module here and an entry
 * below. An errors section by another cut (kind, stage) belongs in errors.ts, which both
 * renderers already show wherever dialogues failed.
 */
import { byTypeSection } from "./by-type.js";
import { chartsSection } from "./charts.js";
import { comparisonsSection } from "./comparisons.js";
import { ecsByJudgeSection } from "./ecs-by-judge.js";
import { errorsSection } from "./errors.js";
import { headlineSection } from "./headline.js";
import { hidJudgesSection } from "./hid-judges.js";
import { lengthConfoundSection } from "./length-confound.js";
import { notesSection } from "./notes.js";
import { procedureSection } from "./procedure.js";
import type { SectionBuilder } from "./section.js";
import { usageSection } from "./usage.js";
import { worstSection } from "./worst.js";

export const REPORT_SECTIONS: readonly SectionBuilder[] = [
  headlineSection,
  chartsSection,
  byTypeSection,
  ecsByJudgeSection,
  hidJudgesSection,
  comparisonsSection,
  lengthConfoundSection,
  errorsSection,
  usageSection,
  procedureSection,
  notesSection,
  worstSection,
];

export { isShown, type ReportSection, type SectionPart, type Table } from "./section.js";
