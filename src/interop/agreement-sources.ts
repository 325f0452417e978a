/**
 * The simulated users `aeb agreement` compares, read from its arguments. Each argument is one
 * simulated user: `LABEL=PATH[,PATH...]` or a bare `PATH`, where a path is a run directory (of
 * `aeb run` or `aeb import sage`), a `dialogues.jsonl`, a directory of SAGE `*_result.jsonl`
 * files, or one SAGE result file. A bare argument is labelled by what records its simulated user
 * (run.json's simulator, import.json's), else by its folder (interop/simulated-users.ts).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { outcomeOfEndReason, type AgreementDialogue, type SimulatedUserResults } from "../analysis/agreement.js";
import { AebError } from "../core/errors.js";
import { scanDialogues } from "../record/dialogue-reader.js";
import { DIALOGUES_FILE } from "../record/files.js";
import { readConditionOrder } from "../record/load-run.js";
import { readSageResultFile, type SkippedLine } from "./sage-results.js";
import { simulatedUsersOfDirectory, simulatorOfSageFolder } from "./simulated-users.js";

/** One argument of `aeb agreement`: an optional label and the paths of one simulated user. */
export interface SimulatedUserArgument {
  label?: string;
  paths: string[];
}

/** `LABEL=PATH[,PATH...]` or `PATH`; a `=` after a `/` belongs to the path. */
export function parseSimulatedUserArgument(argument: string): SimulatedUserArgument {
  const equals = argument.indexOf("=");
  const slash = argument.indexOf("/");
  const labelled = equals >= 0 && (slash === -1 || equals < slash);
  const label = labelled ? argument.slice(0, equals).trim() : undefined;
  const paths = (labelled ? argument.slice(equals + 1) : argument).split(",").map((path) => path.trim());
  if (label === "") throw new AebError(`"${argument}": the label before "=" is empty (use LABEL=PATH[,PATH...] or a bare PATH)`);
  if (paths.some((path) => path === "")) throw new AebError(`"${argument}": an empty path (use LABEL=PATH[,PATH...] or a bare PATH)`);
  return { ...(label !== undefined ? { label } : {}), paths };
}

/** One simulated user as read, with what was left out on the way. */
export interface LoadedSimulatedUser extends SimulatedUserResults {
  /** Lines of SAGE result files that did not parse (left out). */
  skipped: SkippedLine[];
  /** Problems that leave the rest usable (a torn last line). */
  readingNotes: string[];
}

interface LoadedPath {
  dialogues: AgreementDialogue[];
  /** The simulated user the path's own record names, or its folder's name. */
  label: string;
  skipped: SkippedLine[];
  readingNotes: string[];
}

const SAGE_RESULT_SUFFIX = "_result.jsonl";

function sageFileDialogues(file: string): { dialogues: AgreementDialogue[]; skipped: SkippedLine[] } {
  const read = readSageResultFile(file);
  const dialogues = read.records.map((record) => ({
    condition: record.condition,
    scenarioId: record.scenarioId,
    repeat: record.repeat,
    status: record.status,
    finalEmotion: record.final.emotion,
    outcome: outcomeOfEndReason(record.endReason),
  }));
  return { dialogues, skipped: read.skipped };
}

function runDirectoryPath(dir: string): LoadedPath {
  const dialogues: AgreementDialogue[] = [];
  const { tornTail } = scanDialogues(
    dir,
    (record) =>
      dialogues.push({
        condition: record.condition,
        scenarioId: record.scenarioId,
        repeat: record.repeat,
        status: record.status,
        finalEmotion: record.final.emotion,
        outcome: outcomeOfEndReason(record.endReason),
      }),
    { judgements: false },
  );
  if (dialogues.length === 0) throw new AebError(`${join(dir, DIALOGUES_FILE)} holds no dialogue`);
  // Agents in the run's condition order (run.json), whatever order the dialogues finished in.
  const order = readConditionOrder(dir);
  const position = (condition: string) => (order.includes(condition) ? order.indexOf(condition) : order.length);
  dialogues.sort(
    (x, y) => position(x.condition) - position(y.condition) || (x.condition < y.condition ? -1 : x.condition > y.condition ? 1 : 0),
  );
  const readingNotes = tornTail
    ? [`${join(dir, DIALOGUES_FILE)} ends with a torn line (an interrupted write); the complete dialogues before it were used`]
    : [];
  const users = simulatedUsersOfDirectory(dir);
  if (users.from === "nothing") return { dialogues, label: basename(resolve(dir)), skipped: [], readingNotes };
  const labels = [...new Set(dialogues.map((dialogue) => users.of(dialogue.condition)))];
  if (labels.length > 1)
    throw new AebError(
      `${dir} holds the results of ${labels.length} simulated users (${labels.join(", ")}, by ${users.from}); give each its own argument`,
    );
  return { dialogues, label: labels[0] as string, skipped: [], readingNotes };
}

/** Reads one path of a simulated user (see the module's comment), or an error naming what is wrong with it. */
function loadPath(path: string): LoadedPath {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) throw new AebError(`${path} does not exist`);
  if (stat.isDirectory()) {
    if (existsSync(join(path, DIALOGUES_FILE))) return runDirectoryPath(path);
    const files = readdirSync(path)
      .filter((name) => name.endsWith(SAGE_RESULT_SUFFIX))
      .sort();
    if (files.length === 0)
      throw new AebError(
        `${path} has neither ${DIALOGUES_FILE} nor SAGE result files (*${SAGE_RESULT_SUFFIX}); give a run directory, a directory of result files, or a file`,
      );
    const read = files.map((name) => sageFileDialogues(join(path, name)));
    return {
      dialogues: read.flatMap((file) => file.dialogues),
      label: simulatorOfSageFolder(join(path, files[0] as string)),
      skipped: read.flatMap((file) => file.skipped),
      readingNotes: [],
    };
  }
  if (basename(path) === DIALOGUES_FILE) return runDirectoryPath(dirname(path));
  const read = sageFileDialogues(path);
  return { dialogues: read.dialogues, label: simulatorOfSageFolder(path), skipped: read.skipped, readingNotes: [] };
}

/** Reads one simulated user: every path of the argument, labelled as the argument says or as its paths record. */
export function loadSimulatedUser(argument: SimulatedUserArgument): LoadedSimulatedUser {
  const loaded = argument.paths.map(loadPath);
  let label = argument.label;
  if (label === undefined) {
    const labels = [...new Set(loaded.map((path) => path.label))];
    if (labels.length > 1) {
      const named = argument.paths.map((path, index) => `${loaded[index]?.label} from ${path}`).join(", ");
      throw new AebError(
        `the paths of one simulated user name different simulated users (${named}); label it: LABEL=${argument.paths.join(",")}`,
      );
    }
    label = labels[0] as string;
  }
  return {
    label,
    sources: argument.paths,
    dialogues: loaded.flatMap((path) => path.dialogues),
    skipped: loaded.flatMap((path) => path.skipped),
    readingNotes: loaded.flatMap((path) => path.readingNotes),
  };
}
