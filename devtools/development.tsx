/**
 * The components `shared-fetch/devtools` renders in development: the shipped ones with the
 * development simulations on unless `simulations={false}`. The shipped ones keep them off, so a
 * panel shipped on purpose never offers "crash this replica" to whoever opens it.
 */
import * as Shipped from "./production.ts";

export function SharedFetchDevtools(props: Shipped.SharedFetchDevtoolsProps) {
  return <Shipped.SharedFetchDevtools {...props} simulations={props.simulations ?? true} />;
}

export function SharedFetchDevtoolsPanel(props: Shipped.SharedFetchDevtoolsPanelProps) {
  return <Shipped.SharedFetchDevtoolsPanel {...props} simulations={props.simulations ?? true} />;
}

export const sharedFetchDevtoolsPlugin: typeof Shipped.sharedFetchDevtoolsPlugin = (props) =>
  Shipped.sharedFetchDevtoolsPlugin({ ...props, simulations: props.simulations ?? true });
