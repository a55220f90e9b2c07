// The extension's zip (scripts/lib/extension-zip.mjs) of the built extension: manifest.json at its root,
// every file the manifest and its pages name inside it, hub.json first and stored (the hub stamps it when it
// serves the zip), and the same bytes every time for the same files.
import { unzipSync } from "fflate";
import { beforeAll, describe, expect, it } from "vitest";
import { buildBundles } from "../../scripts/lib/bundles.mjs";
import { zipExtension } from "../../scripts/lib/extension-zip.mjs";

const DIR = new URL("../../dist/extension/", import.meta.url);
const ZIP = new URL("../../dist/webmcp-hub-extension.zip", import.meta.url);
const HUB = process.env.WEBMCP_HUB_URL ?? "http://localhost:8787"; // what `npm run build` writes

interface Manifest {
  background: { service_worker: string };
  content_scripts: { js: string[] }[];
  action: { default_popup: string; default_icon: Record<string, string> };
  icons: Record<string, string>;
}

let zip: Uint8Array;
let entries: Record<string, Uint8Array>;

beforeAll(async () => {
  await buildBundles({ group: "extension", log: () => {} });
  ({ zip } = await zipExtension(DIR, ZIP, { hub: HUB }));
  entries = unzipSync(zip);
}, 60_000);

const text = (path: string) => new TextDecoder().decode(entries[path]);

describe("the extension's zip", () => {
  it("has manifest.json at its root and every file the manifest names", () => {
    expect(Object.keys(entries)).toContain("manifest.json");
    const manifest = JSON.parse(text("manifest.json")) as Manifest;
    const named = [
      manifest.background.service_worker,
      ...manifest.content_scripts.flatMap((c) => c.js),
      manifest.action.default_popup,
      ...Object.values(manifest.action.default_icon),
      ...Object.values(manifest.icons),
    ];
    expect(named).toEqual(expect.arrayContaining(["service-worker.js", "popup.html", "icons/icon-128.png"]));
    for (const path of named) expect(Object.keys(entries), path).toContain(path);
  });

  it("holds every script, stylesheet and image the extension's pages load", () => {
    for (const page of ["popup.html", "approval.html"]) {
      const html = text(page);
      const refs = [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(refs, page).toEqual(expect.arrayContaining(["ui.css", page.replace(".html", ".js")]));
      for (const ref of refs) expect(Object.keys(entries), `${page} → ${ref}`).toContain(ref);
    }
  });

  it("starts with hub.json, stored uncompressed and padded, naming the hub it was built for", () => {
    expect(Object.keys(entries)[0]).toBe("hub.json");
    expect(JSON.parse(text("hub.json"))).toEqual({ hub: HUB });
    expect(entries["hub.json"]!.length).toBe(512);
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    expect(view.getUint32(0, true)).toBe(0x04034b50); // the first local header…
    expect(view.getUint16(8, true)).toBe(0); // …is stored (method 0), so a hub can write over its bytes
    expect(new TextDecoder().decode(zip.subarray(30, 38))).toBe("hub.json");
  });

  it("is sorted after hub.json, with no directory entries and no build leftovers", () => {
    const paths = Object.keys(entries).slice(1);
    expect(paths).toEqual([...paths].sort());
    expect(paths.filter((p) => p.endsWith("/") || p.endsWith(".tmp"))).toEqual([]);
  });

  it("is byte-for-byte the same when made again from the same files", async () => {
    const again = await zipExtension(DIR, ZIP, { hub: HUB });
    expect(again.zip).toEqual(zip);
  });
});
