/**
 * The viewer's front end, built by `npm run build` (vite, from viewer/) into dist/viewer-ui/ and
 * shipped in the package. At start the server reads the whole folder into memory (a few hundred
 * kilobytes) and serves it from there by exact URL path: a path in a URL is looked up in that
 * table and never joined onto a directory, so no request can reach another file.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { packageRoot } from "../core/data-files.js";
import { AebError } from "../core/errors.js";

/** Where `npm run build` puts the front end. */
export const VIEWER_UI_DIR = join(packageRoot, "dist", "viewer-ui");

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json; charset=utf-8",
  ".ico": "image/x-icon",
  ".png": "image/png",
};

export interface StaticAsset {
  body: Buffer;
  contentType: string;
  /** Hashed file names (under /assets/) never change content: cache them for good. */
  immutable: boolean;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

/** The built front end by URL path (`/index.html`, `/assets/index-1a2b3c.js`...). */
export function loadStaticAssets(dir: string = VIEWER_UI_DIR): Map<string, StaticAsset> {
  if (!existsSync(join(dir, "index.html"))) {
    throw new AebError(`the viewer's front end is not built (no ${join(dir, "index.html")}); run npm run build in the aeb package`);
  }
  const assets = new Map<string, StaticAsset>();
  for (const path of filesUnder(dir)) {
    const urlPath = `/${relative(dir, path).split(sep).join("/")}`;
    assets.set(urlPath, {
      body: readFileSync(path),
      contentType: CONTENT_TYPES[extname(path)] ?? "application/octet-stream",
      immutable: urlPath.startsWith("/assets/"),
    });
  }
  return assets;
}
