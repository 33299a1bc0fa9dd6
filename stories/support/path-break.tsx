import type { ReactNode } from "react";

/** Where a line of the JSON may break besides spaces: after a "/" of a path, not in "://". */
export const PATH_BREAK = /(?<=[^/:]\/)/;

/** A URL longer than the line breaks between its segments, not at whichever letter meets the edge. */
export function wrappable(json: string): ReactNode[] {
  return json.split(PATH_BREAK).flatMap((part, i) => (i === 0 ? [part] : [<wbr key={i} />, part]));
}
