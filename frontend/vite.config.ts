import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// In development the API runs on :8080 (`npx superstep start`); Vite proxies /api to it.
export default defineConfig({
  plugins: [react()],
  server: { proxy: { "/api": "http://127.0.0.1:8080" } },
  build: { outDir: "dist", emptyOutDir: true },
});
