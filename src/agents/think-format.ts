/**
 * Splits a think-then-reply completion into its private reasoning and its visible reply.
 * A missing or broken think block is flagged (`think_format`), never fatal: the visible reply is
 * then the best reading of what the user would have seen.
 */
export interface ThinkSplit {
  visible: string;
  think?: string;
  /** Why the format was violated, when it was. */
  violation?: "missing" | "unclosed" | "empty_reply" | "nested";
}

const OPEN = "<think>";
const CLOSE = "</think>";

export function splitThink(completion: string): ThinkSplit {
  const text = completion.trim();
  const open = text.indexOf(OPEN);
  const close = text.lastIndexOf(CLOSE);
  if (open === -1 && close === -1) return { visible: text, violation: "missing" };
  if (close === -1) {
    // Never closed: everything after <think> is reasoning and nothing was said; keep what came before.
    const before = text.slice(0, open).trim();
    return { visible: before, think: text.slice(open + OPEN.length).trim(), violation: "unclosed" };
  }
  const think = text.slice(open === -1 ? 0 : open + OPEN.length, close).trim();
  const visible = text.slice(close + CLOSE.length).trim();
  if (think.includes(OPEN)) return { visible, think, violation: "nested" };
  if (visible === "") return { visible, think, violation: "empty_reply" };
  // Text before <think> would be shown too; a well-formed reply has none.
  if (open > 0) return { visible: `${text.slice(0, open).trim()} ${visible}`.trim(), think, violation: "nested" };
  return { visible, think };
}
