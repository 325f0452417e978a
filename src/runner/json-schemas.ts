/**
 * JSON Schemas of AEB's files, generated from the zod schemas that validate them, so editors can
 * complete and check a run config or a scenario, and readers of a run directory (pandas, DuckDB,
 * jq) know every field. They are committed under schemas/ (`npm run schemas` writes them; a test
 * fails when they drift from the zod schemas).
 */
import { z } from "zod";
import { AgreementReportSchema } from "../analysis/agreement-schema.js";
import { RunSummarySchema } from "../analysis/summary-schema.js";
import { DialogueRecordSchema } from "../core/dialogue.js";
import { JudgementLineSchema } from "../record/judgements.js";
import { RunManifestSchema } from "../record/manifest.js";
import { UsageEventSchema } from "../record/usage-log.js";
import { ScenarioSchema } from "../scenarios/scenario-schema.js";
import { RunConfigSchema } from "./run-config.js";

interface SchemaFile {
  file: string;
  title: string;
  description: string;
  schema: z.ZodType;
  /** Input schemas describe what a person writes (defaults optional); output schemas what AEB writes. */
  io: "input" | "output";
}

export const SCHEMA_FILES: readonly SchemaFile[] = [
  {
    file: "run-config.schema.json",
    title: "AEB run config",
    description: "The one config file of `aeb run --config FILE` (docs/output-format.md, docs/models.md).",
    schema: RunConfigSchema,
    io: "input",
  },
  {
    file: "scenario.schema.json",
    title: "AEB scenario",
    description: "One scenario YAML file (docs/trajectory-types.md).",
    schema: ScenarioSchema,
    io: "input",
  },
  {
    file: "dialogue-record.schema.json",
    title: "AEB dialogue record",
    description: "One line of dialogues.jsonl (docs/output-format.md).",
    schema: DialogueRecordSchema,
    io: "output",
  },
  {
    file: "summary.schema.json",
    title: "AEB run summary",
    description: "summary.json of a run directory (docs/output-format.md).",
    schema: RunSummarySchema,
    io: "output",
  },
  {
    file: "run-manifest.schema.json",
    title: "AEB run manifest",
    description: "run.json of a run directory: its result definition, config and provenance (docs/output-format.md).",
    schema: RunManifestSchema,
    io: "output",
  },
  {
    file: "judgement-line.schema.json",
    title: "AEB judgement line",
    description: "One line of judgements.jsonl (docs/output-format.md).",
    schema: JudgementLineSchema,
    io: "output",
  },
  {
    file: "usage-event.schema.json",
    title: "AEB usage event",
    description: "One line of usage.jsonl (docs/output-format.md).",
    schema: UsageEventSchema,
    io: "output",
  },
  {
    file: "agreement.schema.json",
    title: "AEB simulated-user agreement",
    description: "agreement.json of `aeb agreement --out DIR` (docs/agreement.md).",
    schema: AgreementReportSchema,
    io: "output",
  },
];

/** Each schema file's text, as committed under schemas/. */
export function jsonSchemaTexts(): Map<string, string> {
  const texts = new Map<string, string>();
  for (const { file, title, description, schema, io } of SCHEMA_FILES) {
    const json = z.toJSONSchema(schema, { io, unrepresentable: "throw", target: "draft-2020-12" });
    texts.set(file, `${JSON.stringify({ title, description, ...json }, null, 2)}\n`);
  }
  return texts;
}
