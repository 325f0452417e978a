/** The arguments `aeb` was started with (after `aeb` itself), for messages that repeat the command. */
let current: readonly string[] = [];

export function setInvocationArgs(args: readonly string[]): void {
  current = [...args];
}

export function invocationArgs(): readonly string[] {
  return current;
}
