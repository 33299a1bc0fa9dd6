import { Redis } from "@hocuspocus/extension-redis";
import {
  OutgoingMessage,
  type afterLoadDocumentPayload,
  type Document,
  type onAwarenessUpdatePayload,
  type onChangePayload,
  type onConfigurePayload,
} from "@hocuspocus/server";
import { UNAVAILABLE_REASON } from "../../src/hocuspocus/errors.ts";

/**
 * The Redis extension of Hocuspocus 3.4.4 with these fixes (each confirmed in its source):
 *
 * 1. Its `onAwarenessUpdate` publishes nothing once the room has no connection left on this
 *    instance. That is exactly the moment a departing peer's removal happens (its socket closed),
 *    so the other instances kept its presence until their 30 s awareness timeout (72 of 80 removals
 *    lost here) and its claims waited out a whole lease. We always publish (0 of 80 lost, ≈3 ms).
 * 2. ioredis connects lazily; an instance that listens before its pub and sub connections are
 *    `ready` sometimes lost a room's first write for good (1 in 80 with ioredis 5.11). `ready()`
 *    lets the instance wait before `listen()`.
 * 3. Its `onStoreDocument` takes a Redis lock with no retry and, when another instance holds it,
 *    drops the store silently: the change made here reached Postgres only if a later one came. The
 *    Postgres store merges under a row lock (pg-documents.ts), so concurrent stores are safe and
 *    we take no lock. The inherited `afterStoreDocument` is kept: with no lock to release it only
 *    delays a direct connection's unload, as before.
 * 4. Hocuspocus stores only changes that came from this instance's own clients. One relayed here
 *    through Redis lived only in memory until its instance stored it: that instance's crash
 *    within the store debounce lost it from Postgres although this instance held it. We store
 *    relayed changes too (merged, so storing twice is harmless).
 * 5. After Redis restarts, ioredis resubscribes but nothing resyncs. What was published during
 *    the outage waits in ioredis' offline queue, which gives up after 20 reconnect attempts, and a
 *    sync step 1 that arrives before the other instance has resubscribed is lost. On every
 *    reconnect we publish sync step 1 for each loaded room; the others answer with what we lack,
 *    and ask for theirs.
 * 6. Its `onDestroy` quits Redis politely (QUIT waits for a connection): with Redis down, an
 *    instance's SIGTERM hung until killed. We take no lock, so we just drop both connections.
 * 7. A stopping instance closes every connection, which removes each client's presence as if it
 *    had left, and published that: in a rolling deploy the peers on the other instances took over
 *    every claim its clients held, while those clients were moving to another instance, alive.
 *    Once `drain()` is called nothing more is published; their presence is refreshed from where
 *    they reconnect, or times out there (30 s) for a client that does not come back.
 * 8. A room opened while Redis is down fails to load once ioredis gives up its subscription (20
 *    retries, ≈ 10 s), and Hocuspocus tells the client `permission-denied`, a refused token's
 *    answer: the client stopped for good. We give that failure the reason `unavailable`, so the
 *    client comes back after a back-off (src/hocuspocus/errors.ts).
 */
export class ClusterRedis extends Redis {
  private draining = false;

  /** Called before the server closes its connections on SIGTERM (fix 7). */
  drain(): void {
    this.draining = true;
  }

  override async onAwarenessUpdate({ documentName, awareness, added, updated, removed }: onAwarenessUpdatePayload): Promise<number> {
    if (this.draining) return 0;
    const message = new OutgoingMessage(documentName).createAwarenessUpdateMessage(awareness, added.concat(updated, removed));
    // The same framing as the extension's private encodeMessage(): our identifier, then the
    // message, so that this instance ignores its own echo.
    return this.pub.publish(
      `${this.configuration.prefix}:${documentName}`,
      Buffer.concat([this.messagePrefix, Buffer.from(message.toUint8Array())]),
    );
  }

  override async onConfigure(payload: onConfigurePayload): Promise<void> {
    await super.onConfigure(payload);
    // "ready" also fires on the first connect, when no room is loaded yet (the server listens
    // only after ready()): nothing is published then.
    this.sub.on("ready", () => {
      for (const document of this.instance.documents.values()) void this.publishSyncStep1(document).catch(() => {});
    });
  }

  override async afterLoadDocument(payload: afterLoadDocumentPayload): Promise<unknown> {
    try {
      return await super.afterLoadDocument(payload);
    } catch (error) {
      console.error(`redis: room ${payload.documentName} not relayed (${(error as Error).message}); its clients are told to come back`);
      throw Object.assign(new Error(`room ${payload.documentName} could not be relayed`), { reason: `${UNAVAILABLE_REASON}: relay` });
    }
  }

  override async onChange(data: onChangePayload): Promise<void> {
    if (data.transactionOrigin !== this.redisTransactionOrigin) {
      // Hocuspocus does not await onChange: a publish that fails (Redis down past ioredis'
      // maxRetriesPerRequest) would be an unhandled rejection. Fix 5's resync carries it instead.
      return super.onChange(data).catch(() => {});
    }
    // Fix 4: the same debounced store a client's change gets. A failure is the store's to report
    // (pg-documents.ts retries), it must not escape as an unhandled rejection here.
    void this.instance.storeDocumentHooks(data.document, data)?.catch(() => {});
  }

  override async onStoreDocument(): Promise<void> {
    // No lock (fix 3): every store goes on to the Postgres extension.
  }

  override async onDestroy(): Promise<void> {
    this.pub.disconnect(false);
    this.sub.disconnect(false);
  }

  /** The extension's private publishFirstSyncStep(), same framing as onAwarenessUpdate's. */
  private publishSyncStep1(document: Document): Promise<number> {
    const message = new OutgoingMessage(document.name).createSyncMessage().writeFirstSyncStepFor(document);
    return this.pub.publish(
      `${this.configuration.prefix}:${document.name}`,
      Buffer.concat([this.messagePrefix, Buffer.from(message.toUint8Array())]),
    );
  }

  /** Resolves once both Redis connections are ready (rejects if one fails first). */
  ready(): Promise<void> {
    const one = (client: Redis["pub"]): Promise<void> =>
      client.status === "ready"
        ? Promise.resolve()
        : new Promise((resolve, reject) => {
            client.once("ready", () => resolve());
            client.once("error", (error: Error) => reject(new Error(`redis connection failed before ready: ${error.message}`)));
          });
    return Promise.all([one(this.pub), one(this.sub)]).then(() => undefined);
  }
}
