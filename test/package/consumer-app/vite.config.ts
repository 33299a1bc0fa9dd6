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
    rolldownOptions: { input: { main: "index.html", worker: "worker.html" } },
  },
});
