// Seeds the hub through its public API, exactly as a site owner and a user would: register the demo origin,
// serve the challenge token, verify over HTTP, publish the manifest (and point the demo pages' bridge at
// this hub); and create a channel the demo pages can pair with, or reuse the one an earlier start created.
// Safe to repeat: a known origin gets a new claim, verifying it issues a new publisher key, an unchanged
// manifest is not stored twice, and the demo channel is kept in a local state file.
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/** The API's answer when it is not a success: `status` and the error body's `code`. */
class ApiError extends Error {
  constructor(message, status, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function callApi(hubUrl, method, path, { json, token } = {}) {
  const headers = { accept: "application/json" };
  if (json !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(hubUrl + path, {
      method,
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    throw new Error(`${method} ${path}: the hub at ${hubUrl} did not answer (${e.message}).`);
  }
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const error = body?.error;
    const detail = error ? `${error.code}: ${error.message}` : text.slice(0, 300);
    throw new ApiError(`${method} ${path} answered ${res.status} (${detail})`, res.status, error?.code);
  }
  return body;
}

/**
 * Registers, verifies and publishes `demo` (a running demo site) on the hub at `hubUrl`.
 * Resolves with the site's host, its fresh publisher key and the published manifest version.
 */
export async function seedDemoSite({ hubUrl, demo }) {
  // The demo pages embed the bridge of the hub they are published on.
  demo.setHubUrl?.(hubUrl);
  const manifest = await demo.manifest();
  const registration = await callApi(hubUrl, "POST", "/api/sites", { json: { origin: demo.origin } });
  const host = registration.site.host;
  const hostPath = encodeURIComponent(host);
  demo.setVerifyToken(registration.challenge.token);
  let verified;
  try {
    verified = await callApi(hubUrl, "POST", `/api/sites/${hostPath}/verify`, {
      json: { method: "http" },
      token: registration.claimSecret,
    });
  } finally {
    demo.setVerifyToken(null);
  }
  const publisherKey = verified.publisherKey;
  const published = await callApi(hubUrl, "PUT", `/api/sites/${hostPath}/manifest`, {
    json: manifest,
    token: publisherKey,
  });
  return {
    host,
    origin: demo.origin,
    publisherKey,
    version: published.version,
    toolCount: published.toolCount,
    unchanged: published.unchanged,
  };
}

/**
 * Creates a channel (`POST /api/channels`) for the demo: its MCP URL, agent token, capability URL, owner
 * key and a pairing code (valid 10 minutes; `newPairingCode` issues another).
 */
export async function seedChannel({ hubUrl, name = "Demo channel" }) {
  const created = await callApi(hubUrl, "POST", "/api/channels", { json: { name } });
  return {
    channelId: created.channel.id,
    name: created.channel.name,
    ownerKey: created.ownerKey,
    agentToken: created.agentToken,
    mcpUrl: created.mcpUrl,
    mcpCapabilityUrl: created.mcpCapabilityUrl,
    pairingCode: created.pairingCode,
    pairingCodeExpiresAt: created.pairingCodeExpiresAt,
  };
}

/** A fresh pairing code for a channel (`POST /api/channels/:id/pairing-codes`, owner key). */
export async function newPairingCode({ hubUrl, channelId, ownerKey }) {
  const created = await callApi(
    hubUrl,
    "POST",
    `/api/channels/${encodeURIComponent(channelId)}/pairing-codes`,
    {
      token: ownerKey,
    },
  );
  return created.pairingCode;
}

/**
 * The demo channel `npm start` prints: the one recorded in `stateFile` when the hub still has it (its owner key
 * still opens it), with a fresh pairing code; else a new one, recorded there. An agent token the owner has
 * revoked since is replaced by a new one (also recorded), so agents configured with the kept token go on
 * working across restarts. Secrets go only to `stateFile` (written 0600; keep it out of version control).
 */
export async function demoChannel({ hubUrl, stateFile, name = "Demo channel" }) {
  const kept = await readDemoState(stateFile);
  if (kept) {
    const reused = await reopenChannel(hubUrl, kept);
    if (reused) {
      if (reused.agentToken !== kept.agentToken) await writeDemoState(stateFile, reused);
      return { ...reused, reused: true };
    }
  }
  const created = await seedChannel({ hubUrl, name });
  await writeDemoState(stateFile, created);
  return { ...created, reused: false };
}

async function readDemoState(stateFile) {
  let text;
  try {
    text = await readFile(stateFile, "utf8");
  } catch (e) {
    if (e.code === "ENOENT") return null;
    throw e;
  }
  try {
    const state = JSON.parse(text);
    const ok = ["channelId", "ownerKey", "agentToken"].every((k) => typeof state?.[k] === "string");
    return ok ? state : null;
  } catch {
    return null; // A damaged file: start over with a new channel, which rewrites it.
  }
}

async function writeDemoState(stateFile, channel) {
  const { channelId, ownerKey, agentToken } = channel;
  await mkdir(dirname(stateFile), { recursive: true });
  const temp = `${stateFile}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify({ channelId, ownerKey, agentToken }, null, 2) + "\n", { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, stateFile);
}

/** The kept channel with a new pairing code, or null when the hub no longer has it (or the key is revoked). */
async function reopenChannel(hubUrl, { channelId, ownerKey, agentToken }) {
  const path = `/api/channels/${encodeURIComponent(channelId)}`;
  let view;
  try {
    view = await callApi(hubUrl, "GET", path, { token: ownerKey });
  } catch (e) {
    if (e instanceof ApiError && [401, 403, 404].includes(e.status)) return null;
    throw e;
  }
  let token = agentToken;
  if (!(await agentTokenWorks(hubUrl, channelId, agentToken))) {
    const minted = await callApi(hubUrl, "POST", `${path}/agent-tokens`, {
      json: { label: "your agent (token issued by npm start)" },
      token: ownerKey,
    });
    token = minted.agentToken;
  }
  const code = await callApi(hubUrl, "POST", `${path}/pairing-codes`, { token: ownerKey });
  return {
    channelId,
    name: view.channel.name,
    ownerKey,
    agentToken: token,
    mcpUrl: view.mcpUrl,
    mcpCapabilityUrl: `${view.mcpUrl}/k/${token}`,
    pairingCode: code.pairingCode,
    pairingCodeExpiresAt: code.expiresAt,
  };
}

/**
 * Whether the hub takes `agentToken` for the channel: its plain-HTTP call endpoint checks the token before it
 * reads the body, so an empty body answers 400 (token taken, body refused; nothing runs) or 401.
 */
async function agentTokenWorks(hubUrl, channelId, agentToken) {
  try {
    await callApi(hubUrl, "POST", `/api/channels/${encodeURIComponent(channelId)}/calls`, {
      json: {},
      token: agentToken,
    });
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.status === 400) return true;
    if (e instanceof ApiError && (e.status === 401 || e.status === 403)) return false;
    throw e;
  }
}
