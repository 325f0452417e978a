/**
 * The verl integration (integrations/verl) from the benchmark's side. Its own tests are Python and
 * run through the installed verl 0.9 (`npm run test:verl`, which `npm test` runs after vitest:
 * integrations/verl/run-tests.sh). Here, what they take as given is checked against the
 * benchmark's code:
 *
 * - the Python reply split shows the user exactly what the benchmark's splitThink shows;
 * - the canned policy replies of the verl tests state the visible text splitThink gives, so the
 *   Python tests' expectations do not come from the code they test.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";
import { splitThink } from "../src/agents/think-format.js";

const fixtures = join(resolve(import.meta.dirname, ".."), "integrations", "verl", "tests", "fixtures");

function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(join(fixtures, name), "utf8")) as T;
}

it("the Python reply split shows the user exactly what the benchmark's splitThink shows", () => {
  const cases = fixture<Array<{ completion: string; visible: string; why: string }>>("visible-replies.json");
  expect(cases.length).toBeGreaterThanOrEqual(10);
  for (const { completion, visible, why } of cases) expect(splitThink(completion).visible, why).toBe(visible);
});

it("the verl tests' canned policy replies state what splitThink shows the user, think blocks included and stripped", () => {
  const { replies } = fixture<{ replies: Array<{ completion: string; visible: string }> }>("policy-replies.json");
  expect(replies.length).toBeGreaterThanOrEqual(4);
  for (const { completion, visible } of replies) {
    expect(splitThink(completion).visible).toBe(visible);
    expect(visible).not.toContain("PRIVATE-REASONING");
  }
  // Some replies think (the marker the Python tests look for on the wire), some do not.
  const thinking = replies.filter(({ completion }) => completion.includes("<think>PRIVATE-REASONING"));
  expect(thinking.length).toBeGreaterThan(0);
  expect(thinking.length).toBeLessThan(replies.length);
});
