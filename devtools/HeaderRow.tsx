import { styles } from "./styles.ts";

/** The header row every table of the panel shares. */
export function HeaderRow({ names }: { names: readonly string[] }) {
  return (
    <thead>
      <tr>
        {names.map((name) => (
          <th key={name} scope="col" style={styles.th}>
            {name}
          </th>
        ))}
      </tr>
    </thead>
  );
}
