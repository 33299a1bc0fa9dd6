export { SharedFetchDevtools, type SharedFetchDevtoolsProps, type DevtoolsTab } from "./SharedFetchDevtools.tsx";
export { createDevtoolsModel, DEFAULT_MAX_EVENTS, type DevtoolsModel, type DevtoolsModelOptions } from "./model.ts";
export { useDevtoolsModel, devtoolsModelFor } from "./use-devtools-model.ts";
export type { DevtoolsClaim, DevtoolsEvent, DevtoolsKeyRow, DevtoolsKind, DevtoolsReplica, DevtoolsSnapshot } from "./types.ts";
