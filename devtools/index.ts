/**
 * `shared-fetch/devtools`. As with TanStack's devtools, the components render nothing outside
 * development: with `process.env.NODE_ENV` replaced by the bundler, a production build keeps
 * none of the panel's code (tree-shaken; measured by test/devtools/production-build.test.ts).
 * To ship the panel on purpose, import from `shared-fetch/devtools/production`.
 */
import type { ReactNode } from "react";
import * as Devtools from "./production.ts";

const off = process.env.NODE_ENV !== "development";

type Component<P> = (props: P) => ReactNode;

export const SharedFetchDevtools: Component<Devtools.SharedFetchDevtoolsProps> = off ? () => null : Devtools.SharedFetchDevtools;
export const SharedFetchDevtoolsPanel: Component<Devtools.SharedFetchDevtoolsPanelProps> = off ? () => null : Devtools.SharedFetchDevtoolsPanel;
/** Outside development, a plugin whose panel renders nothing (the shell still lists it). */
export const sharedFetchDevtoolsPlugin: typeof Devtools.sharedFetchDevtoolsPlugin = off ? () => ({ id: "shared-fetch", name: "shared-fetch", render: null }) : Devtools.sharedFetchDevtoolsPlugin;
export type { SharedFetchDevtoolsProps, SharedFetchDevtoolsPanelProps, DevtoolsTab, SharedFetchDevtoolsPlugin } from "./production.ts";
export * from "./headless.ts";
