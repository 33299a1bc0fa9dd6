/**
 * A worker with no tab left retires after this long. A page that destroys its store (a logout in
 * a single-page app) must not leave the user's doc and sync socket open in a worker for as long
 * as the page lives; a reload's new page says hello within this, so retiring never costs it the
 * worker the browser kept.
 */
export const RETIRE_AFTER_MS = 5000;

/** A warm standby's IndexedDB persistence starts at most this long after its promotion (see promote). */
export const PERSIST_AFTER_MS = 250;
