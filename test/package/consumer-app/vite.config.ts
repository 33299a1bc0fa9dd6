import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  plugins: [react()],
  // As the README's SharedWorker section says: the worker imports the program resolver lazily.
  worker: { format: "es" },
  // The program resolver's lazy chunk (module lexer, Sucrase) is large by nature; it loads only
  // when a program is first resolved.
  build: {
    chunkSizeWarningLimit: 1024,
    reportCompressedSize: false,
    // bundlerTimings: on a loaded machine (a CI runner, tests in parallel) the bundler warns that
    // its plugins took most of a slow build: load, not a problem of the app, and the build's output
    // is asserted empty.
    rolldownOptions: { input: { main: "index.html", worker: "worker.html" }, checks: { bundlerTimings: false } },
  },
});
