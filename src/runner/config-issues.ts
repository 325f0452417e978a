/**
 * A run config's validation errors, said so a person can fix them without reading the source:
 * every issue names its key, an unknown key or value gets "did you mean" (or the keys and values
 * that are allowed), and a missing key says what it is for. The allowed keys and what they mean
 * come from the config's JSON Schema (the descriptions on the zod schema), walked along the path
 * of each issue with the value that was given, so `kind` picks the right variant of a union.
 */
import type { z } from "zod";
import { editDistance } from "../scenarios/load-scenarios.js";

/** The part of JSON Schema the walk reads. */
export interface JsonSchemaNode {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
  oneOf?: JsonSchemaNode[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  additionalProperties?: boolean | JsonSchemaNode;
}

type Issue = z.core.$ZodIssue;

/** The closest candidates to `given`, when close enough to be a typo. */
export function nearest(given: string, candidates: readonly string[]): string[] {
  const scored = candidates.map((candidate) => ({ candidate, distance: editDistance(given.toLowerCase(), candidate.toLowerCase()) }));
  const limit = Math.max(2, Math.floor(given.length / 3));
  const best = Math.min(...scored.map((entry) => entry.distance));
  return best > limit ? [] : scored.filter((entry) => entry.distance === best).map((entry) => entry.candidate);
}

/** The variants of a union node, or the node itself. */
function variants(node: JsonSchemaNode): JsonSchemaNode[] {
  return node.anyOf ?? node.oneOf ?? [node];
}

/** The variant of a union a value is meant for: the one whose `kind` const matches, else the only object variant. */
function variantFor(node: JsonSchemaNode, value: unknown): JsonSchemaNode {
  const options = variants(node);
  if (options.length === 1) return options[0]!;
  const kind = typeof value === "object" && value !== null ? (value as { kind?: unknown }).kind : undefined;
  const byKind = options.find((option) => option.properties?.kind?.const === kind);
  if (byKind !== undefined) return byKind;
  const objects = options.filter((option) => option.properties !== undefined);
  return objects.length === 1 ? objects[0]! : node;
}

/** The schema node and the given value at `path`. */
function nodeAt(
  root: JsonSchemaNode,
  raw: unknown,
  path: readonly PropertyKey[],
): { node: JsonSchemaNode | undefined; union: JsonSchemaNode | undefined; value: unknown } {
  let node: JsonSchemaNode | undefined = root;
  let value = raw;
  for (const part of path) {
    if (node === undefined) break;
    node = variantFor(node, value);
    if (typeof part === "number") node = node.items;
    else node = node.properties?.[String(part)];
    value = typeof value === "object" && value !== null ? (value as Record<PropertyKey, unknown>)[part] : undefined;
  }
  return { node: node === undefined ? undefined : variantFor(node, value), union: node, value };
}

const quote = (value: unknown) => JSON.stringify(value);

/** The key's path as formatIssues writes it (`conditions.[0].agent`), so every config error reads alike. */
function pathText(path: readonly PropertyKey[]): string {
  const text = path.map((part) => (typeof part === "number" ? `[${part}]` : String(part))).join(".");
  return text === "" ? "(top level)" : text;
}

/** Enum values a node (or any variant of it) accepts. */
function allowedValues(node: JsonSchemaNode | undefined): string[] {
  if (node === undefined) return [];
  return variants(node)
    .flatMap((option) => [...(option.enum ?? []), ...(option.const !== undefined ? [option.const] : [])])
    .filter((value): value is string => typeof value === "string");
}

/** One issue as a line a person can act on. */
function explainIssue(issue: Issue, root: JsonSchemaNode, raw: unknown): string {
  const where = pathText(issue.path);
  if (issue.code === "unrecognized_keys") {
    const { node } = nodeAt(root, raw, issue.path);
    const known = Object.keys(node?.properties ?? {});
    return issue.keys
      .map((key) => {
        const close = nearest(key, known);
        const hint =
          close.length > 0
            ? `did you mean ${close.map(quote).join(" or ")}?`
            : `${where === "(top level)" ? "the top level" : where} takes: ${known.join(", ")}`;
        return `${where === "(top level)" ? "" : `${where}: `}unknown key ${quote(key)}: ${hint} (docs/config-reference.md)`;
      })
      .join("\n  - ");
  }
  const { node, union, value } = nodeAt(root, raw, issue.path);
  const meaning = node?.description === undefined ? "" : ` (${node.description})`;
  if (issue.code === "invalid_type" && value === undefined) return `${where}: missing; it is required${meaning}`;
  if (issue.code === "invalid_value" || issue.code === "invalid_union") {
    const allowed =
      issue.code === "invalid_value" ? issue.values.filter((item): item is string => typeof item === "string") : allowedValues(union);
    if (allowed.length > 0 && typeof value === "string") {
      const close = nearest(value, allowed);
      const keys = union === undefined ? [] : variants(union).flatMap((option) => Object.keys(option.properties ?? {}));
      return `${where}: ${quote(value)} is not allowed; one of ${allowed.join(", ")}${keys.length > 0 ? `, or { ${keys.join(", ")} }` : ""}${close.length > 0 ? `: did you mean ${close.map(quote).join(" or ")}?` : ""}`;
    }
  }
  return `${where}: ${issue.message}${issue.code === "invalid_type" ? meaning : ""}`;
}

/** The issues of a failed parse, one `  - ` line each. */
export function explainConfigIssues(issues: readonly Issue[], root: JsonSchemaNode, raw: unknown): string {
  return issues.map((issue) => `  - ${explainIssue(issue, root, raw)}`).join("\n");
}
