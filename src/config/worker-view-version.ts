/**
 * @module
 * The format version of the companion Worker's view (`worker-view.ts`), shared by its schema and
 * the Worker's zod-free reader (`worker-view-read.ts`).
 */

/** The view's format version. A Worker refuses a view of another version with a clear error. */
export const workerViewVersion = 1;
