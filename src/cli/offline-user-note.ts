/**
 * What the offline simulated user is, said where it scores a real model or a person: it reads the
 * moves and phrases of a reply (docs/offline-user.md), it does not understand it. The note names
 * how to be scored by an LLM user instead, so a first result is not taken for more than it is.
 */
export function offlineUserNote(who: "model" | "person"): string {
  return [
    `note: the offline simulated user scores ${who === "model" ? "this model's" : "your"} replies by the moves and phrases it finds in them (docs/offline-user.md), not by understanding them.`,
    "      To be scored by an LLM simulated user instead, write a config with",
    '        simulator: { kind: llm, endpoint: { baseUrl: "http://localhost:8000/v1", model: NAME } }',
    `      and pass it with --config (examples/mock-llm-demo.yaml is one${who === "model" ? "; put the model under test in its conditions" : ""}).`,
  ].join("\n");
}
