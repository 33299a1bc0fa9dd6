import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as syncProtocol from "y-protocols/sync";
import type { WebsocketProvider } from "y-websocket";
import { parseUpdateMeta } from "yjs";
import { startSettleTimer } from "../core/settle-timer.ts";
import { TripSamples } from "../core/trips.ts";
import { unrefTimer } from "../core/unref-timer.ts";
import { TRIP_FIELD } from "./connection.ts";

const messageSync = 0;
/** Probe often at first (the window is sized from a few samples), then rarely. */
const FIRST_PROBES = 5;
const FIRST_INTERVAL_MS = 1000;
const INTERVAL_MS = 15_000;
/**
 * A fence not answered by then tells nothing: the claim falls back to its timed window. Both this
 * bound and ECHO_GRACE_MS end only on a check that fires on time (startSettleTimer): a late timer
 * says our own event loop was busy, and the answer it bounds, long since sent by the server, is then
 * usually queued right behind it (Node runs due timers before it reads its sockets). Our loop's
 * lag is not the server's silence.
 */
export const FENCE_TIMEOUT_MS = 1000;
/**
 * How long a fence's answer waits for the echo of the claim sent behind it (see `fence`) before
 * it counts alone, at least: a server that sends no client its own updates back costs this once.
 */
export const ECHO_GRACE_MS = 100;

type SyncHandler = (encoder: encoding.Encoder, decoder: decoding.Decoder, ...rest: unknown[]) => void;
type Asked = {
  sentAt: number;
  sample: boolean;
  answered: ((inOrder: boolean) => void)[];
  /** The clock our client reached with the update sent right behind this fence (the claims'). */
  echo?: number;
};
const messageYjsUpdate = 2;

export type SyncRoundTrips = {
  samples: TripSamples;
  /**
   * Sends a sync step 1 now, before anything this replica writes next, and calls `answered(true)`
   * once the server's step 2 to it has been applied to the doc: the server answers each client in
   * order, so every update it received before the step 1 is in the doc by then (the claims that
   * reached it ahead of ours). Where the server sends every update back to every client, its
   * sender included (y-websocket's server does), the answer waits further for the echo of the
   * update written right behind the fence, the claims themselves: every update the server took
   * before them is in the doc by then. That is their exact place among rival claims — the fence
   * alone misses a rival whose fence came after ours but whose claim came before. `answered(false)`
   * on a lost connection or after FENCE_TIMEOUT_MS. Returns false (and sends nothing) while not in
   * sync: no order can be learnt then.
   */
  fence(answered: (inOrder: boolean) => void): boolean;
  stop(): void;
};

/** The update of a sync step 2 or update message, read without consuming the decoder. */
function peekUpdate(decoder: decoding.Decoder, type: number | undefined): Uint8Array | undefined {
  if (type !== syncProtocol.messageYjsSyncStep2 && type !== messageYjsUpdate) return undefined;
  const pos = decoder.pos;
  try {
    decoding.readVarUint(decoder);
    return decoding.readVarUint8Array(decoder);
  } catch {
    return undefined; // malformed: the provider's own handler reports it
  } finally {
    decoder.pos = pos;
  }
}

/** The clock our client reaches with `update`, if it carries anything of ours. */
function ourEnd(update: Uint8Array, clientID: number): number | undefined {
  try {
    return parseUpdateMeta(update).to.get(clientID);
  } catch {
    return undefined;
  }
}

/**
 * Round trips to a y-websocket server with the sync protocol itself: a sync step 1 (our state
 * vector) is answered with a step 2 sent to this client alone, in the order of what it received.
 * Timed probes measure the trips (the initial sync is not a sample: its answer carries the whole
 * doc); fences order a claim among its rivals' at the server.
 */
export function probeTrips(provider: WebsocketProvider): SyncRoundTrips {
  const samples = new TripSamples();
  /** Our step 1s in flight, oldest first: the server answers them in this order. */
  let asked: Asked[] = [];
  /** The last fence sent, until the doc sends an update: the claims of one transaction share it. */
  let tickFence: Asked | undefined;
  /** Fences answered by the server whose claims' echo has not come back yet, oldest first. */
  let awaitingEcho: Asked[] = [];
  /** The highest clock of ours the server has sent back; whether it sends our updates back at all. */
  let echoedTo = 0;
  let echoes: boolean | undefined;
  const onUpdate = (update: Uint8Array, origin: unknown) => {
    // The update written right behind a fence carries its claims: note where our clock ends with it.
    if (tickFence && origin !== provider) {
      const end = ourEnd(update, provider.doc.clientID);
      if (end !== undefined) tickFence.echo = end;
    }
    tickFence = undefined;
  };
  provider.doc.on("update", onUpdate);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const handlers = (provider as unknown as { messageHandlers: SyncHandler[] }).messageHandlers;
  const original = handlers[messageSync];

  const settle = (entry: Asked, inOrder: boolean) => {
    for (const answered of entry.answered.splice(0)) answered(inOrder);
  };
  const dropAll = () => {
    const lost = [...awaitingEcho, ...asked];
    asked = [];
    awaitingEcho = [];
    tickFence = undefined;
    // The next connection may reach another server: whether it sends our updates back is learnt anew.
    echoes = undefined;
    for (const entry of lost) settle(entry, false);
  };
  const echoed = (end: number) => {
    echoes = true;
    echoedTo = Math.max(echoedTo, end);
    const done = awaitingEcho.filter((entry) => entry.echo! <= echoedTo);
    awaitingEcho = awaitingEcho.filter((entry) => entry.echo! > echoedTo);
    for (const entry of done) settle(entry, true);
  };
  /** The fence is answered: at once, or (see `fence`) once its claims come back. */
  const answer = (entry: Asked) => {
    if (entry.echo === undefined || entry.echo <= echoedTo || echoes === false) return settle(entry, true);
    awaitingEcho.push(entry);
    const grace = startSettleTimer(
      Math.max(ECHO_GRACE_MS, 2 * (samples.p95() ?? 0)),
      () => {
        if (!awaitingEcho.includes(entry)) return;
        // No echo: this server does not send a client its own updates. The fence alone decides.
        echoes = false;
        awaitingEcho = awaitingEcho.filter((e) => e !== entry);
        settle(entry, true);
      },
      Date.now,
      { unref: true },
    );
    entry.answered.push(() => grace.cancel());
  };

  if (typeof original === "function") {
    handlers[messageSync] = (encoder, decoder, ...rest) => {
      const type = decoding.hasContent(decoder) ? decoding.peekVarUint(decoder) : undefined;
      const isStep2 = type === syncProtocol.messageYjsSyncStep2;
      // Read before it is applied (the decoder is consumed then): may it be our claims coming back?
      const incoming = awaitingEcho.length > 0 ? peekUpdate(decoder, type) : undefined;
      const entry = isStep2 ? asked.shift() : undefined;
      original(encoder, decoder, ...rest);
      const end = incoming && ourEnd(incoming, provider.doc.clientID);
      if (end !== undefined) echoed(end);
      if (!entry) return;
      if (entry.sample) {
        samples.add(performance.now() - entry.sentAt);
        // For the other devices' windows (sharedTrips): a probe every 15 s, in place of the awareness renewal.
        provider.awareness.setLocalStateField(TRIP_FIELD, samples.p95());
      }
      answer(entry);
    };
  }

  /** Sends our step 1 if the connection is in sync; the entry that awaits its answer, or undefined. */
  const ask = (sample: boolean): Asked | undefined => {
    const ws = provider.ws as { readyState?: number; send?: (data: Uint8Array) => void } | null;
    // Only once synced: before that, the provider's own step 1 is in flight and its answer is the doc.
    if (stopped || typeof original !== "function" || !provider.wsconnected || !provider.synced) return undefined;
    if (ws?.readyState !== 1 || typeof ws.send !== "function") return undefined;
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, messageSync);
    syncProtocol.writeSyncStep1(encoder, provider.doc);
    const entry: Asked = { sentAt: performance.now(), sample, answered: [] };
    ws.send(encoding.toUint8Array(encoder));
    asked.push(entry);
    return entry;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(probe, samples.count < FIRST_PROBES ? FIRST_INTERVAL_MS : INTERVAL_MS);
    unrefTimer(timer);
  };
  const probe = () => {
    ask(true);
    schedule();
  };
  const onStatus = ({ status }: { status: string }) => {
    if (status !== "connected") dropAll();
  };
  provider.on("status", onStatus);
  schedule();

  return {
    samples,
    fence(answered) {
      if (!tickFence) {
        const entry = ask(false);
        if (!entry) return false;
        tickFence = entry;
        // Still answered in order later (it stays in the queue); its claims stop waiting for it.
        const timeout = startSettleTimer(FENCE_TIMEOUT_MS, () => settle(entry, false), Date.now, { unref: true });
        entry.answered.push(() => timeout.cancel());
        queueMicrotask(() => {
          if (tickFence === entry) tickFence = undefined;
        });
      }
      tickFence.answered.push(answered);
      return true;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      provider.off("status", onStatus);
      provider.doc.off("update", onUpdate);
      if (original && handlers[messageSync] !== original) handlers[messageSync] = original;
      dropAll();
    },
  };
}
