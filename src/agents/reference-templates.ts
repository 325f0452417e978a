import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import { patternFlags, type Language } from "../lexicon/lexicon.js";

const Lines = z.array(z.string().min(1)).min(3);
const Patterns = z.array(z.string().min(1)).min(1);

const ReferenceTemplatesSchema = z.strictObject({
  formulaic: Lines,
  sycophant: Lines,
  advice: Lines,
  labeler: Lines,
  attuned: z.strictObject({
    denial: Lines,
    fine: Lines,
    agreement: Lines,
    success_fear: Lines,
    flooding: Lines,
    unfairness: Lines,
    listening: Lines,
  }),
  attunedCues: z.strictObject({
    denial: Patterns,
    fine: Patterns,
    agreement: Patterns,
    goodNews: Patterns,
    fear: Patterns,
    mixed: Patterns,
    unfairness: Patterns,
  }),
});
export type ReferenceTemplates = z.infer<typeof ReferenceTemplatesSchema>;
export type AttunedCue = keyof ReferenceTemplates["attunedCues"];

const cache = new Map<Language, { templates: ReferenceTemplates; cues: Record<AttunedCue, RegExp[]> }>();

export function loadReferenceTemplates(language: Language): { templates: ReferenceTemplates; cues: Record<AttunedCue, RegExp[]> } {
  const cached = cache.get(language);
  if (cached) return cached;
  const templates = loadDataFile(dataPath("agents", `${language}.yaml`), ReferenceTemplatesSchema);
  const cues = Object.fromEntries(
    Object.entries(templates.attunedCues).map(([cue, patterns]) => [
      cue,
      patterns.map((source) => new RegExp(source, patternFlags(source))),
    ]),
  ) as Record<AttunedCue, RegExp[]>;
  const loaded = { templates, cues };
  cache.set(language, loaded);
  return loaded;
}
