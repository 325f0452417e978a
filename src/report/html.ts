/**
 * Safe HTML building: every interpolated value is escaped unless it is already `SafeHtml`, so
 * transcript text (which may hold `<script>`, quotes or ampersands) can never become markup.
 */

/** A piece of markup that has been built by `html` (or vetted, like a rendered chart). */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

function interpolate(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return value.map(interpolate).join("");
  return escapeHtml(String(value));
}

/** Tagged template: literal parts are markup, every `${value}` is escaped (arrays are joined). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((value, index) => {
    out += interpolate(value) + (strings[index + 1] ?? "");
  });
  return new SafeHtml(out);
}

/** Marks a trusted string (never transcript text) as markup. */
export function rawHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
