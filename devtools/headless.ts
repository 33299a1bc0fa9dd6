// The React-free part of the devtools (model, timeline, actions) and its hook: the same in every build.
export {
  createDevtoolsModel,
  DEFAULT_MAX_EVENTS,
  DEFAULT_NOTIFY_INTERVAL_MS,
  type DevtoolsModel,
  type DevtoolsModelOptions,
} from "./model.ts";
export { useDevtoolsModel, devtoolsModelFor } from "./use-devtools-model.ts";
export { Timeline, DEFAULT_TIMELINE_MAX, type TimelineOptions } from "./timeline.ts";
export {
  describeEntry,
  describeReason,
  matches,
  replicasOf,
  type TimelineEntry,
  type TimelineEntryType,
  type TimelineFilter,
} from "./timeline-entry.ts";
export { queryKeys, splitLabel, type KeySort, type KeysQuery } from "./keys-query.ts";
export type {
  DevtoolsClaim,
  DevtoolsEvent,
  DevtoolsKeyRow,
  DevtoolsKeyStatus,
  DevtoolsKind,
  DevtoolsReplica,
  DevtoolsSnapshot,
} from "./types.ts";
