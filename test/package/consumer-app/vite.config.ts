import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  plugins: [react()],
  // The program resolver's lazy chunk (module lexer, Sucrase) is large by nature; it loads only
  // when a program is first resolved.
  build: { chunkSizeWarningLimit: 1024, reportCompressedSize: false },
});
