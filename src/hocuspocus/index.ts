// `shared-fetch/hocuspocus`: its own entry, so that apps on y-websocket neither bundle nor install
// @hocuspocus/provider (an optional peer dependency).
export { connectHocuspocus, type HocuspocusOptions, type HocuspocusConnection } from "./connect-hocuspocus.ts";
export { HocuspocusAuthError, UNAVAILABLE_REASON } from "./errors.ts";
