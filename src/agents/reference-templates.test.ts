import { describe, expect, it } from "vitest";
import { loadLexicon, type LexicalMove, type Move } from "../lexicon/lexicon.js";
import { loadTypeDefaults } from "../scenarios/type-defaults.js";
import { loadFitRules } from "../simulated-user/fit-rules.js";
import { readReply } from "../simulated-user/read-reply.js";
import { loadReferenceTemplates, type ReferenceTemplates } from "./reference-templates.js";
import { fillTemplate } from "./user-text.js";

type AttunedMode = keyof ReferenceTemplates["attuned"];

/** What each of the attuned agent's modes must do, and the type and phase whose off-key moves it must avoid. */
const MODES: Record<Exclude<AttunedMode, "listening">, { needs: Move[][]; type: string; phase: "before" | "after" }> = {
  denial: { needs: [["holds_space"]], type: "gaslighting", phase: "after" },
  fine: { needs: [["backs_off"], ["door_open"]], type: "mood_reversal", phase: "after" },
  agreement: { needs: [["validates_feeling"], ["balance", "softens"]], type: "validation_manipulation", phase: "after" },
  success_fear: { needs: [["success_fear"]], type: "fact_emotion_contradiction", phase: "after" },
  flooding: { needs: [["holds_complexity"]], type: "emotional_flooding", phase: "after" },
  unfairness: { needs: [["names_unfairness"]], type: "escalation", phase: "after" },
};

describe("the attuned agent's templates", () => {
  it.each(["en", "zh"] as const)(
    "make their mode's move as the offline user reads it, no off-key move, and no more moves than one honest reply (%s)",
    (language) => {
      const lexicon = loadLexicon(language);
      const { templates } = loadReferenceTemplates(language);
      const said = language === "zh" ? "我考试没过" : "I failed the exam";
      const values =
        language === "zh"
          ? { quote: "“我考试没过”", reflection: "你考试没过", emotion: "难过", emotions: "开心、内疚、生气" }
          : { quote: "“I failed the exam”", reflection: "you failed the exam", emotion: "upset", emotions: "relieved, guilty and angry" };
      const defaults = loadTypeDefaults();
      for (const [mode, lines] of Object.entries(templates.attuned) as Array<[AttunedMode, string[]]>) {
        expect(lines.length, mode).toBeGreaterThanOrEqual(10);
        for (const line of lines) {
          const text = fillTemplate(line, values);
          const reading = readReply(text, { lexicon, userSaid: said, lastUser: said });
          const moves = reading.moves;
          // The scattershot rule counts the moves the reader is confident of; off-key moves are charged on those too.
          expect([...reading.confidentMoves].filter((move) => move !== "grounded").length, text).toBeLessThanOrEqual(
            loadFitRules().scattershot.maxMoves,
          );
          if (mode === "listening") continue;
          const { needs, type, phase } = MODES[mode];
          for (const alternatives of needs)
            expect(
              alternatives.some((move) => moves.has(move)),
              `${text} needs ${alternatives.join(" or ")}`,
            ).toBe(true);
          const offKey = defaults[type as keyof typeof defaults].offKey;
          const misfits = [...offKey.any, ...offKey[phase]].filter((move: LexicalMove) => reading.confidentMoves.has(move));
          expect(misfits, text).toEqual([]);
        }
      }
    },
  );
});
