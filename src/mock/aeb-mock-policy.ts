import { AttunedAgent } from "../agents/reference-agents.js";
import { detectLanguage } from "../lexicon/lexicon.js";
import type { MockChatRequest, MockReplyValue } from "../llm/mock-server.js";

/**
 * A reply policy for the mock OpenAI-compatible server that speaks AEB's protocols, so the whole
 * LLM path (agent, two-stage or fused simulated user, ECS and HID judges) runs against it in tests,
 * demos and benchmarks. It recognises the role from the structured-output schema name (or, when
 * the endpoint sends none, from the prompt), and answers deterministically from a hash of the
 * request: the agent role answers as the attuned reference agent would, with a think block when
 * the system prompt asks for one.
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
      return JSON.stringify({ reasoning: "The person's last words set the tone.", emotion: 35 + (hash % 41), confidence: 40 + (hash % 50) });
    case "hid":
      return JSON.stringify(hidVerdict(system, hash));
    case "agent":
      return agentReply(request, system);
  }
}

type MockRole = "appraisal" | "reply" | "fused" | "opening" | "ecs" | "hid" | "agent";

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
  const lines = chinese ? ["我也不知道该怎么说。", "嗯，也许吧。", "可是事情没那么简单。"] : ["I don't know what to say to that.", "Maybe. I'm still thinking about it.", "It's not that simple, though."];
  return { reply: lines[hash % lines.length], leave: false };
}

/** The first message of a scenario without one (the simulated user's `open`). */
function userOpening(hash: number, system: string) {
  const chinese = detectLanguage(system) === "zh";
  const lines = chinese ? ["最近有件事一直让我心里不舒服。", "唉，这几天过得挺糟的。"] : ["Something has been bothering me lately.", "It's been a rough few days."];
  return { opening: lines[hash % lines.length] };
}

function hidVerdict(system: string, hash: number) {
  const match = /"speaker": "listener",\s*"turn": (\d+),\s*"text": "((?:[^"\\]|\\.)*)"/u.exec(system);
  if (match === null || hash % 4 === 0) return { reasoning: "No reply touched the need.", verdict: "no", turn: null, evidence: "" };
  const text = JSON.parse(`"${match[2]}"`) as string;
  return { reasoning: "The first reply touched it.", verdict: hash % 2 === 0 ? "yes" : "partial", turn: Number(match[1]), evidence: text.slice(0, 40) };
}

async function agentReply(request: MockChatRequest, system: string): Promise<MockReplyValue> {
  const history = request.messages.filter((message) => message.role !== "system").map((message) => ({ role: message.role as "user" | "assistant", content: message.content }));
  const language = detectLanguage(history.map((turn) => turn.content).join(" "));
  const turnIndex = history.filter((turn) => turn.role === "assistant").length;
  const reply = await new AttunedAgent().reply({ history, language, turnIndex, seed: hashText(history[0]?.content ?? ""), dialogueId: "mock" });
  if (system.includes("<think>")) return `<think>The person needs to feel heard before anything else.</think>\n${reply.text}`;
  return reply.text;
}
