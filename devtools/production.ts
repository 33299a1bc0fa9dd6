/**
 * `shared-fetch/devtools/production`: the panel in every build, production included (TanStack's
 * convention — import from here to ship the devtools to production on purpose, e.g. lazily).
 */
export { SharedFetchDevtools, type SharedFetchDevtoolsProps } from "./SharedFetchDevtools.tsx";
export { SharedFetchDevtoolsPanel, type SharedFetchDevtoolsPanelProps, type DevtoolsTab } from "./SharedFetchDevtoolsPanel.tsx";
export { sharedFetchDevtoolsPlugin, type SharedFetchDevtoolsPlugin } from "./plugin.tsx";
export * from "./headless.ts";
