"use client";

import { useSyncExternalStore } from "react";
import type { Awareness } from "y-protocols/awareness";
import type { SharedFetchStore } from "./core.ts";
import { createDevtoolsModel, type DevtoolsModel } from "./model.ts";
import type { DevtoolsSnapshot } from "./types.ts";

// One model per store (and awareness), created on first use and kept as long as the store lives:
// the event log keeps recording while the panel is closed or remounted (StrictMode, HMR), and a
// destroyed store simply stops feeding it. Keyed weakly, so a dropped store takes its model along.
const models = new WeakMap<SharedFetchStore, Map<Awareness | undefined, DevtoolsModel>>();

/** The shared model of a store, created lazily once. */
export function devtoolsModelFor(store: SharedFetchStore, awareness?: Awareness): DevtoolsModel {
  let byAwareness = models.get(store);
  if (!byAwareness) models.set(store, (byAwareness = new Map()));
  let model = byAwareness.get(awareness);
  if (!model) byAwareness.set(awareness, (model = createDevtoolsModel(store, awareness ? { awareness } : {})));
  return model;
}

/** Everything the panel shows of a store, re-rendering only when it changes. */
export function useDevtoolsModel(store: SharedFetchStore, awareness?: Awareness): DevtoolsSnapshot {
  const model = devtoolsModelFor(store, awareness);
  return useSyncExternalStore(model.subscribe, model.getSnapshot, model.getSnapshot);
}
