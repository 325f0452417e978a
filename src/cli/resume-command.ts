/** A word for a POSIX shell: left as is when it is safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@,+%^-]+$/u.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command that resumes a run: the arguments it was started with (after `aeb`), with `--out
 * DIR` added when the run chose its own directory, so the same command lands in the same place.
 */
export function resumeCommand(args: readonly string[], outDir: string): string {
  const hasOut = args.some((arg) => arg === "--out" || arg === "-o" || arg.startsWith("--out="));
  const words = ["aeb", ...args, ...(hasOut ? [] : ["--out", outDir])];
  return words.map(shellWord).join(" ");
}
