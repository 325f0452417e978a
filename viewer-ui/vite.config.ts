/**
 * Builds the viewer's front end (Preact) into dist/viewer-ui/, which `aeb view` serves. Run by
 * `npm run build`; nothing here runs when the viewer runs.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root: here,
  base: "/",
  // The page loads nothing from elsewhere: no CDN, no web font, no public folder.
  publicDir: false,
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../dist/viewer-ui/", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    // One small script and one style sheet; no inline script (the page's CSP forbids it).
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
  },
});
