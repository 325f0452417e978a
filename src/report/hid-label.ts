/**
 * How the reports and the viewer name the simulated user's HID. Under the offline simulated user
 * HID is no independent signal: its verdict (docs/offline-user.md, step 4) is the same move test
 * on the same lexicon that sets the reward, so an agent that games the reward's phrases gets a
 * high HID too. Wherever such a HID is shown it says so; an independent HID judge (`aeb judge`,
 * `judges.hid`) keeps its own name.
 */

/** The column label of the simulated user's HID under the offline user. */
export const OFFLINE_HID_LABEL = "HID (offline: move test)";

/** The column label of the simulated user's HID under any other simulated user (an LLM user, an import). */
export const SIMULATOR_HID_LABEL = "HID";

/** The sentence that goes with {@link OFFLINE_HID_LABEL}. */
export const OFFLINE_HID_NOTE =
  "HID (offline: move test): under the offline simulated user, HID is the same move test that sets the reward (docs/offline-user.md, step 4: yes when the reply makes one of the scenario's hidden-intention moves and nothing in it hurts), so it is not independent evidence of detecting the hidden intention; an agent that games the reward's phrases gets a high HID too. For an independent HID, run an HID judge (judges.hid in the run config, then aeb judge).";

/** Whether a run's recorded simulator config (run.json's `config.simulator`) is the offline user; false when unknown. */
export function isOfflineSimulator(simulator: unknown): boolean {
  return simulator !== null && typeof simulator === "object" && (simulator as { kind?: unknown }).kind === "offline";
}

/** The label of the simulated user's HID for a run whose recorded simulator config is `simulator`. */
export function simulatorHidLabel(simulator: unknown): string {
  return isOfflineSimulator(simulator) ? OFFLINE_HID_LABEL : SIMULATOR_HID_LABEL;
}
