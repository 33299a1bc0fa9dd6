import { useCallback, useSyncExternalStore } from "react";
import type * as Y from "yjs";
import { ROOT } from "../../src/internals.ts";

/** The shared doc's records as JSON: what every replica (and every peer on the sync server) holds. */
function docJson(doc: Y.Doc): string {
  return JSON.stringify(doc.getArray<unknown>(ROOT).toJSON(), null, 1);
}

/**
 * Everything the shared doc holds, live (data-testid "doc-contents"), in a collapsed details
 * element: a reader can search it for a token the request carried (invariant 13).
 */
export function DocContents({ doc, summary }: { doc: Y.Doc; summary: string }) {
  const subscribe = useCallback(
    (listener: () => void) => {
      doc.on("update", listener);
      return () => doc.off("update", listener);
    },
    [doc],
  );
  // A string: equal contents compare equal, so an update that changes nothing re-renders nothing.
  const json = useSyncExternalStore(subscribe, () => docJson(doc));
  return (
    <details style={{ fontFamily: "system-ui, sans-serif", fontSize: 13, margin: "0.5rem 0" }}>
      <summary>{summary}</summary>
      <pre data-testid="doc-contents" style={{ fontSize: 11, maxHeight: "16rem", overflow: "auto", whiteSpace: "pre-wrap" }}>
        {json}
      </pre>
    </details>
  );
}
