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
  panel: { marginTop: "0.5rem", border: "1px solid #d0d7de", borderRadius: 8, background: "#fff", overflow: "hidden" },
  header: { display: "flex", alignItems: "center", gap: "0.75rem", padding: "0.4rem 0.6rem", background: "#f6f8fa" },
  tabs: { display: "flex", gap: "0.25rem" },
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
  body: { maxHeight: "24rem", overflow: "auto", padding: "0.4rem 0.6rem" },
  table: { borderCollapse: "collapse", width: "100%" },
  th: { textAlign: "left", padding: "0.2rem 0.5rem", borderBottom: "1px solid #d0d7de", color: "#57606a", fontWeight: 600 },
  td: { padding: "0.2rem 0.5rem", borderBottom: "1px solid #eaeef2", verticalAlign: "top" },
  empty: { color: "#57606a", margin: "0.4rem 0" },
  muted: { color: "#57606a" },
  badge: { display: "inline-block", padding: "0 0.35rem", borderRadius: 4, marginRight: 4, fontSize: 11 },
  stale: { background: "#ffebe9", color: "#a40e26" },
  ok: { background: "#dafbe1", color: "#116329" },
  info: { background: "#ddf4ff", color: "#0969da" },
  error: { color: "#a40e26" },
  button: { font: "inherit", fontSize: 11, padding: "0 0.4rem", cursor: "pointer" },
} satisfies Record<string, CSSProperties>;
