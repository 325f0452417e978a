import type { View } from "vega";
import type { TopLevelSpec } from "vega-lite";

/** Vega's logger interface (vega-util's, which vega does not re-export). */
type LoggerInterface = NonNullable<NonNullable<ConstructorParameters<typeof View>[1]>["logger"]>;

export interface RenderedSvg {
  /** Inline SVG markup: no namespace URLs, ids scoped to this chart. */
  svg: string;
  /** Warnings Vega-Lite or Vega gave while compiling or rendering (none expected). */
  warnings: string[];
}

/** A logger that collects warnings and fails on errors, instead of printing to the console. */
function collectingLogger(warnings: string[]): LoggerInterface {
  let level = 2;
  const logger = {
    level(value?: number) {
      if (value === undefined) return level;
      level = value;
      return logger;
    },
    error(...args: readonly unknown[]) {
      throw new Error(`chart rendering failed: ${args.map(String).join(" ")}`);
    },
    warn(...args: readonly unknown[]) {
      warnings.push(args.map(String).join(" "));
      return logger;
    },
    info() {
      return logger;
    },
    debug() {
      return logger;
    },
  };
  return logger as unknown as LoggerInterface;
}

/**
 * Makes a Vega SVG fit for inlining into an HTML page with other charts: drops the namespace
 * attributes (the HTML parser knows `<svg>`; the report must hold no URL at all) and renames
 * every `id` (clip paths, gradients) to `${prefix}-N` in document order, with its references, so
 * ids never collide between charts and the markup does not depend on Vega's process-wide counters.
 */
export function scopeSvg(svg: string, prefix: string): string {
  const withoutNamespaces = svg.replace(/ xmlns(:\w+)?="[^"]*"/g, "").replace(/ xlink:href=/g, " href=");
  const renames = new Map<string, string>();
  for (const match of withoutNamespaces.matchAll(/ id="([^"]+)"/g)) {
    const id = match[1] as string;
    if (!renames.has(id)) renames.set(id, `${prefix}-${renames.size + 1}`);
  }
  if (renames.size === 0) return withoutNamespaces;
  return withoutNamespaces
    .replace(/ id="([^"]+)"/g, (_, id: string) => ` id="${renames.get(id) ?? id}"`)
    .replace(/url\(#([^)]+)\)/g, (whole, id: string) => (renames.has(id) ? `url(#${renames.get(id)})` : whole))
    .replace(/ href="#([^"]+)"/g, (whole, id: string) => (renames.has(id) ? ` href="#${renames.get(id)}"` : whole));
}

/**
 * True when SVG markup holds anything a browser would run or load: a `script` or
 * `foreignObject` element, an event-handler attribute (`on...`), or a `javascript:` link. Only
 * real tags and attribute names are inspected, so escaped text that merely mentions them is fine.
 */
export function hasActiveContent(svg: string): boolean {
  for (const tag of svg.matchAll(/<([a-zA-Z][\w:-]*)((?:\s+[^\s=>/]+(?:="[^"]*")?)*)\s*\/?>/g)) {
    const name = (tag[1] as string).toLowerCase();
    if (name === "script" || name === "foreignobject") return true;
    for (const attribute of (tag[2] ?? "").matchAll(/\s+([^\s=>/]+)(?:="([^"]*)")?/g)) {
      if (/^on/i.test(attribute[1] as string)) return true;
      if (/href$/i.test(attribute[1] as string) && /^\s*javascript:/i.test(attribute[2] ?? "")) return true;
    }
  }
  return /<script|<foreignobject/i.test(svg);
}

/** Compiles a Vega-Lite spec and renders it to an SVG string in Node (no browser, no canvas). */
export async function renderVegaLiteSvg(spec: TopLevelSpec, idPrefix: string): Promise<RenderedSvg> {
  // Loaded on first use, so CLI commands that draw no chart do not pay for Vega's start-up.
  const [{ View, parse }, { compile }] = await Promise.all([import("vega"), import("vega-lite")]);
  const warnings: string[] = [];
  const logger = collectingLogger(warnings);
  const vegaSpec = compile(spec, { logger }).spec;
  const view = new View(parse(vegaSpec), { renderer: "none", logger });
  try {
    const svg = await view.toSVG();
    // Vega escapes every text it draws; this guards the report's promise that it runs no script.
    if (hasActiveContent(svg)) throw new Error(`chart ${idPrefix}: Vega produced active content`);
    return { svg: scopeSvg(svg, idPrefix), warnings };
  } finally {
    view.finalize();
  }
}
