import type { KeyboardEvent } from "react";
import { styles } from "./styles.ts";

export type TabSpec<T extends string> = { id: T; name: string; count?: number };

/** A WAI-ARIA tablist: arrows, Home and End move the selection and the focus (roving tabindex). */
export function Tabs<T extends string>({
  tabs,
  selected,
  onSelect,
  idOf,
  panelId,
  label,
}: {
  tabs: readonly TabSpec<T>[];
  selected: T;
  onSelect: (id: T) => void;
  idOf: (id: T) => string;
  panelId: string;
  label: string;
}) {
  const onKeyDown = (event: KeyboardEvent) => {
    const at = tabs.findIndex((t) => t.id === selected);
    const to =
      event.key === "ArrowRight"
        ? at + 1
        : event.key === "ArrowLeft"
          ? at - 1
          : event.key === "Home"
            ? 0
            : event.key === "End"
              ? tabs.length - 1
              : undefined;
    if (to === undefined) return;
    event.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length]!.id;
    onSelect(next);
    document.getElementById(idOf(next))?.focus();
  };
  return (
    <div role="tablist" aria-label={label} style={styles.tabs} onKeyDown={onKeyDown}>
      {tabs.map((t) => (
        <button
          key={t.id}
          id={idOf(t.id)}
          type="button"
          role="tab"
          aria-selected={selected === t.id}
          aria-controls={panelId}
          tabIndex={selected === t.id ? 0 : -1}
          style={{ ...styles.tab, ...(selected === t.id ? styles.tabSelected : {}) }}
          onClick={() => onSelect(t.id)}
        >
          {t.count === undefined ? t.name : `${t.name} (${t.count})`}
        </button>
      ))}
    </div>
  );
}
