// The official MCP conformance suite's authorization-server scenarios (@modelcontextprotocol/conformance
// 0.2.0-alpha.12 `authorization`: authorization-server-metadata-endpoint, authorization-code-grant) against
// the hub's OAuth authorization server. Run by test/e2e/oauth.test.ts against the e2e hub, where a signed-in
// Chromium completes the consent step: the suite prints an authorize URL and waits for its own callback
// server (http://127.0.0.1:<port>/callback) to receive the code; no consent bypass exists or is needed.
//
// The suite needs Node >= 22 and is not a dependency: `npm exec` fetches it together with the official Node
// 22 binary package into npm's cache (as scripts/conformance.mjs does for the Node it runs 0.1.16 on), and
// runs its `conformance` bin with that Node first on PATH.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CONFORMANCE_NODE_VERSION } from "./conformance.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const AUTHORIZATION_SUITE = "@modelcontextprotocol/conformance@0.2.0-alpha.12";
export const AUTHORIZATION_SCENARIOS = ["authorization-server-metadata-endpoint", "authorization-code-grant"];

/**
 * Registers a public client by DCR for the suite's callback, runs every authorization scenario the suite
 * lists against `hubUrl` (the issuer, e.g. http://localhost:8787) for `resource` (a channel's MCP URL), hands
 * the authorize URL it prints to `authorize` (which must complete sign-in and consent in a browser), and
 * resolves with each scenario's checks and the suite's output.
 */
export async function runAuthorizationConformance({
  hubUrl,
  resource,
  port,
  authorize,
  timeoutMs = 240_000,
}) {
  const redirectUri = `http://127.0.0.1:${port}/callback`;
  const registered = await fetch(`${hubUrl}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "MCP conformance suite",
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  if (registered.status !== 201)
    throw new Error(`DCR answered ${registered.status}: ${await registered.text()}`);
  const { client_id: clientId } = await registered.json();
  const outDir = await mkdtemp(join(tmpdir(), "webmcp-hub-authz-conformance-"));
  try {
    const args = [
      "exec",
      "--yes",
      `--package=node-${process.platform === "win32" ? "win" : process.platform}-${process.arch}@${CONFORMANCE_NODE_VERSION}`,
      `--package=${AUTHORIZATION_SUITE}`,
      "--",
      "conformance",
      "authorization",
      "--url",
      hubUrl,
      "--client-id",
      clientId,
      "--resource",
      resource,
      "--port",
      String(port),
      "-o",
      outDir,
    ];
    const output = await new Promise((resolve, reject) => {
      const child = spawn(process.platform === "win32" ? "npm.cmd" : "npm", args, {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let text = "";
      let handed = false;
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      const onData = (d) => {
        text += d;
        const url = /^(https?:\/\/\S+\/authorize\?\S+)$/m.exec(text)?.[1];
        if (url && !handed) {
          handed = true;
          Promise.resolve(authorize(url)).catch((e) => {
            text += `\nauthorize step failed: ${e instanceof Error ? e.message : String(e)}\n`;
          });
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.on("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on("exit", () => {
        clearTimeout(timer);
        resolve(text);
      });
    });
    const results = {};
    for (const scenario of AUTHORIZATION_SCENARIOS) {
      const dir = (await readdir(outDir).catch(() => [])).find((d) => d.includes(scenario));
      results[scenario] = dir ? JSON.parse(await readFile(join(outDir, dir, "checks.json"), "utf8")) : [];
    }
    return { results, output, clientId };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}
