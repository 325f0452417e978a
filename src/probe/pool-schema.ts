import { z } from "zod";
import { ADVERSARIAL_TYPES } from "../core/trajectory-type.js";
import { LanguageSchema } from "../lexicon/lexicon.js";

/**
 * The tags a fragment pool may carry; constraints (`--require`, `--exclude`) name them. A fixed
 * vocabulary, so a typo in a pool file or a flag is an error instead of a constraint that never binds.
 */
export const POOL_TAGS = ["lexicon", "generic", "harmful", "punished", "paraphrase", "user", "random"] as const;
export const PoolTagSchema = z.enum(POOL_TAGS, {
  error: (issue) => `unknown pool tag ${JSON.stringify(issue.input)} (known: ${POOL_TAGS.join(", ")})`,
});
export type PoolTag = z.infer<typeof PoolTagSchema>;

/** Where a pool's fragments come from: its file, the lexicon, or the user's last message. */
export const POOL_SOURCES = ["fragments", "lexicon", "user-quote", "user-words"] as const;

const FragmentList = z.array(z.string().trim().min(1, "a fragment is empty")).min(1, "empty pool: give at least one fragment");
const FragmentsByLanguage = z.partialRecord(LanguageSchema, FragmentList).refine((fragments) => Object.keys(fragments).length > 0, {
  message: "empty pool: give the fragments of at least one language (en, zh)",
});

/** A fragment-pool file (data/probe/pools/*.yaml, or a user's own through `aeb probe --pool FILE`). */
export const PoolFileSchema = z
  .strictObject({
    /** How reports and checkpoints name the pool: unique among the pools of a probe. */
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, "pool names use lower-case letters, digits, '.', '_' and '-'"),
    description: z.string().min(1),
    tags: z.array(PoolTagSchema).min(1, "give the pool at least one tag"),
    source: z.enum(POOL_SOURCES).default("fragments"),
    /** Fragments by language (source `fragments`). */
    fragments: FragmentsByLanguage.optional(),
    /** Fragments by trajectory type, then language (source `fragments`): the pool serves only those types. */
    byType: z
      .partialRecord(z.enum(ADVERSARIAL_TYPES), FragmentsByLanguage)
      .refine((types) => Object.keys(types).length > 0, { message: "empty pool: give the fragments of at least one trajectory type" })
      .optional(),
  })
  .superRefine((pool, context) => {
    if (pool.source === "fragments") {
      if (pool.fragments === undefined && pool.byType === undefined)
        context.addIssue({
          code: "custom",
          path: ["fragments"],
          message: "empty pool: a pool of source `fragments` needs `fragments` or `byType`",
        });
      if (pool.fragments !== undefined && pool.byType !== undefined)
        context.addIssue({ code: "custom", path: ["byType"], message: "give `fragments` or `byType`, not both" });
    } else {
      for (const field of ["fragments", "byType"] as const) {
        if (pool[field] !== undefined)
          context.addIssue({
            code: "custom",
            path: [field],
            message: `a pool of source \`${pool.source}\` takes its fragments from ${pool.source === "lexicon" ? "the lexicon" : "the user's last message"}; remove \`${field}\``,
          });
      }
    }
  });
export type PoolFile = z.infer<typeof PoolFileSchema>;
