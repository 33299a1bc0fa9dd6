import type { CSSProperties } from "react";

/** Inline styles only: the panel must not depend on the host app's CSS, nor leak into it. */
export const styles = {
  root: { fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace", fontSize: 12, color: "#1f2328" },
  toggle: {
    font: "inherit",
    padding: "0.25rem 0.6rem",
    border: "1px solid #8c959f",
    borderRadius: 6,
    background: "#f6f8fa",
    cursor: "pointer",
  },
  panel: { border: "1px solid #d0d7de", borderRadius: 8, background: "#fff", overflow: "hidden", display: "flex", flexDirection: "column" },
  // Above the app, below nothing: the same corner and stacking as ReactQueryDevtools.
  floating: { position: "fixed", bottom: 12, zIndex: 99999, boxShadow: "0 1px 4px rgba(0,0,0,0.2)" },
  dock: {
    position: "fixed",
    left: 0,
    right: 0,
    bottom: 0,
    zIndex: 99999,
    display: "flex",
    flexDirection: "column",
    boxShadow: "0 -2px 8px rgba(0,0,0,0.15)",
    background: "#fff",
  },
  docked: { flex: 1, minHeight: 0, borderRadius: 0, borderWidth: "1px 0 0 0" },
  handle: { height: 6, cursor: "ns-resize", background: "#d0d7de", flex: "none" },
  header: { display: "flex", flexWrap: "wrap", alignItems: "center", gap: "0.75rem", padding: "0.4rem 0.6rem", background: "#f6f8fa" },
  // Wrapping: in one row, a 380 px dock's edge cut the last tab off (the panel hides its overflow).
  tabs: { display: "flex", flexWrap: "wrap", gap: "0.25rem" },
  // Longhands only: the selected style overrides some of them, and React warns when a rerender
  // removes a longhand that a shorthand also sets.
  tab: {
    fontFamily: "inherit",
    fontSize: "inherit",
    fontWeight: 400,
    padding: "0.2rem 0.6rem",
    borderWidth: 1,
    borderStyle: "solid",
    borderColor: "transparent",
    borderRadius: 6,
    background: "none",
    cursor: "pointer",
  },
  tabSelected: { borderColor: "#8c959f", background: "#fff", fontWeight: 600 },
  body: { flex: 1, minHeight: 0, maxHeight: "100%", overflow: "auto", padding: "0.4rem 0.6rem" },
  toolbar: { display: "flex", flexWrap: "wrap", alignItems: "center", gap: "0.5rem", margin: "0.2rem 0 0.4rem" },
  toolbarInline: { display: "inline-flex", gap: "0.4rem" },
  input: { font: "inherit", fontSize: 12, padding: "0.1rem 0.3rem" },
  pressed: { background: "#0969da", color: "#fff", borderColor: "#0969da" },
  rowHeader: {
    padding: "0.2rem 0.4rem",
    borderBottom: "1px solid #eaeef2",
    verticalAlign: "top",
    fontWeight: "normal",
    textAlign: "left",
    // A URL breaks after its "/" (KeyRow's <wbr>s); anywhere is the last resort for a segment (or a
    // replica id) longer than the line, so without a floor the other columns squeezed it at 800 px
    // ("https://api.exam / ple.test/items/9 / 89"); 12rem keeps two lines and no side scroll.
    minWidth: "12rem",
    maxWidth: "28rem",
    overflowWrap: "anywhere",
  },
  list: { margin: 0, paddingLeft: "1.2rem" },
  listItem: { marginBottom: "0.25rem" },
  pre: {
    maxHeight: "16rem",
    overflow: "auto",
    background: "#f6f8fa",
    padding: "0.4rem",
    margin: "0.3rem 0",
    whiteSpace: "pre-wrap",
    overflowWrap: "anywhere",
  },
  table: { borderCollapse: "collapse", width: "100%" },
  // The keys list scrolls on its own, so that only the rows in view are rendered.
  scroller: { height: "min(60vh, 30rem)", overflow: "auto", position: "relative" },
  // Stuck to the top of what scrolls: scrolled down a long list, the columns are still named.
  th: {
    textAlign: "left",
    padding: "0.2rem 0.4rem",
    borderBottom: "1px solid #d0d7de",
    color: "#57606a",
    fontWeight: 600,
    position: "sticky",
    top: 0,
    background: "#fff",
  },
  td: { padding: "0.2rem 0.4rem", borderBottom: "1px solid #eaeef2", verticalAlign: "top" },
  empty: { color: "#57606a", margin: "0.4rem 0" },
  muted: { color: "#57606a" },
  badge: { display: "inline-block", padding: "0 0.35rem", borderRadius: 4, marginRight: 4, fontSize: 11 },
  stale: { background: "#ffebe9", color: "#a40e26" },
  ok: { background: "#dafbe1", color: "#116329" },
  info: { background: "#ddf4ff", color: "#0969da" },
  // An error may name a URL (a peer's message, a module's importer): unbroken, it widened the keys
  // table past the panel, cutting the message and pushing the details button out of view. Wrapping
  // anywhere also let the other columns squeeze it to a few letters a line: 10rem keeps words whole.
  error: { color: "#a40e26", overflowWrap: "anywhere", minWidth: "12ch" },
  button: { font: "inherit", fontSize: 11, padding: "0 0.4rem", cursor: "pointer" },
} satisfies Record<string, CSSProperties>;
