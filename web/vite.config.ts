import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

const backend = "http://localhost:3000";

/** Long-lived vendor chunks, so an app change does not bust the framework cache. */
const VENDOR_CHUNKS: Record<string, RegExp> = {
  react: /node_modules\/(react|react-dom|react-router|scheduler|cookie|set-cookie-parser)\//,
  i18n: /node_modules\/(i18next|react-i18next|i18next-browser-languagedetector|html-parse-stringify|void-elements)\//,
  query: /node_modules\/@tanstack\//,
  zod: /node_modules\/zod\//,
};

type Tree = { [k: string]: string | Tree };

/**
 * Emits dist/meta.json: per language, the meta texts and every page title, so the gateway can write
 * the page's <title>, description and Open Graph tags into index.html for crawlers that run no script.
 */
function pageMetaTexts(): Plugin {
  return {
    name: "kikitori-page-meta",
    generateBundle() {
      const dir = fileURLToPath(new URL("./src/locales", import.meta.url));
      const out: Record<string, { meta: Tree; titles: Record<string, string> }> = {};
      for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
        const tree = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Tree;
        const titles: Record<string, string> = {};
        const walk = (t: Tree, prefix: string) => {
          for (const [k, v] of Object.entries(t)) {
            if (typeof v !== "string") walk(v, `${prefix}${k}.`);
            else if (k === "title") titles[prefix + k] = v;
          }
        };
        walk(tree, "");
        out[file.slice(0, -5)] = { meta: tree.meta as Tree, titles };
      }
      this.emitFile({ type: "asset", fileName: "meta.json", source: JSON.stringify(out) });
    },
  };
}

export default defineConfig({
  plugins: [react(), pageMetaTexts()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: true,
    rollupOptions: {
      output: {
        manualChunks(id) {
          for (const [name, re] of Object.entries(VENDOR_CHUNKS)) if (re.test(id)) return name;
          return undefined;
        },
      },
    },
  },
  server: {
    port: 5173,
    proxy: {
      "/api": { target: backend, changeOrigin: true },
      "/ws": { target: backend, ws: true, changeOrigin: true },
    },
  },
});
