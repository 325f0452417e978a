import { z } from "zod";
import { EndReasonSchema } from "../core/dialogue.js";

/**
 * Everything needed to continue an episode: the runner keeps it in memory, the stateless server
 * signs it into a token. Plain JSON by design.
 */
export const EpisodeStateSchema = z.strictObject({
  scenarioId: z.string(),
  preset: z.string(),
  seed: z.number().int(),
  /** Current emotion, integer in [0, 100]. */
  emotion: z.number().int().min(0).max(100),
  /** Number of completed turns; the next agent reply is turn `turnIndex`. */
  turnIndex: z.number().int().min(0),
  /** The visible conversation, oldest first, starting with the user's opening line. */
  history: z.array(z.strictObject({ role: z.enum(["user", "assistant"]), content: z.string() })),
  /** The simulated user's private memory between turns. */
  memory: z.record(z.string(), z.unknown()),
  done: z.boolean(),
  endReason: EndReasonSchema.nullable(),
});
export type EpisodeState = z.infer<typeof EpisodeStateSchema>;
