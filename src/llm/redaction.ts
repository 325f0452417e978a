/**
 * Keeping secrets out of everything AEB prints, stores or throws.
 *
 * Why: run records, reports and error messages end up in logs, CI artifacts
 * and papers' supplementary material. An API key must never reach them, even
 * when a server echoes it back (OpenAI's 401 message quotes part of the key,
 * some proxies quote all of it) or a user pastes credentials into a base URL.
 */

/** Placeholder that replaces secrets in text. */
export const REDACTED = "[REDACTED]";

/**
 * The form of a base URL that is safe to show: no user-info (`user:pass@`),
 * no query string (Azure-style `?api-key=`), no fragment, no trailing slash.
 * Unparseable input is not echoed back (it may itself be a secret).
 */
export function displayEndpoint(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return "<invalid base URL>";
  }
  url.username = "";
  url.password = "";
  url.search = "";
  url.hash = "";
  return url.toString().replace(/\/+$/, "");
}

/**
 * Replaces every occurrence of each secret in `text` with {@link REDACTED}.
 * Secrets shorter than 4 characters are ignored: replacing e.g. "a" would
 * mangle messages without protecting anything real.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    out = out.split(secret).join(REDACTED);
  }
  return out;
}
