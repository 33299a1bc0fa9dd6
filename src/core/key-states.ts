import { IDLE_STATES, type KeyState } from "./job.ts";
import type { WorkKind } from "./key.ts";
import type { RecordMap } from "./lanes.ts";
import type { ResultRecord } from "./records.ts";

/**
 * The engine's per-key states and the two things that wake a key: a change seen in the doc (marked
 * dirty, decided a microtask later, outside the writer's transaction — pitfall 1) and a re-check
 * timer (invariant 9). It owns every such timer, so stop() leaves none behind.
 */
export class KeyStates {
  private readonly states = new Map<string, KeyState>();
  private readonly dirty = new Set<string>();
  private flushQueued = false;
  private stopped = false;
  /** Trim when the map reaches this size: raised past the busy states, so one scan serves many new keys. */
  private trimAt = IDLE_STATES;

  constructor(private readonly hooks: { refresh(st: KeyState): void; beforeFlush(): void }) {}

  get(key: string, kind: WorkKind, results: RecordMap<ResultRecord>): KeyState {
    let st = this.states.get(key);
    if (!st) {
      st = { key, kind, results, waiters: new Set(), listeners: new Set(), nonces: [], settled: 0 };
      // Trim before adding: the new state has no waiter yet, and its caller is about to add one.
      if (this.states.size >= this.trimAt) this.trimIdle();
      this.states.set(key, st);
    }
    return st;
  }

  peek(key: string): KeyState | undefined {
    return this.states.get(key);
  }

  all(): IterableIterator<KeyState> {
    return this.states.values();
  }

  markDirty(keys: Iterable<string>): void {
    if (this.stopped) return;
    for (const k of keys) this.dirty.add(k);
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => this.flush());
  }

  /** Wake the key at `at` (its claim would go stale then), unless an earlier wake-up is armed. */
  recheckAt(st: KeyState, at: number): void {
    const now = Date.now();
    // A deadline passed since the verdict that named it (a millisecond ticked in between, or the
    // loop was busy) wakes the key at once: nothing else may wake it (a crashed claimant is silent).
    if (this.stopped || at === Infinity) return;
    if (st.timer !== undefined && (st.timerAt ?? Infinity) <= at) return;
    this.clearTimer(st);
    st.timerAt = at;
    st.timer = setTimeout(
      () => {
        st.timer = undefined;
        st.timerAt = undefined;
        if (!this.stopped) this.hooks.refresh(st);
      },
      Math.max(0, at - now),
    );
  }

  /** Nobody is interested any more. */
  drop(st: KeyState): void {
    this.clearTimer(st);
    this.states.delete(st.key);
  }

  stop(): void {
    this.stopped = true;
    for (const st of this.states.values()) this.clearTimer(st);
    this.dirty.clear();
  }

  private flush(): void {
    this.flushQueued = false;
    if (this.stopped) return;
    this.hooks.beforeFlush();
    const keys = [...this.dirty];
    this.dirty.clear();
    for (const key of keys) {
      const st = this.states.get(key);
      if (st) this.hooks.refresh(st);
    }
  }

  /** States made by snapshot() alone keep their snapshot's identity for a while, not forever. */
  private trimIdle(): void {
    let excess = this.states.size - IDLE_STATES / 2;
    for (const st of this.states.values()) {
      if (excess <= 0) break;
      if (st.waiters.size || st.listeners.size || st.attempt) continue;
      this.drop(st);
      excess--;
    }
    // Busy states stay: the next scan waits for IDLE_STATES / 2 more states, so at most about
    // IDLE_STATES are idle however many are busy, and a scan is shared by that many new keys.
    this.trimAt = Math.max(IDLE_STATES, this.states.size + IDLE_STATES / 2);
  }

  private clearTimer(st: KeyState): void {
    if (st.timer !== undefined) clearTimeout(st.timer);
    st.timer = undefined;
    st.timerAt = undefined;
  }
}
