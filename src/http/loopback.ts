import { isIPv4 } from "node:net";
import { ConfigError } from "../core/errors.js";

/**
 * Which addresses are this machine only, and the rule that keeps an app from listening beyond
 * them unless the user allows it.
 */

/** The Host names a loopback listener always answers to. */
export const LOOPBACK_HOST_NAMES: readonly string[] = ["127.0.0.1", "localhost", "[::1]"];

/**
 * Is this listen address certainly this machine only? `localhost` (exactly: a name is resolved by
 * the system, and only this spelling is one every resolver keeps on loopback), an IPv4 address of
 * 127.0.0.0/8, `::1`, or an IPv4-mapped 127.x address; IPv6 literals with or without brackets.
 * Anything else, a mis-typed address included, counts as beyond loopback.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare === "localhost") return true;
  if (isIPv4(bare)) return bare.startsWith("127.");
  const lower = bare.toLowerCase();
  if (lower === "::1") return true;
  return lower.startsWith("::ffff:") && isIPv4(lower.slice("::ffff:".length)) && lower.slice("::ffff:".length).startsWith("127.");
}

/** What listening beyond loopback would expose, and what allows it. */
export interface BindingRule {
  /** The app, as the user started it: `aeb serve`, `aeb view`. */
  app: string;
  /** What the network would get, e.g. `every transcript`. */
  exposes: string;
  /** Whether the user has allowed it (a flag given, a strong enough token set). */
  allowed: boolean;
  /** The sentence that says how to allow it, naming the flag or variable. */
  howToAllow: string;
}

/** Throws a ConfigError naming the host, what it would expose and how to allow it, unless the host is loopback or the rule allows it. */
export function assertSafeBinding(host: string, rule: BindingRule): void {
  if (isLoopbackHost(host) || rule.allowed) return;
  throw new ConfigError(
    `${rule.app} listens on loopback only (127.0.0.1, ::1, localhost); ${host} would expose ${rule.exposes} to the network. ${rule.howToAllow}`,
  );
}

/**
 * The Host names a listener on `host` answers: on loopback, the loopback names, `host` itself and
 * `extra` (a reverse proxy on this machine that forwards its own Host), lower case; beyond loopback
 * undefined: every Host is accepted (what guards the app there is the rule that allowed it).
 */
export function allowedHostNames(host: string, extra: readonly string[] = []): ReadonlySet<string> | undefined {
  if (!isLoopbackHost(host)) return undefined;
  return new Set([...LOOPBACK_HOST_NAMES, host.toLowerCase(), ...extra.map((name) => name.toLowerCase())]);
}

/** The name part of a Host header, lower case (`[::1]:8787` -> `[::1]`, `Example.org:80` -> `example.org`). */
export function hostName(header: string | undefined): string {
  if (header === undefined) return "";
  const lower = header.toLowerCase();
  if (lower.startsWith("[")) return lower.slice(0, lower.indexOf("]") + 1);
  const colon = lower.lastIndexOf(":");
  return colon === -1 ? lower : lower.slice(0, colon);
}
