import type { ReactElement } from "react";
import { SharedFetchDevtoolsPanel, type SharedFetchDevtoolsPanelProps } from "./SharedFetchDevtoolsPanel.tsx";

/**
 * The shape `<TanStackDevtools plugins={[…]} />` (@tanstack/react-devtools) takes for one plugin.
 * `defaultOpen` is left out rather than undefined: the shell's type refuses undefined there under
 * `exactOptionalPropertyTypes`.
 */
export type SharedFetchDevtoolsPlugin = { id: string; name: string; render: ReactElement; defaultOpen?: boolean };

/**
 * A TanStack Devtools plugin: the panel sits beside the Query devtools in one shell.
 * `<TanStackDevtools plugins={[{ name: "TanStack Query", render: <ReactQueryDevtoolsPanel /> }, sharedFetchDevtoolsPlugin({ store })]} />`
 * Its development simulations follow the panel's default for the entry it came from (see `simulations`).
 */
export function sharedFetchDevtoolsPlugin(
  props: Omit<SharedFetchDevtoolsPanelProps, "onClose"> & { defaultOpen?: boolean | undefined },
): SharedFetchDevtoolsPlugin {
  const { defaultOpen, ...panel } = props;
  const plugin: SharedFetchDevtoolsPlugin = {
    id: "shared-fetch",
    name: "shared-fetch",
    render: <SharedFetchDevtoolsPanel {...panel} style={{ border: "none", borderRadius: 0, height: "100%" }} />,
  };
  if (defaultOpen !== undefined) plugin.defaultOpen = defaultOpen;
  return plugin;
}
