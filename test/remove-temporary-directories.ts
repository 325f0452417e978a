/**
 * A vitest setup file (it runs before each test file, in the file's own context): after the file's
 * last test, remove the temporary directories its tests made (test/helpers/temporary-directory.ts).
 */
import { afterAll } from "vitest";
import { removeTemporaryDirectories } from "./helpers/temporary-directory.js";

afterAll(removeTemporaryDirectories);
