// @vitest-environment jsdom
import type { TanStackDevtoolsReactPlugin } from "@tanstack/react-devtools";
import { cleanup, render, screen } from "@testing-library/react";
import { isValidElement, type ReactElement } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedFetchDevtoolsPlugin, SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { cluster } from "../harness/replicas.ts";

afterEach(cleanup);

describe("TanStack Devtools plugin", () => {
  it("is a plugin of @tanstack/react-devtools' shape whose render is the embeddable panel", () => {
    const c = cluster(1);
    // Typechecked against the shell's own plugin type (npm run typecheck fails if the shapes part).
    const plugin: TanStackDevtoolsReactPlugin = sharedFetchDevtoolsPlugin({ store: c.stores[0]!, defaultOpen: true });
    expect(plugin).toMatchObject({ id: "shared-fetch", name: "shared-fetch", defaultOpen: true });
    expect(isValidElement(plugin.render) && (plugin.render as ReactElement).type).toBe(SharedFetchDevtoolsPanel);
    render(<>{plugin.render as ReactElement}</>);
    expect(screen.getByRole("region", { name: "shared-fetch devtools" })).toBeTruthy();
  });
});
