/**
 * The server refused our token for `room` (Hocuspocus `permission-denied`). Final: the connection
 * stops instead of retrying, since the same token would be refused by every instance again.
 */
export class HocuspocusAuthError extends Error {
  override readonly name = "HocuspocusAuthError";
  constructor(
    readonly room: string,
    readonly reason: string,
  ) {
    super(`connectHocuspocus: the server refused the token for room ${JSON.stringify(room)} (${reason}); not retrying`);
  }
}

/**
 * The reason a server sends (as an error's `reason` thrown from a hook) when it cannot open the
 * room *for now* — its database unreachable at the room's load. Hocuspocus reports every hook's
 * failure as `permission-denied`, the same message as a refused token; a client told this one
 * connects again after a back-off instead of stopping for good. Any reason starting with it counts.
 */
export const UNAVAILABLE_REASON = "unavailable";
