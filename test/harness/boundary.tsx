import { QueryErrorResetBoundary } from "@tanstack/react-query";
import { Component, useState, type ReactNode } from "react";

/**
 * An error boundary for tests: it records each error it catches in `errors` and renders
 * `show(error)` in place of its children (by default a `boundary` test id saying "caught").
 */
export class Boundary extends Component<
  { errors?: unknown[]; show?: (error: unknown) => ReactNode; children: ReactNode },
  { error: unknown }
> {
  override state = { error: undefined as unknown };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override componentDidCatch(error: unknown) {
    this.props.errors?.push(error);
  }
  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return this.props.show ? this.props.show(error) : <span data-testid="boundary">caught</span>;
  }
}

/**
 * react-error-boundary's recipe over TanStack's QueryErrorResetBoundary: `show(error, reset)` renders
 * in place of the children once they throw; its `reset` resets TanStack's boundary and remounts them.
 */
export function ResetBoundary({ show, children }: { show: (error: unknown, reset: () => void) => ReactNode; children: ReactNode }) {
  const [attempt, setAttempt] = useState(0);
  return (
    <QueryErrorResetBoundary>
      {({ reset }) => (
        <Boundary key={attempt} show={(error) => show(error, () => (reset(), setAttempt((n) => n + 1)))}>
          {children}
        </Boundary>
      )}
    </QueryErrorResetBoundary>
  );
}
