/// <reference types="vitest" />
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The mgr module serves dist/ at "/" (and the API under /api/v1); a relative base keeps the
// built app working behind any path prefix. `npm run dev` proxies /api to a running module
// (SMRSTORE_API, default http://127.0.0.1:8765).
export default defineConfig({
  base: "./",
  plugins: [react()],
  server: {
    proxy: {
      "/api": process.env["SMRSTORE_API"] ?? "http://127.0.0.1:8765",
    },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 1024,
  },
  test: {
    environment: "jsdom",
    globals: true,
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    setupFiles: ["src/test-setup.ts"],
  },
});
