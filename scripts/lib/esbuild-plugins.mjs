// esbuild plugins shared by the build's bundles (bundles.mjs) and the cloud runner's capture script.
/**
 * @cfworker/json-schema's `format` checks (its format.js, ~1.7 KiB gzipped of regular expressions) left out of
 * the browser bundles that carry src/bridge (/bridge.js, the extension, the cloud runner's capture script): its validate.js imports `{ format }` from "./format.js", which resolves here to an
 * empty table, so `format` is an annotation, as JSON Schema 2020-12 says by default. src/bridge/validate.ts
 * (executeTool's input check) needs no more: a relayed call is checked by the hub, formats included. The
 * hub's Worker is bundled by wrangler and keeps them.
 */
export const noJsonSchemaFormats = {
  name: "no-json-schema-formats",
  setup(build) {
    build.onResolve({ filter: /^\.\/format\.js$/ }, (args) =>
      /[\\/]@cfworker[\\/]json-schema[\\/]/.test(args.importer)
        ? { path: "@cfworker/json-schema/format.js", namespace: "no-json-schema-formats" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "no-json-schema-formats" }, () => ({
      contents: "export const format = {};",
      loader: "js",
    }));
  },
};
