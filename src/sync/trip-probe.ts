import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as syncProtocol from "y-protocols/sync";
import type { WebsocketProvider } from "y-websocket";
import { TripSamples } from "../core/trips.ts";

const messageSync = 0;
/** Probe often at first (the window is sized from a few samples), then rarely. */
const FIRST_PROBES = 5;
const FIRST_INTERVAL_MS = 1000;
const INTERVAL_MS = 15_000;

type SyncHandler = (encoder: encoding.Encoder, decoder: decoding.Decoder, ...rest: unknown[]) => void;

/**
 * Measures round trips to a y-websocket server with the sync protocol itself: a sync step 1
 * (our state vector) is answered with a step 2 sent to this client alone, by y-websocket servers
 * and Hocuspocus alike. The initial sync is not a sample (its answer carries the whole doc).
 */
export function probeTrips(provider: WebsocketProvider): { samples: TripSamples; stop(): void } {
  const samples = new TripSamples();
  let sentAt: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const handlers = (provider as unknown as { messageHandlers: SyncHandler[] }).messageHandlers;
  const original = handlers[messageSync];
  if (typeof original !== "function") return { samples, stop: () => {} };

  handlers[messageSync] = (encoder, decoder, ...rest) => {
    if (sentAt !== undefined && decoding.hasContent(decoder) && decoding.peekVarUint(decoder) === syncProtocol.messageYjsSyncStep2) {
      samples.add(performance.now() - sentAt);
      sentAt = undefined;
    }
    original(encoder, decoder, ...rest);
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(probe, samples.count < FIRST_PROBES ? FIRST_INTERVAL_MS : INTERVAL_MS);
    (timer as { unref?: () => void }).unref?.();
  };
  const probe = () => {
    const ws = provider.ws as { readyState?: number; send?: (data: Uint8Array) => void } | null;
    // Only once synced: before that, the provider's own step 1 is in flight and its answer is the doc.
    if (provider.wsconnected && provider.synced && ws?.readyState === 1 && typeof ws.send === "function") {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, messageSync);
      syncProtocol.writeSyncStep1(encoder, provider.doc);
      sentAt = performance.now();
      ws.send(encoding.toUint8Array(encoder));
    }
    schedule();
  };
  const onStatus = ({ status }: { status: string }) => {
    if (status !== "connected") sentAt = undefined;
  };
  provider.on("status", onStatus);
  schedule();

  return {
    samples,
    stop() {
      stopped = true;
      clearTimeout(timer);
      provider.off("status", onStatus);
      if (handlers[messageSync] !== original) handlers[messageSync] = original;
    },
  };
}
