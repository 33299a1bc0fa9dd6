/**
 * `shared-fetch/devtools`. As with TanStack's devtools, the components render nothing outside
 * development: with `process.env.NODE_ENV` replaced by the bundler, a production build keeps
 * none of the panel's code (tree-shaken; measured by test/devtools/production-build.test.ts).
 * To ship the panel on purpose, import from `shared-fetch/devtools/production` (its development
 * simulations are off unless `simulations` is given; here they are on).
 */
import { createElement, Fragment, type ReactNode } from "react";
import * as Dev from "./development.tsx";
import type * as Devtools from "./production.ts";

/** A function component of the panel (exported: the public declarations name it). */
export type Component<P> = (props: P) => ReactNode;
// Bundlers replace `process.env.NODE_ENV`; declared here so apps without Node types compile.
declare const process: { env: { NODE_ENV?: string } };

// The condition is written out in each export, as TanStack does: every bundler folds it there
// (esbuild does not fold a shared `const off = …`), and then drops the unused panel.
export const SharedFetchDevtools: Component<Devtools.SharedFetchDevtoolsProps> =
  process.env.NODE_ENV !== "development" ? () => null : Dev.SharedFetchDevtools;
export const SharedFetchDevtoolsPanel: Component<Devtools.SharedFetchDevtoolsPanelProps> =
  process.env.NODE_ENV !== "development" ? () => null : Dev.SharedFetchDevtoolsPanel;
/** Outside development, a plugin whose panel renders nothing (the shell still lists it). */
export const sharedFetchDevtoolsPlugin: typeof Devtools.sharedFetchDevtoolsPlugin =
  process.env.NODE_ENV !== "development"
    ? () => ({ id: "shared-fetch", name: "shared-fetch", render: createElement(Fragment) })
    : Dev.sharedFetchDevtoolsPlugin;
export type { SharedFetchDevtoolsProps, SharedFetchDevtoolsPanelProps, DevtoolsTab, SharedFetchDevtoolsPlugin } from "./production.ts";
export * from "./headless.ts";
