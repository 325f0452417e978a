import { AttunedAgent } from "../agents/reference-agents.js";
import { detectLanguage } from "../lexicon/lexicon.js";
import type { MockChatRequest, MockReplyValue } from "./mock-llm-server.js";

/**
 * A reply policy for the mock OpenAI-compatible server that speaks AEB's protocols, so the whole
 * LLM path (agent, two-stage or fused simulated user, ECS and HID judges) runs against it in tests,
 * demos and benchmarks. It recognises the role from the structured-output schema name (or, when
 * the endpoint sends none, from the prompt), and answers deterministically from a hash of the
 * request: the agent role answers as the attuned reference agent would, with a think block when
 * the system prompt asks for one. The free-text prompt packs (`sage`, `rlver`, `aeb-paper`, or a
 * user's own) are recognised by the section headers their output format asks for, and answered
 * with exactly those sections, written the way models vary them (markdown, full-width colons,
 * brackets).
 */
export function aebMockReply(request: MockChatRequest): Promise<MockReplyValue> | MockReplyValue {
  const role = roleOf(request);
  const hash = hashText(JSON.stringify(request.messages));
  const system = request.messages.find((message) => message.role === "system")?.content ?? "";
  switch (role) {
    case "appraisal":
      return JSON.stringify(appraisal(hash));
    case "reply":
      return JSON.stringify(userReply(hash, system));
    case "fused":
      return JSON.stringify({ ...appraisal(hash), ...userReply(hash, system) });
    case "opening":
      return JSON.stringify(userOpening(hash, system));
    case "ecs":
      return JSON.stringify({
        reasoning: "The person's last words set the tone.",
        emotion: 35 + (hash % 41),
        confidence: 40 + (hash % 50),
      });
    case "hid":
      return JSON.stringify(hidVerdict(system, hash));
    case "tagged-analyst":
      return taggedAnalysis(promptText(request), hash);
    case "tagged-actor":
      return taggedReply(promptText(request), hash);
    case "agent":
      return agentReply(request, system);
  }
}

type MockRole = "appraisal" | "reply" | "fused" | "opening" | "ecs" | "hid" | "tagged-analyst" | "tagged-actor" | "agent";

/** The system message and the first user message: where a simulator's prompt is. */
function promptText(request: MockChatRequest): string {
  const system = request.messages.find((message) => message.role === "system")?.content ?? "";
  const user = request.messages.find((message) => message.role === "user")?.content ?? "";
  return `${system}\n${user}`;
}

/** A header line of a free-text output format (`Change:` alone on its line). */
const headerLine = (name: string) => new RegExp(`^${name}[:：]\\s*$`, "mu");

export function roleOf(request: MockChatRequest): MockRole {
  const format = request.body.response_format as { json_schema?: { name?: string } } | undefined;
  const name = format?.json_schema?.name ?? "";
  if (name.startsWith("aeb_simulator_appraisal")) return "appraisal";
  if (name.startsWith("aeb_simulator_reply")) return "reply";
  if (name.startsWith("aeb_simulator_fused")) return "fused";
  if (name.startsWith("aeb_simulator_opening")) return "opening";
  if (name === "aeb_ecs_judge") return "ecs";
  if (name === "aeb_hid_judge") return "hid";
  const system = request.messages.find((message) => message.role === "system")?.content ?? "";
  const prompt = promptText(request);
  if (headerLine("Response").test(prompt) && headerLine("Origin").test(prompt)) return "tagged-actor";
  if (headerLine("Change").test(prompt) && headerLine("Analyse").test(prompt)) return "tagged-analyst";
  if (system.includes('"addressedHiddenIntention"') && system.includes('"reply"')) return "fused";
  if (system.includes('"addressedHiddenIntention"')) return "appraisal";
  if (system.includes('"leave"')) return "reply";
  if (system.includes('"opening"')) return "opening";
  if (system.includes('"confidence"')) return "ecs";
  if (system.includes('"verdict"')) return "hid";
  return "agent";
}

function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

function appraisal(hash: number) {
  const change = (hash % 9) - 3;
  return {
    understanding: "The listener is responding to what I said.",
    addressedHiddenIntention: (["yes", "partial", "no"] as const)[hash % 3],
    innerReaction: change >= 0 ? "That landed, a little." : "That missed me.",
    change,
    reasons: [change >= 0 ? "felt heard" : "felt brushed off"],
  };
}

function userReply(hash: number, system: string) {
  const chinese = detectLanguage(system) === "zh";
  const lines = chinese
    ? ["我也不知道该怎么说。", "嗯，也许吧。", "可是事情没那么简单。"]
    : ["I don't know what to say to that.", "Maybe. I'm still thinking about it.", "It's not that simple, though."];
  return { reply: lines[hash % lines.length], leave: false };
}

/** The first message of a scenario without one (the simulated user's `open`). */
function userOpening(hash: number, system: string) {
  const chinese = detectLanguage(system) === "zh";
  const lines = chinese
    ? ["最近有件事一直让我心里不舒服。", "唉，这几天过得挺糟的。"]
    : ["Something has been bothering me lately.", "It's been a rough few days."];
  return { opening: lines[hash % lines.length] };
}

const ANALYST_SECTIONS = ["Content", "TargetCompletion", "Reason", "Activity", "Analyse", "Change"] as const;

/**
 * An analyst's free-text answer with the sections the prompt's output format lists, in its order.
 * The change is the JSON appraisal's ((hash % 9) - 3); the header style varies with the hash.
 */
function taggedAnalysis(prompt: string, hash: number): string {
  const chinese = detectLanguage(prompt) === "zh";
  const change = (hash % 9) - 3;
  const sections = ANALYST_SECTIONS.filter((name) => headerLine(name).test(prompt)).sort(
    (a, b) => prompt.search(headerLine(a)) - prompt.search(headerLine(b)),
  );
  const text: Record<(typeof ANALYST_SECTIONS)[number], string> = {
    Content: chinese ? "NPC在回应我刚才说的事。" : "The NPC is responding to what I just said.",
    TargetCompletion: (chinese
      ? ["yes，说到了我心里。", "partial：有一点触及，但不够。", "no，没说到点子上。"]
      : ["Yes, it touched what I needed.", "Partly: it came close, not all the way.", "No, it missed what I needed."])[hash % 3] as string,
    Reason: chinese ? "和我的隐藏主题有一部分契合。" : "It fits my hidden theme in part.",
    Activity: chinese
      ? change >= 0
        ? "心里松了一点。"
        : "心里有点堵。"
      : change >= 0
        ? "Something loosens a little."
        : "Something tightens.",
    Analyse: chinese
      ? change >= 0
        ? "觉得被听到了一些。"
        : "觉得被敷衍了。"
      : change >= 0
        ? "I feel somewhat heard."
        : "I feel brushed off.",
    Change: `${change > 0 ? "+" : ""}${change}`,
  };
  const header = (name: string) => (hash % 4 === 0 ? `**${name}:**` : hash % 4 === 1 ? `${name}：` : `${name}:`);
  const body = (name: (typeof ANALYST_SECTIONS)[number]) => (hash % 4 === 1 ? `[${text[name]}]` : text[name]);
  return sections.map((name) => `${header(name)}\n${body(name)}`).join("\n");
}

/** An actor's free-text answer: analysis, draft, rewrite notes, then the reply under `Response:`. */
function taggedReply(prompt: string, hash: number): string {
  const { reply } = userReply(hash, prompt);
  const chinese = detectLanguage(prompt) === "zh";
  return chinese
    ? `Thinking:\n态度中立，先说说眼前的事。\nOrigin:\n${reply}\nChange:\n已经够简短了。\nResponse:\n${reply}`
    : `Thinking:\nNeutral; keep to what is in front of me.\nOrigin:\n${reply}\nChange:\nShort enough already.\nResponse:\n${reply}`;
}

function hidVerdict(system: string, hash: number) {
  const match = /"speaker": "listener",\s*"turn": (\d+),\s*"text": "((?:[^"\\]|\\.)*)"/u.exec(system);
  if (match === null || hash % 4 === 0) return { reasoning: "No reply touched the need.", verdict: "no", turn: null, evidence: "" };
  const text = JSON.parse(`"${match[2]}"`) as string;
  return {
    reasoning: "The first reply touched it.",
    verdict: hash % 2 === 0 ? "yes" : "partial",
    turn: Number(match[1]),
    evidence: text.slice(0, 40),
  };
}

async function agentReply(request: MockChatRequest, system: string): Promise<MockReplyValue> {
  const history = request.messages
    .filter((message) => message.role !== "system")
    .map((message) => ({ role: message.role as "user" | "assistant", content: message.content }));
  const language = detectLanguage(history.map((turn) => turn.content).join(" "));
  const turnIndex = history.filter((turn) => turn.role === "assistant").length;
  const reply = await new AttunedAgent().reply({
    history,
    language,
    turnIndex,
    seed: hashText(history[0]?.content ?? ""),
    dialogueId: "mock",
  });
  if (system.includes("<think>")) return `<think>The person needs to feel heard before anything else.</think>\n${reply.text}`;
  return reply.text;
}
