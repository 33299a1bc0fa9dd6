/**
 * TanStack's optimistic recipe ported as its docs write it: `mutationFn: sharedMutationFn(store,
 * (title: string) => request)` inline beside an `onMutate: async (title) => …` whose parameter is
 * not annotated. TypeScript then fixes useMutation's variables to `void` before it reads the
 * inline generic call, and reports the mutationFn as "not assignable to MutationFunction<unknown,
 * void>", where a plain `async (title: string) => …` compiles. The README names the two ways that
 * compile (checked by `npm run typecheck`, which reads this file); the `@ts-expect-error` fails the
 * typecheck once the inline form compiles, so the README sentence can go.
 */
import { useMutation } from "@tanstack/react-query";
import * as Y from "yjs";
import { describe, expectTypeOf, it } from "vitest";
import { createSharedFetchStore, sharedMutationFn } from "../../src/index.ts";

const store = createSharedFetchStore({ doc: new Y.Doc() });
const post = (title: string) => ({ url: "http://127.0.0.1:1/todos", method: "POST", body: JSON.stringify({ title }) });

describe("sharedMutationFn's variables reach useMutation's callbacks", () => {
  it("onMutate's parameter annotated: the recipe compiles and its context reaches onError", () => {
    const useAdd = () =>
      useMutation({
        mutationFn: sharedMutationFn(store, post),
        onMutate: async (title: string) => ({ title }),
        onError: (_error, title, context) => [title, context?.title],
      });
    expectTypeOf(useAdd).returns.toHaveProperty("variables").toEqualTypeOf<string | undefined>();
  });

  it("the function made first: onMutate's parameter is inferred", () => {
    const addTodo = sharedMutationFn(store, post);
    const useAdd = () => useMutation({ mutationFn: addTodo, onMutate: async (title) => ({ title }) });
    expectTypeOf(useAdd).returns.toHaveProperty("variables").toEqualTypeOf<string | undefined>();
  });

  it("inline, with onMutate's parameter left to inference, TypeScript takes the variables for void", () => {
    // prettier-ignore
    // @ts-expect-error TS2322: not assignable to MutationFunction<unknown, void> (README, "Identical mutations in flight join")
    const useAdd = () => useMutation({ mutationFn: sharedMutationFn(store, post), onMutate: async (title) => ({ title }) });
    expectTypeOf(useAdd).toBeFunction();
  });
});
