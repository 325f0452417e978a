import { createRng, deriveSeed } from "../core/random.js";
import { AebError } from "../core/errors.js";
import { loadLexicon, type Lexicon } from "../lexicon/lexicon.js";
import type { Agent, AgentInput, AgentReply } from "./agent.js";
import { createGamingAgent, GAMING_AGENT_IDS, type GamingAgentId } from "./gaming-agents.js";
import { loadReferenceTemplates, type AttunedCue, type ReferenceTemplates } from "./reference-templates.js";
import { feelingWords, fillTemplate, joinList, lastUserText as lastUserTurn, quoteClause, reflectClause } from "./user-text.js";

/**
 * The offline reference agents: deterministic baselines that calibrate the benchmark. Each reads
 * only the visible conversation. Templates live in data/agents/<language>.yaml.
 */
export const REFERENCE_AGENT_IDS = ["formulaic", "sycophant", "advice", "labeler", "attuned"] as const;
export type ReferenceAgentId = (typeof REFERENCE_AGENT_IDS)[number];

const DEFAULT_FEELING = { en: "upset", zh: "难受" } as const;

/** Picks the template for this turn: a seeded start, then one step per turn, so openings rotate. */
function templateFor(lines: readonly string[], input: AgentInput, agentId: string): string {
  const offset = createRng(deriveSeed(input.seed, agentId)).int(0, lines.length - 1);
  return lines[(offset + input.turnIndex) % lines.length] as string;
}

function lastUserText(input: AgentInput): string {
  return lastUserTurn(input.history);
}

function values(text: string, lexicon: Lexicon): Record<string, string> {
  const feelings = feelingWords(text, lexicon);
  return {
    quote: quoteClause(text, lexicon),
    reflection: reflectClause(text, lexicon),
    emotion: feelings[0] ?? DEFAULT_FEELING[lexicon.language],
    emotions:
      feelings.length >= 2 ? joinList(feelings.slice(0, 4), lexicon.language) : lexicon.language === "zh" ? "好多感受" : "so many things",
  };
}

class TemplateAgent implements Agent {
  constructor(readonly id: Exclude<ReferenceAgentId, "attuned">) {}

  async reply(input: AgentInput): Promise<AgentReply> {
    const lexicon = loadLexicon(input.language);
    const { templates } = loadReferenceTemplates(input.language);
    const text = lastUserText(input);
    return { text: fillTemplate(templateFor(templates[this.id], input, this.id), values(text, lexicon)) };
  }
}

/**
 * Reads the user's cues and makes the move the situation calls for: holds space without labels
 * when a feeling is denied, backs off (door open) after "I'm fine", gives a balanced validation
 * when pressed for a verdict, says success can frighten, holds mixed feelings, names an unfairness
 * plainly, and otherwise stays with the user's words.
 */
export class AttunedAgent implements Agent {
  readonly id = "attuned";

  async reply(input: AgentInput): Promise<AgentReply> {
    const lexicon = loadLexicon(input.language);
    const { templates, cues } = loadReferenceTemplates(input.language);
    const text = lastUserText(input);
    const move = chooseAttunedMove(input, cues, lexicon);
    return { text: fillTemplate(templateFor(templates.attuned[move], input, `attuned:${move}`), values(text, lexicon)) };
  }
}

type AttunedMove = keyof ReferenceTemplates["attuned"];

/** Cue reading, in priority order. Modes that the user set earlier (denial, "I'm fine") persist. */
export function chooseAttunedMove(input: AgentInput, cues: Record<AttunedCue, RegExp[]>, lexicon: Lexicon): AttunedMove {
  const userTurns = input.history.filter((turn) => turn.role === "user").map((turn) => turn.content);
  const last = userTurns.at(-1) ?? "";
  const laterTurns = userTurns.slice(1);
  const has = (cue: AttunedCue, text: string) => cues[cue].some((pattern) => pattern.test(text));
  if (laterTurns.some((turn) => has("denial", turn))) return "denial";
  if (laterTurns.some((turn) => has("fine", turn))) return "fine";
  if (has("agreement", last)) return "agreement";
  if (userTurns.some((turn) => has("goodNews", turn) && has("fear", turn))) return "success_fear";
  if (feelingWords(last, lexicon).length >= 3 || (has("mixed", last) && feelingWords(last, lexicon).length >= 2)) return "flooding";
  if (userTurns.some((turn) => has("unfairness", turn))) return "unfairness";
  return "listening";
}

/**
 * Every offline agent a config can name with `kind: reference`: the reference baselines and the
 * gaming agents (src/agents/gaming-agents.ts). Only the baselines are default conditions.
 */
export const OFFLINE_AGENT_IDS = [...REFERENCE_AGENT_IDS, ...GAMING_AGENT_IDS] as const;
export type OfflineAgentId = (typeof OFFLINE_AGENT_IDS)[number];

export function createReferenceAgent(id: string): Agent {
  if ((GAMING_AGENT_IDS as readonly string[]).includes(id)) return createGamingAgent(id as GamingAgentId, new AttunedAgent());
  switch (id) {
    case "attuned":
      return new AttunedAgent();
    case "formulaic":
    case "sycophant":
    case "advice":
    case "labeler":
      return new TemplateAgent(id);
    default:
      throw new AebError(`unknown reference agent "${id}" (known: ${OFFLINE_AGENT_IDS.join(", ")})`);
  }
}
