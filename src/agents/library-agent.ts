import type { Agent, AgentInput, AgentReply } from "./agent.js";

/** An agent written as a plain function: the reply's text, or the whole reply. */
export type AgentFunction = (input: AgentInput) => Promise<AgentReply | string> | AgentReply | string;

/**
 * An agent given in code (a function or an object with `reply`), as `runBenchmark({ agents })`
 * takes it: whatever it returns is checked, so a bad reply ends its dialogue as an error that says
 * what was wrong, not as a crash or a silently empty turn.
 */
export function libraryAgent(id: string, agent: Agent | AgentFunction): Agent {
  const reply = typeof agent === "function" ? agent : agent.reply.bind(agent);
  return {
    id,
    async reply(input: AgentInput): Promise<AgentReply> {
      const value = await reply(input);
      if (typeof value === "string") return { text: value };
      if (value === null || typeof value !== "object" || typeof (value as { text?: unknown }).text !== "string") {
        throw new TypeError(
          `agent ${id} returned ${value === null ? "null" : typeof value}; an agent returns a string or { text, think?, flags? }`,
        );
      }
      return value;
    },
  };
}
