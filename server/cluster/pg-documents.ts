import { Database } from "@hocuspocus/extension-database";
import pg from "pg";
import * as Y from "yjs";
import { UNAVAILABLE_REASON } from "../../src/hocuspocus/errors.ts";

const TABLE = "shared_fetch_documents";

/** An empty Yjs update (no structs, empty delete set): the placeholder row a first store merges into. */
const EMPTY_UPDATE = Buffer.from([0, 0]);
/** A failed store is retried after 250 ms, doubling up to 5 s, until Postgres takes it. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5000;
/** While a room keeps failing, one line per this long, not one per attempt. */
const LOG_EVERY_MS = 30_000;

/** `url` with its password replaced, for messages: DATABASE_URL may carry one. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparsable URL)"; // it could still hold a password: never echo it
  }
}

/**
 * Documents in Postgres through `@hocuspocus/extension-database`: one row per room holding the
 * whole doc as one Yjs update. Every instance that holds the room stores it, whether a change came
 * from its own client or through Redis (no Redis lock: see redis-extension.ts); concurrent stores are serialised on the row and each
 * *merges* into it, never overwrites, so no instance can erase what another stored.
 *
 * A store never fails: while Postgres is unreachable it retries with backoff, re-encoding the doc
 * each time so the latest state goes in. A thrown store would escape Hocuspocus' debounce timer
 * (an unhandled rejection kills the instance) and the change would never be stored again.
 */
export async function postgresDocuments(
  connectionString: string,
): Promise<{ extension: Database; close(): Promise<void>; unsaved(): string[] }> {
  const pool = new pg.Pool({ connectionString, max: 4 });
  // An idle pooled client whose server went away (a Postgres restart, failover) emits 'error' on
  // the pool; unheard, that would crash the instance. The pool drops the client and opens another.
  pool.on("error", (error) => console.error(`postgres: idle connection lost (${error.message}); the pool replaces it`));
  const storing = new Set<string>();

  const storeOnce = async (documentName: string, state: Uint8Array): Promise<void> => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      // The placeholder row gives FOR UPDATE something to lock on a room's first store: without it
      // two first stores both see no row and the second INSERT overwrites the first.
      await client.query(`INSERT INTO ${TABLE} (name, data) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [documentName, EMPTY_UPDATE]);
      const { rows } = await client.query<{ data: Buffer }>(`SELECT data FROM ${TABLE} WHERE name = $1 FOR UPDATE`, [documentName]);
      // Merged in a Y.Doc, not with Y.mergeUpdates: that keeps the content of every deleted item,
      // so the row kept each result the doc ever recorded (30 refetches of a 20 KB result: 600 KB
      // for a 20 KB doc). A doc collects it, as every replica's does.
      const merging = new Y.Doc();
      Y.applyUpdate(merging, new Uint8Array(rows[0]!.data));
      Y.applyUpdate(merging, state);
      const merged = Y.encodeStateAsUpdate(merging);
      merging.destroy();
      await client.query(`UPDATE ${TABLE} SET data = $2, updated_at = now() WHERE name = $1`, [documentName, Buffer.from(merged)]);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  };

  const extension = new Database({
    async fetch({ documentName }) {
      try {
        const { rows } = await pool.query<{ data: Buffer }>(`SELECT data FROM ${TABLE} WHERE name = $1`, [documentName]);
        return rows[0] ? new Uint8Array(rows[0].data) : null;
      } catch (error) {
        // Hocuspocus refuses the client with this error's `reason`. Without one the client hears
        // `permission-denied`, a refused token's answer, and stops for good during an outage.
        console.error(`postgres: loading room ${documentName} failed (${(error as Error).message}); its clients are told to come back`);
        throw Object.assign(new Error(`room ${documentName} could not be loaded`), { reason: `${UNAVAILABLE_REASON}: storage` });
      }
    },
    async store({ documentName, document, state }) {
      storing.add(documentName);
      let delay = RETRY_FIRST_MS;
      let failures = 0;
      let loggedAt = 0;
      try {
        for (;;) {
          try {
            // A retry takes what the doc holds now: changes made meanwhile go in with it.
            await storeOnce(documentName, failures > 0 && document ? Y.encodeStateAsUpdate(document) : state);
            if (failures > 0) console.error(`postgres: room ${documentName} stored after ${failures} failed attempts`);
            return;
          } catch (error) {
            failures++;
            if (Date.now() - loggedAt >= LOG_EVERY_MS) {
              loggedAt = Date.now();
              console.error(`postgres: storing room ${documentName} failed (${(error as Error).message}); retrying until it succeeds`);
            }
            await new Promise((resolve) => setTimeout(resolve, delay));
            delay = Math.min(delay * 2, RETRY_MAX_MS);
          }
        }
      } finally {
        storing.delete(documentName);
      }
    },
  });
  return { extension, close: () => pool.end(), unsaved: () => [...storing] };
}

/** Creates the table. Run once before the instances start: two concurrent CREATE TABLE IF NOT
 * EXISTS can still collide in Postgres' catalog. */
export async function createDocumentsTable(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (name text PRIMARY KEY, data bytea NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
    );
  } finally {
    await client.end();
  }
}

/**
 * Throws, naming DATABASE_URL (its password hidden), unless Postgres answers and holds the table:
 * an instance checks at start rather than failing every client's first load.
 */
export async function checkDocumentsTable(connectionString: string): Promise<void> {
  const where = `DATABASE_URL ${redactUrl(connectionString)}`;
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
  // An 'error' after connect (the server going away) must not crash the caller.
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`${where} is unreachable: ${(error as Error).message}`);
  }
  try {
    const { rows } = await client.query<{ t: string | null }>(`SELECT to_regclass($1) AS t`, [TABLE]);
    if (rows[0]?.t == null) throw new Error(`${where} has no table ${TABLE} (createDocumentsTable() makes it)`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Reads a stored room back into a fresh Y.Doc (tests check what really reached the disk). */
export async function readStoredDocument(connectionString: string, room: string): Promise<Y.Doc | undefined> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const exists = await client.query(`SELECT to_regclass($1) AS t`, [TABLE]);
    if (exists.rows[0]?.t === null) return undefined;
    const { rows } = await client.query<{ data: Buffer }>(`SELECT data FROM ${TABLE} WHERE name = $1`, [room]);
    if (!rows[0]) return undefined;
    const doc = new Y.Doc();
    Y.applyUpdate(doc, new Uint8Array(rows[0].data));
    return doc;
  } finally {
    await client.end();
  }
}
