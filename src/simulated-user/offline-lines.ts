import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import type { Language } from "../lexicon/lexicon.js";

const LinesSchema = z.array(z.string().min(1)).min(1);
const OfflineLinesSchema = z.strictObject({
  reactions: z.record(z.string(), LinesSchema),
  leaving: LinesSchema,
  stateLines: z.strictObject({ S: LinesSchema, A: LinesSchema, B: LinesSchema, C: LinesSchema, F: LinesSchema }),
});
export type OfflineLines = z.infer<typeof OfflineLinesSchema>;

export function loadOfflineLines(language: Language): OfflineLines {
  return loadDataFile(dataPath("offline-user", `${language}.yaml`), OfflineLinesSchema);
}
