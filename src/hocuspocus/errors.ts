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
