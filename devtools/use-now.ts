"use client";

import { useEffect, useState } from "react";

/** Date.now(), re-read every `everyMs` while `active` (a live countdown); frozen otherwise. */
export function useNow(active: boolean, everyMs = 250): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [active, everyMs]);
  return now;
}
