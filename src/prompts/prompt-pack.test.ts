import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../core/errors.js";
import { BUILTIN_PACK_DIR, BUILTIN_PACKS, defaultPackFor, loadPromptPack, packLanguage, PLACEHOLDERS } from "./prompt-pack.js";
import { fillPrompt, placeholdersOf } from "./prompt-templates.js";

const scratch = mkdtempSync(join(tmpdir(), "aeb-packs-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of a built-in pack that a test may break. */
function copyOf(pack: string, name: string): string {
  const dir = join(scratch, name);
  cpSync(join(BUILTIN_PACK_DIR, pack), dir, { recursive: true });
  return dir;
}

describe("the built-in prompt packs", () => {
  it("all load in English and Chinese, with every placeholder known", () => {
    for (const name of BUILTIN_PACKS) {
      const pack = loadPromptPack(name);
      expect(pack.manifest.languages).toEqual(["en", "zh"]);
      for (const language of ["en", "zh"] as const) {
        const templates = packLanguage(pack, language);
        for (const stage of [templates.analyst, templates.actor]) expect(stage.template.length).toBeGreaterThan(100);
      }
    }
  });

  it("SAGE-like packs carry no rubric, turn counter or script line; the project's JSON pack does", () => {
    for (const name of ["sage", "rlver", "aeb-paper"] as const) {
      for (const language of ["en", "zh"] as const) {
        const { analyst, actor } = packLanguage(loadPromptPack(name), language);
        for (const placeholder of ["rubric", "turn", "maxTurns", "scriptLine", "phaseNote"]) {
          expect(analyst.placeholders).not.toContain(placeholder);
          expect(actor.placeholders).not.toContain(placeholder);
        }
      }
    }
    const json = packLanguage(loadPromptPack("aeb-json"), "en");
    expect(json.analyst.placeholders).toEqual(expect.arrayContaining(["rubric", "turn", "maxTurns", "shiftTurn"]));
    expect(json.actor.placeholders).toEqual(expect.arrayContaining(["script", "turn"]));
  });

  it("the project's JSON pack puts what changes each turn in the user message, after a system message that never does", () => {
    for (const language of ["en", "zh"] as const) {
      const json = packLanguage(loadPromptPack("aeb-json"), language);
      for (const stage of [json.analyst, json.actor, json.fused]) {
        const perTurn = ["dialogue", "turn", "emotion", "state", "stateDescription", "phaseNote", "scriptLine", "appraisal.innerReaction"];
        expect(placeholdersOf(stage?.template ?? "").filter((placeholder) => perTurn.includes(placeholder))).toEqual([]);
        const user = stage?.user ?? "";
        // The conversation comes first in the user message; only the turn's state follows it.
        expect(placeholdersOf(user)[0]).toBe("dialogue");
        expect(user.indexOf("{{dialogue}}")).toBeLessThan(user.indexOf("{{turn}}"));
      }
    }
  });

  it("split the history as SAGE does: the analyst sees it whole (SAGE) or split (RLVER); the actor always split", () => {
    const placeholders = (name: "sage" | "rlver" | "aeb-paper") => packLanguage(loadPromptPack(name), "zh");
    expect(placeholders("sage").analyst.placeholders).toContain("dialogue");
    expect(placeholders("sage").analyst.placeholders).not.toContain("latest");
    expect(placeholders("rlver").analyst.placeholders).toEqual(expect.arrayContaining(["context", "latest"]));
    for (const name of ["sage", "rlver", "aeb-paper"] as const) expect(placeholders(name).actor.placeholders).toEqual(expect.arrayContaining(["context", "latest"]));
    // RLVER's actor hears the objective Reason and the subjective Analyse; SAGE's the TargetCompletion, Activity and Analyse.
    expect(placeholders("rlver").actor.placeholders.filter((key) => key.startsWith("appraisal."))).toEqual(["appraisal.Reason", "appraisal.Analyse"]);
    expect(placeholders("sage").actor.placeholders.filter((key) => key.startsWith("appraisal."))).toEqual(["appraisal.TargetCompletion", "appraisal.Activity", "appraisal.Analyse"]);
  });

  it("default by preset: SAGE and RLVER profiles get their source's pack, the adversarial suites the project's", () => {
    expect(defaultPackFor("sage")).toBe("sage");
    expect(defaultPackFor("rlver")).toBe("rlver");
    expect(defaultPackFor("aeb")).toBe("aeb-json");
  });

  it("documents every placeholder the code fills", () => {
    expect(Object.keys(PLACEHOLDERS).sort()).toEqual(
      ["background", "character", "context", "dialogue", "emotion", "hiddenIntention", "language", "latest", "maxChange", "maxTurns", "minChange", "persona", "phaseNote", "rubric", "scene", "script", "scriptLine", "shiftTurn", "state", "stateDescription", "stateScale", "topic", "trait", "traitDescription", "turn", "type"].sort(),
    );
  });
});

describe("a pack of one's own ({ dir })", () => {
  it("loads from a directory of the same shape", () => {
    const pack = loadPromptPack({ dir: copyOf("sage", "own") });
    expect(pack.name).toMatch(/^dir:.*own$/);
    expect(pack.manifest.format).toBe("tagged");
  });

  it("names the file and the placeholder when a template uses an unknown one", () => {
    const dir = copyOf("sage", "unknown-placeholder");
    writeFileSync(join(dir, "zh", "actor.md"), "你是{{persona}}，现在{{mood}}。\nResponse:\n");
    expect(() => loadPromptPack({ dir })).toThrow(ConfigError);
    expect(() => loadPromptPack({ dir })).toThrow(`${join(dir, "zh", "actor.md")} uses an unknown placeholder {{mood}}`);
  });

  it("knows an analyst field in the actor only as {{appraisal.<field>}} of the pack's own fields", () => {
    const dir = copyOf("sage", "appraisal-field");
    writeFileSync(join(dir, "en", "actor.md"), "{{appraisal.Reason}}");
    expect(() => loadPromptPack({ dir })).toThrow("uses an unknown placeholder {{appraisal.Reason}}");
    writeFileSync(join(dir, "en", "analyst.md"), "{{appraisal.Content}}");
    expect(() => loadPromptPack({ dir })).toThrow(`${join(dir, "en", "analyst.md")} uses an unknown placeholder {{appraisal.Content}}`);
  });

  it("says which strings or files a placeholder needs", () => {
    const dir = copyOf("sage", "needs-traits");
    writeFileSync(join(dir, "en", "analyst.md"), "{{trait}}\nChange:");
    expect(() => loadPromptPack({ dir })).toThrow(`uses {{trait}}, which needs ${join(dir, "en", "traits.yaml")}`);
    writeFileSync(join(dir, "en", "analyst.md"), "{{phaseNote}}");
    expect(() => loadPromptPack({ dir })).toThrow(`uses {{phaseNote}}, which needs "phaseBefore" in ${join(dir, "en", "strings.yaml")}`);
  });

  it("checks the manifest, naming the field", () => {
    const dir = copyOf("sage", "bad-manifest");
    writeFileSync(join(dir, "pack.yaml"), "description: x\nformat: tagged\nlanguages: [en]\ndialogueStyle: sage\nanalyst: { template: analyst.md, fields: [Content], change: Change }\nactor: { template: actor.md, fields: [Response], reply: Reply }\n");
    expect(() => loadPromptPack({ dir })).toThrow(/analyst\.change: "Change" is not one of the stage's fields \(Content\)[\s\S]*actor\.reply: "Reply" is not one of/);
    writeFileSync(join(dir, "pack.yaml"), "description: x\nformat: yaml\n");
    expect(() => loadPromptPack({ dir })).toThrow(/manifest .*pack\.yaml is invalid/);
  });

  it("is an error when the directory or a template is missing, or a language is asked for that it lacks", () => {
    expect(() => loadPromptPack({ dir: join(scratch, "nowhere") })).toThrow(/directory .*nowhere does not exist/);
    const dir = copyOf("aeb-json", "missing-template");
    rmSync(join(dir, "zh", "fused.md"));
    expect(() => loadPromptPack({ dir })).toThrow(/template .*zh\/fused\.md cannot be read/);
    const englishOnly = copyOf("sage", "english-only");
    writeFileSync(join(englishOnly, "pack.yaml"), "description: x\nformat: tagged\nlanguages: [en]\ndialogueStyle: sage\nanalyst: { template: analyst.md, fields: [Content, TargetCompletion, Activity, Analyse, Change], change: Change }\nactor: { template: actor.md, fields: [Thinking, Origin, Change, Response], reply: Response }\n");
    expect(() => packLanguage(loadPromptPack({ dir: englishOnly }), "zh")).toThrow("has no zh templates (it has: en)");
  });
});

describe("placeholders", () => {
  it("lists {{name}} and {{group.name}} once each, and fills them in one pass", () => {
    expect(placeholdersOf("{{a}} {{appraisal.Reason}} {{a}} {{ not one }}")).toEqual(["a", "appraisal.Reason"]);
    // Agent text that looks like a placeholder is never filled in turn.
    expect(fillPrompt("{{a}}|{{b}}", { a: "{{b}}", b: "x" })).toBe("{{b}}|x");
  });

  it("fills repeated and adjacent placeholders, keeps the text around them and replacement patterns as written", () => {
    const template = "start {{a}}{{b}} mid {{a}} {{ not one }} end";
    expect(fillPrompt(template, { a: "$&", b: 2 })).toBe("start $&2 mid $& {{ not one }} end");
    // The same template again (cut once, then reused) with other values.
    expect(fillPrompt(template, { a: "x", b: "y" })).toBe("start xy mid x {{ not one }} end");
    expect(fillPrompt("no placeholders", {})).toBe("no placeholders");
    expect(fillPrompt("{{only}}", { only: "" })).toBe("");
  });

  it("throws naming a placeholder that has no value", () => {
    expect(() => fillPrompt("a {{known}} b {{missing}}", { known: 1 })).toThrow("prompt placeholder {{missing}} has no value");
  });
});
