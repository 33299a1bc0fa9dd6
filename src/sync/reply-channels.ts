import { unrefTimer } from "../core/unref-timer.ts";
import { inboxName } from "./tab-protocol.ts";

/**
 * One channel per asking tab (by its nonce), kept until its sync query is answered: a reply and the
 * answer that follows it must travel on one channel to arrive in order (the answer vouches for the reply).
 */
export type ReplyChannels = Map<string, BroadcastChannel>;

/** Reply channels kept open at once, for askers whose sync query has not come yet. */
const MAX_REPLY_CHANNELS = 32;

/** Posts `frame` to the inbox of tab `to` of `name`; `last`: its handshake is answered, its channel closes. */
export function postReply(channels: ReplyChannels, name: string, to: string, frame: Uint8Array, last: boolean): void {
  let out = channels.get(to);
  if (out === undefined) {
    // An asker that never sends its query (gone, or an older version) must not leave channels behind.
    if (channels.size >= MAX_REPLY_CHANNELS) closeReplyChannel(channels, channels.keys().next().value!);
    out = unrefTimer(new BroadcastChannel(inboxName(name, to)));
    channels.set(to, out);
  }
  out.postMessage(frame);
  if (last) closeReplyChannel(channels, to);
}

export function closeReplyChannel(channels: ReplyChannels, to: string): void {
  channels.get(to)?.close();
  channels.delete(to);
}
