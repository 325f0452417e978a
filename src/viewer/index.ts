/** `aeb view`: the read-only web app over run directories (docs/viewer.md). */
export { buildViewer, assertViewerBinding, isLoopbackHost, MAX_SIDE_BY_SIDE, type Viewer, type ViewerOptions } from "./viewer-app.js";
export { indexRun, runLabels, disagreementOf, type IndexedDialogue, type RunIndex, type RunFacets, type LineSpan } from "./run-index.js";
export { readRecords } from "./record-store.js";
export { ReplySearch, scanReplies } from "./reply-search.js";
export { loadStaticAssets, VIEWER_UI_DIR } from "./static-assets.js";
export * from "./api-schemas.js";
