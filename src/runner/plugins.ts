import type { Agent } from "../agents/agent.js";
import { createReferenceAgent } from "../agents/reference-agents.js";
import { OfflineSimulatedUser } from "../simulated-user/offline-user.js";
import type { SimulatedUser } from "../simulated-user/simulated-user.js";
import type { AgentConfig, SimulatorConfig } from "./run-config.js";

/**
 * Builds the plug-ins a config names. A new kind of agent or simulated user adds a branch here
 * and a schema member in run-config.ts (see docs/architecture.md, "How to add one").
 */
export function createAgent(config: AgentConfig): Agent {
  switch (config.kind) {
    case "reference":
      return createReferenceAgent(config.id);
  }
}

export function createSimulatedUser(config: SimulatorConfig): SimulatedUser {
  switch (config.kind) {
    case "offline":
      return new OfflineSimulatedUser();
  }
}
