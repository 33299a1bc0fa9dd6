import { deleteDB } from "lib0/indexeddb";
import { requireNonEmptyString } from "./connection.ts";
import { hasIndexedDB } from "./doc-persistence.ts";
import { forgetPersisted, removeSnapshot } from "./persisted-mark.ts";

/**
 * Removes what `connectTabs(doc, { name })` keeps in this browser: the doc's IndexedDB database,
 * its copy in localStorage and the mark that it was persisted (e.g. at logout). Destroy the
 * connections on that name first, in every tab: a tab still connected writes the doc again.
 */
export async function clearTabsStorage(name: string): Promise<void> {
  requireNonEmptyString("clearTabsStorage", "name", name);
  removeSnapshot(name);
  forgetPersisted(name);
  if (hasIndexedDB()) await deleteDB(name);
}
