// Seeds the hub through its public API, exactly as a site owner and a user would: register the demo origin,
// serve the challenge token, verify over HTTP, publish the manifest (and point the demo pages' bridge at
// this hub); and create a channel the demo pages can pair with. Safe to repeat: a known origin gets a new
// claim, verifying it issues a new publisher key, and an unchanged manifest is not stored twice.

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
    throw new Error(`${method} ${path} answered ${res.status} (${detail})`);
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
