// Lint config: typescript-eslint's recommended rules over the sources and tests.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "runs/", "coverage/", "**/*.py", ".venv*/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Node scripts in plain JavaScript.
    files: ["**/*.mjs"],
    languageOptions: { globals: { console: "readonly", process: "readonly", setTimeout: "readonly" } },
  },
  {
    // CommonJS config files of tools (dependency-cruiser reads .cjs).
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly" } },
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "off",
    },
  },
);
