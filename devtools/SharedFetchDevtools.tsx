"use client";

import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from "react";
import { SharedFetchDevtoolsPanel, type SharedFetchDevtoolsPanelProps } from "./SharedFetchDevtoolsPanel.tsx";
import { styles } from "./styles.ts";
import { devtoolsModelFor } from "./use-devtools-model.ts";
import { useHydrating } from "./use-hydrating.ts";

export type { DevtoolsTab } from "./SharedFetchDevtoolsPanel.tsx";

export type SharedFetchDevtoolsProps = Omit<SharedFetchDevtoolsPanelProps, "onClose" | "style"> & {
  /** Default false. */
  initialIsOpen?: boolean | undefined;
  /** Where the toggle floats. Default "bottom-right" (ReactQueryDevtools' default is bottom-right too: give one of them "bottom-left"). */
  buttonPosition?: "bottom-right" | "bottom-left" | undefined;
  /** Height of the docked panel in px, resizable by its top edge. Default 320. */
  initialHeight?: number | undefined;
};

const MIN = 120;
const maxHeight = () => (typeof window === "undefined" ? 2000 : Math.max(MIN, window.innerHeight - 40));
const clamp = (h: number) => Math.round(Math.min(maxHeight(), Math.max(MIN, h)));

/** A floating toggle "shared-fetch" and, when open, the panel docked at the bottom of the page. */
export function SharedFetchDevtools({
  initialIsOpen = false,
  buttonPosition = "bottom-right",
  initialHeight = 320,
  ...panel
}: SharedFetchDevtoolsProps) {
  // 0 and 1: closed and opened by the user, not at mount. A keyboard user's focus follows, into the
  // panel's selected tab on open and back to the toggle on close, instead of falling to the page's body.
  const [open, setOpen] = useState<boolean | 0 | 1>(initialIsOpen);
  const [height, setHeight] = useState(initialHeight);
  // Opened at first: the dock (its height bound is the window's) and panel from the render after hydration.
  const hydrating = useHydrating();
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (open === 1) root.current?.querySelector<HTMLElement>("[aria-selected=true]")?.focus();
  }, [open]);
  // Created at mount, not at first open: the timeline and event log should hold what happened before.
  // Not on the server: its store is not this page's, and a model would listen to it for as long as it lives.
  if (!hydrating) devtoolsModelFor(panel.store, panel.awareness);
  const side = buttonPosition === "bottom-left" ? { left: 12 } : { right: 12 };
  return (
    <div style={styles.root} data-testid="shared-fetch-devtools" ref={root}>
      {!open && (
        <button
          type="button"
          style={{ ...styles.toggle, ...styles.floating, ...side }}
          aria-expanded={false}
          autoFocus={open === 0}
          onClick={() => setOpen(1)}
        >
          shared-fetch
        </button>
      )}
      {open && !hydrating && (
        <div style={{ ...styles.dock, height }} onKeyDown={(e) => e.key === "Escape" && setOpen(0)}>
          <ResizeHandle height={height} onResize={(h) => setHeight(clamp(h))} />
          <SharedFetchDevtoolsPanel {...panel} onClose={() => setOpen(0)} style={styles.docked} />
        </div>
      )}
    </div>
  );
}

/** The dock's top edge: drag it, or focus it and use the arrow keys (a WAI-ARIA window splitter). */
function ResizeHandle({ height, onResize }: { height: number; onResize: (height: number) => void }) {
  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    const startY = event.clientY;
    const start = height;
    const target = event.currentTarget;
    target.setPointerCapture?.(event.pointerId);
    const move = (e: globalThis.PointerEvent) => onResize(start + (startY - e.clientY));
    const up = () => {
      target.removeEventListener("pointermove", move);
      target.removeEventListener("pointerup", up);
    };
    target.addEventListener("pointermove", move);
    target.addEventListener("pointerup", up);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const step = event.key === "ArrowUp" ? 24 : event.key === "ArrowDown" ? -24 : 0;
    if (step === 0) return;
    event.preventDefault();
    onResize(height + step);
  };
  return (
    <div
      role="separator"
      aria-orientation="horizontal"
      aria-label="Resize shared-fetch devtools"
      aria-valuenow={height}
      aria-valuemin={MIN}
      aria-valuemax={maxHeight()}
      tabIndex={0}
      style={styles.handle}
      onPointerDown={onPointerDown}
      onKeyDown={onKeyDown}
    />
  );
}
