/**
 * Bound on a worker's answer to a hello. A cold worker opens IndexedDB first (tens to hundreds of
 * milliseconds measured here, more on a loaded machine); a script that 404s or throws never answers.
 */
export const WORKER_READY_MS = 5000;

/**
 * How long a tab waits, hearing nothing from its worker, before it starts the same worker once
 * more to learn whether its script loads. A browser fires a failed script's `error` at the
 * SharedWorker objects connected to it, but a tab that connects while that worker is being torn
 * down may hear nothing (the HTML spec allows it). Three chromium tabs on a 404ing script, opened
 * at once, had a tab hear nothing in 5 boots of 79, every tab at times; with the probe, 0 of 40.
 * The probe finds no worker then, starts a fresh one, and hears its `error`; a worker that is
 * only slow takes the probe as one more port that never says hello.
 */
export const WORKER_PROBE_MS = 1000;

/** How long after a takeover a tab waits before it starts the next standby (see `ready`). */
export const STANDBY_AFTER_TAKEOVER_MS = 1000;
