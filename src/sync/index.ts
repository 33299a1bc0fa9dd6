export { connectTabs } from "./connect-tabs.ts";
export type { TabsOptions } from "./tabs-options.ts";
export { clearTabsStorage } from "./clear-tabs-storage.ts";
export { connectPeers, type PeersOptions, type PeerConnection, type WebSocketConstructor } from "./connect-peers.ts";
export { getBrowserId } from "../core/browser-id.ts";
export { connectionLostOrigin, type Connection } from "./connection.ts";
