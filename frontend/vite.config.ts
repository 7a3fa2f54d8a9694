import { fileURLToPath } from "node:url";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { reactFlowRemovedNodes } from "./vite-plugins/react-flow-removed-nodes";
import { reactFlowStoreUpdates } from "./vite-plugins/react-flow-store-updates";

// In development the API runs on :8080 (`npx superstep start`); Vite proxies /api to it.
export default defineConfig({
  plugins: [react(), tailwindcss(), reactFlowRemovedNodes(), reactFlowStoreUpdates()],
  // The development server bundles dependencies apart (they do not go through `plugins`).
  optimizeDeps: { rolldownOptions: { plugins: [reactFlowRemovedNodes(), reactFlowStoreUpdates()] } },
  resolve: { alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) } },
  server: { proxy: { "/api": "http://127.0.0.1:8080", "/ws": { target: "ws://127.0.0.1:8080", ws: true } } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // Read by scripts/bundle-report.mjs, which prints what each page downloads.
    manifest: true,
    rolldownOptions: {
      output: {
        // The libraries every page needs change less often than the studio's code: in chunks of
        // their own they stay cached across releases. The rest is split by route.
        codeSplitting: {
          groups: [
            { name: "react", test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
            { name: "router", test: /node_modules[\\/]react-router[\\/]/ },
            { name: "i18n", test: /node_modules[\\/](i18next|react-i18next)[\\/]/ },
            { name: "query", test: /node_modules[\\/]@tanstack[\\/]/ },
          ],
        },
      },
    },
  },
});
