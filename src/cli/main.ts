#!/usr/bin/env node
/** The `aeb` executable: the program lives in program.ts, so tests can run it in-process. */
import { main } from "./program.js";

// Output piped into `head` closes early: stop quietly instead of crashing on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

main(process.argv).then((code) => {
  process.exitCode = code;
});
