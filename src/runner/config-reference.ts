/**
 * docs/config-reference.md, generated from the run config's zod schema (its descriptions, types
 * and defaults, through the JSON Schema editors read), so the reference cannot drift from what
 * `aeb run --config` accepts: `npm run schemas` writes it and a test fails when it is stale.
 */
import type { JsonSchemaNode } from "./config-issues.js";
import { runConfigInputJsonSchema } from "./run-config.js";

interface Section {
  title: string;
  /** How a key below is written in YAML, e.g. `conditions[].agent` (kind: llm). */
  node: JsonSchemaNode;
  intro?: string;
}

const ENDPOINT_TITLE = "endpoint (every model: agents, the simulator, judges)";
const anchor = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, "")
    .trim()
    .replace(/ +/g, "-");

/** The variants of a union of objects told apart by `kind`, or undefined. */
function kindVariants(node: JsonSchemaNode): JsonSchemaNode[] | undefined {
  const options = node.anyOf ?? node.oneOf;
  if (options === undefined) return undefined;
  return options.every((option) => option.properties?.kind?.const !== undefined) ? options : undefined;
}

function isEndpoint(node: JsonSchemaNode): boolean {
  return node.properties?.model !== undefined && node.properties.baseUrl !== undefined;
}

function scalarType(node: JsonSchemaNode): string {
  if (node.const !== undefined) return `\`${String(node.const)}\``;
  if (node.enum !== undefined) return node.enum.map((value) => `\`${String(value)}\``).join(" | ");
  const options = node.anyOf ?? node.oneOf;
  if (options !== undefined)
    return options
      .map((option) => (option.properties !== undefined ? `{ ${Object.keys(option.properties).join(", ")} }` : scalarType(option)))
      .join(" | ");
  const type = Array.isArray(node.type) ? node.type.join(" or ") : (node.type ?? "any");
  // zod bounds every integer by the safe range: say only the bounds a config chose.
  const chosen = (bound: number | undefined) => (bound !== undefined && Math.abs(bound) !== Number.MAX_SAFE_INTEGER ? bound : undefined);
  const [minimum, exclusiveMinimum, maximum] = [chosen(node.minimum), chosen(node.exclusiveMinimum), chosen(node.maximum)];
  const bounds = [
    minimum !== undefined ? `>= ${minimum}` : "",
    exclusiveMinimum !== undefined ? `> ${exclusiveMinimum}` : "",
    maximum !== undefined ? `<= ${maximum}` : "",
  ]
    .filter(Boolean)
    .join(", ");
  if (type === "array" && node.items !== undefined) return `list of ${scalarType(node.items)}`;
  return bounds === "" ? type : `${type} (${bounds})`;
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The sections of the reference, in reading order: each object of the config once. */
function sections(root: JsonSchemaNode): Section[] {
  const found: Section[] = [{ title: "top level", node: root, intro: root.description }];
  let endpoint: JsonSchemaNode | undefined;
  const visit = (path: string, node: JsonSchemaNode) => {
    const variants = kindVariants(node);
    if (variants !== undefined) {
      for (const variant of variants) visit(`${path} (kind: ${String(variant.properties!.kind!.const)})`, variant);
      return;
    }
    if (node.type === "array" && node.items !== undefined) return visit(`${path}[]`, node.items);
    if (node.properties === undefined) return;
    if (isEndpoint(node)) {
      endpoint ??= node;
      return;
    }
    if (path !== "") found.push({ title: path, node, ...(node.description !== undefined ? { intro: node.description } : {}) });
    for (const [key, child] of Object.entries(node.properties))
      visit(path === "" ? key : `${path}.${key.replace(/ \(kind.*$/, "")}`, child);
  };
  for (const [key, child] of Object.entries(root.properties ?? {})) visit(key, child);
  if (endpoint !== undefined) {
    found.push({
      title: ENDPOINT_TITLE,
      node: endpoint,
      intro:
        "Every model of a config (an agent's, the simulator's, a judge's) is reached through one of these; only `model` and `baseUrl` (or `baseUrls`) are needed.",
    });
    for (const [key, child] of Object.entries(endpoint.properties ?? {}))
      if (child.properties !== undefined)
        found.push({ title: `endpoint.${key}`, node: child, ...(child.description !== undefined ? { intro: child.description } : {}) });
  }
  return found;
}

/** One row per key of a section. */
function rows(section: Section, titles: ReadonlySet<string>): string[] {
  const required = new Set(section.node.required ?? []);
  return Object.entries(section.node.properties ?? {}).map(([key, child]) => {
    const base = section.title === ENDPOINT_TITLE ? "endpoint" : section.title.replace(/ \(kind: [^)]*\)$/, "");
    const path = section.title === "top level" ? key : `${base}.${key}`;
    let type: string;
    if (isEndpoint(child)) type = `[endpoint](#${anchor(ENDPOINT_TITLE)})`;
    else if (kindVariants(child) !== undefined)
      type = `one of: ${kindVariants(child)!
        .map((variant) => `kind ${String(variant.properties!.kind!.const)}`)
        .join(", ")} (below)`;
    else if (
      child.type === "array" &&
      child.items !== undefined &&
      (child.items.properties !== undefined || kindVariants(child.items) !== undefined)
    )
      type = `list (see ${path.replace(/ \(kind: [^)]*\)/g, "")}[] below)`;
    else if (child.properties !== undefined && titles.has(path)) type = "object (below)";
    else type = scalarType(child);
    const fallback = child.default === undefined ? (required.has(key) ? "required" : "") : `\`${JSON.stringify(child.default)}\``;
    return `| \`${key}\` | ${cell(type)} | ${cell(fallback)} | ${cell(child.description ?? "")} |`;
  });
}

/** The whole reference, as committed at docs/config-reference.md. */
export function configReferenceMarkdown(): string {
  const found = sections(runConfigInputJsonSchema());
  const titles = new Set(found.map((section) => section.title));
  const lines = [
    "# Run config reference",
    "",
    "<!-- Generated from src/runner/run-config.ts by `npm run schemas`; do not edit by hand (a test fails when this file is stale). -->",
    "",
    "Every key `aeb run --config FILE` accepts (YAML or JSON), what it means and its default. Editors",
    "that read `# yaml-language-server: $schema=../schemas/run-config.schema.json` (the first line of",
    "every example) show the same descriptions on hover and complete the keys. Flags override the",
    "file (`aeb run --help`). An unknown key or value is refused with the nearest known one.",
    "",
    ...found.map((section) => `- [${section.title}](#${anchor(section.title)})`),
    "",
  ];
  for (const section of found) {
    lines.push(`## ${section.title}`, "");
    if (section.intro !== undefined) lines.push(section.intro, "");
    lines.push("| key | type | default | meaning |", "|---|---|---|---|", ...rows(section, titles), "");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

/** Every key of the config's JSON Schema that has no description, by path (a test keeps this empty). */
export function undescribedConfigKeys(node: JsonSchemaNode = runConfigInputJsonSchema(), path = ""): string[] {
  const missing: string[] = [];
  for (const option of node.anyOf ?? node.oneOf ?? []) missing.push(...undescribedConfigKeys(option, path));
  if (node.items !== undefined) missing.push(...undescribedConfigKeys(node.items, `${path}[]`));
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    const at = path === "" ? key : `${path}.${key}`;
    if (child.description === undefined) missing.push(at);
    missing.push(...undescribedConfigKeys(child, at));
  }
  return [...new Set(missing)];
}
