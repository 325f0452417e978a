import { createHash, createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from "node:crypto";
import { z } from "zod";
import { TurnSummarySchema } from "../episode/episode-record.js";
import { EpisodeStateSchema } from "../episode/episode-state.js";
import { RewardModeSchema } from "../reward/reward-mode.js";
import { EnvironmentError } from "./environment-error.js";

/**
 * The state token of the stateless API: the episode state minus the visible history, signed with
 * HMAC-SHA256. The history is bound by its SHA-256, so a step must come with exactly the messages
 * the token was issued for. A token is deterministic (no time, no nonce): the same state always
 * gives the same token, which is what makes a repeated step idempotent.
 *
 * Format: `v1.<base64url(JSON payload)>.<base64url(HMAC-SHA256(key, "aeb-env-token.v1." + payload part))>`,
 * base64url without padding. Only that one encoding is accepted: the signature must be exactly the
 * canonical base64url of the MAC (no padding, no `+` or `/`, no other spelling of the same bytes).
 * Signed, not encrypted: whoever holds a token can read the emotion, the seed and the simulator's
 * memory. Give tokens to the trainer, never to the policy.
 */
export const TOKEN_VERSION = "v1";
const SIGNING_CONTEXT = `aeb-env-token.${TOKEN_VERSION}.`;
/** Unpadded base64url, as the payload part is written. */
const BASE64URL = /^[A-Za-z0-9_-]*$/;
/** Secrets shorter than this are refused: a guessable key lets anyone forge emotions. */
export const MIN_SECRET_BYTES = 16;

/**
 * Carried by the tokens of a server that records episodes (`aeb serve --record`): what the record of
 * the finished episode needs beyond the messages of its last step. Signed like the rest, so the
 * record cannot be forged by the client.
 */
export const RecordingStateSchema = z.strictObject({
  /** Random at reset: tells apart episodes that share an episode id (GRPO samples of one prompt, epochs). */
  nonce: z.string(),
  /** The record's condition: the reset's `tags.condition`, else the server's `--record-condition`. */
  condition: z.string(),
  /** The trainer's step, as the reset gave it. */
  trainerStep: z.number().int().min(0).optional(),
  /** The reset's tags. */
  tags: z.record(z.string(), z.string()).optional(),
  /** One summary per finished turn, oldest first. */
  turns: z.array(TurnSummarySchema),
});
export type RecordingState = z.infer<typeof RecordingStateSchema>;

/**
 * The token's payload: the episode state without its visible history (bound by `historyHash`, the
 * client sends the messages), plus what the server adds to it.
 */
export const TokenPayloadSchema = EpisodeStateSchema.omit({ history: true }).extend({
  /** Fingerprint of the scenario's content, so a replica with a different file refuses the token. */
  scenarioHash: z.string(),
  /** Id of the simulated user that issued the state. */
  simulator: z.string(),
  rewardMode: RewardModeSchema,
  episodeId: z.string(),
  /** The run seed and repeat the episode was reset with (reported back to clients); `seed` is the episode seed derived from them. */
  runSeed: z.number().int(),
  repeat: z.number().int(),
  /** SHA-256 (base64url) of the canonical encoding of the visible history. */
  historyHash: z.string(),
  /** Present when the server that reset the episode records episodes. */
  record: RecordingStateSchema.optional(),
});
export type TokenPayload = z.infer<typeof TokenPayloadSchema>;

type HistoryMessage = { role: string; content: string };

/** The canonical encoding of a history: a JSON array of [role, content] pairs (key order cannot vary). */
export function hashHistory(messages: readonly HistoryMessage[]): string {
  return new HistoryHash(messages).digest();
}

/**
 * The hash of a history that can go on with the messages a step adds, so a step reads its history
 * once: the digest of the messages it was sent (checked against the token), then of those followed
 * by the new turn (signed into the next token). The same encoding as `hashHistory`: the array's
 * JSON is `[` + each pair's JSON joined by `,` + `]`, and SHA-256 is fed it in pieces, the closing
 * bracket on a copy of the running hash.
 */
export class HistoryHash {
  private readonly hash = createHash("sha256");
  private empty = true;

  constructor(messages: readonly HistoryMessage[]) {
    this.hash.update("[");
    this.append(messages);
  }

  /** Adds messages after the ones hashed so far. */
  append(messages: readonly HistoryMessage[]): this {
    let text = "";
    for (const message of messages) {
      text += `${this.empty ? "" : ","}${JSON.stringify([message.role, message.content])}`;
      this.empty = false;
    }
    if (text !== "") this.hash.update(text, "utf8");
    return this;
  }

  /** The digest of the messages so far (base64url); hashing may go on after it. */
  digest(): string {
    return this.hash.copy().update("]").digest("base64url");
  }
}

/** A fresh random secret (for a single replica started without one). */
export function randomSecret(): Buffer {
  return randomBytes(32);
}

/** How many of the tokens it signed last a codec remembers (see StateTokenCodec). */
export const SIGNED_TOKEN_MEMORY = 4096;

/**
 * Signs and verifies state tokens. It remembers the last SIGNED_TOKEN_MEMORY tokens it signed, with
 * their payload's JSON: a trainer sends back the token the server just gave it, so on one replica
 * most steps verify a token of this codec's own, and one whose text is exactly what it signed needs
 * neither the HMAC nor the payload check again (one HMAC per step, the signing of the next token).
 * The payload comes from the remembered JSON, parsed anew, so a caller that changes it changes
 * nothing remembered; its fields and key order are those of the checked path (state-token.test.ts
 * proves it over whole episodes). Any other token, from another replica or before a restart, is
 * checked in full.
 */
export class StateTokenCodec {
  private readonly key: KeyObject;
  /** Token -> its payload's JSON, oldest first (a Map keeps insertion order). */
  private readonly signed = new Map<string, string>();

  constructor(
    secret: string | Buffer,
    private readonly memory: number = SIGNED_TOKEN_MEMORY,
  ) {
    const key = typeof secret === "string" ? Buffer.from(secret, "utf8") : secret;
    if (key.length < MIN_SECRET_BYTES) throw new Error(`the token secret must be at least ${MIN_SECRET_BYTES} bytes`);
    // Derive the signing key so the configured secret is never used directly for anything else.
    this.key = createSecretKey(createHmac("sha256", key).update("aeb-env-token-key").digest());
  }

  sign(payload: TokenPayload): string {
    const json = JSON.stringify(payload);
    const body = Buffer.from(json, "utf8").toString("base64url");
    const token = `${TOKEN_VERSION}.${body}.${this.mac(body).toString("base64url")}`;
    if (this.memory > 0) {
      if (this.signed.size >= this.memory && !this.signed.has(token)) this.signed.delete(this.signed.keys().next().value as string);
      this.signed.set(token, json);
    }
    return token;
  }

  /** Checks the signature, then the payload's shape; anything wrong is a 400 `invalid_token`. */
  verify(token: string): TokenPayload {
    const remembered = this.signed.get(token);
    if (remembered !== undefined) return JSON.parse(remembered) as TokenPayload;
    return this.check(token);
  }

  /** The full check of a token this codec does not remember signing. */
  private check(token: string): TokenPayload {
    const parts = token.split(".");
    if (parts.length !== 3 || parts[0] !== TOKEN_VERSION) {
      throw invalidToken(`the token is malformed (expected ${TOKEN_VERSION}.<payload>.<signature>)`);
    }
    const [, body, signature] = parts as [string, string, string];
    // Compared as text: one canonical spelling of the MAC is accepted, not every string that decodes to it.
    const expected = Buffer.from(this.mac(body).toString("base64url"), "latin1");
    const given = Buffer.from(signature, "latin1");
    if (given.length !== expected.length || !timingSafeEqual(given, expected) || !BASE64URL.test(body)) {
      throw invalidToken("the token's signature does not verify: it was altered, or issued by a server with another secret");
    }
    let raw: unknown;
    try {
      raw = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
    } catch {
      throw invalidToken("the token's payload is not readable");
    }
    const parsed = TokenPayloadSchema.safeParse(raw);
    if (!parsed.success) throw invalidToken("the token's payload is not an episode state of this server version");
    return parsed.data;
  }

  private mac(body: string): Buffer {
    return createHmac("sha256", this.key).update(SIGNING_CONTEXT).update(body).digest();
  }
}

function invalidToken(message: string): EnvironmentError {
  return new EnvironmentError(400, "invalid_token", message);
}
