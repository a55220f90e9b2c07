// A real OAuth MCP client against `wrangler dev`: the MCP SDK client's OAuth support (Dynamic Client
// Registration, PKCE, the Streamable HTTP transport) discovers the hub from the channel's plain MCP URL, a
// real Chromium signs up with a passkey (CDP virtual authenticator) and allows access on the consent page,
// and the client lists and calls a relayed tool; disconnecting the app in the console's API cuts it off
// mid-session. Then the official conformance suite's authorization scenarios run against the hub, the same
// browser completing their consent step.
import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { CDPSession, Page } from "playwright-core";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/client";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import { launchBrowser, type E2EBrowser } from "./browser.js";
import { freePort } from "../../scripts/lib/ports.mjs";
import {
  AUTHORIZATION_SCENARIOS,
  runAuthorizationConformance,
} from "../../scripts/conformance-authorization.mjs";
import {
  CONFORMANCE_TOOLS,
  startConformanceProvider,
  waitForTools,
} from "../support/conformance-provider.mjs";

/** Passkeys (and so the consent page's session) need a host name: the whole flow runs on localhost. */
const hubUrl = inject("hubUrl").replace("//127.0.0.1:", "//localhost:");
const AUTHENTICATOR = {
  protocol: "ctap2",
  transport: "internal",
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: true,
  automaticPresenceSimulation: true,
} as const;

/**
 * The OAuth client's redirect target: a local server that hands over what the browser brings — the whole
 * callback query, so the client checks `iss` (RFC 9207, which the hub's metadata says it sends) with the code.
 */
async function callbackServer(): Promise<{
  url: string;
  nextCode: () => Promise<URLSearchParams>;
  close: () => void;
}> {
  let deliver: ((params: URLSearchParams) => void) | undefined;
  let pending = new Promise<URLSearchParams>((resolve) => (deliver = resolve));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const code = url.searchParams.get("code");
    res
      .writeHead(200, { "content-type": "text/plain" })
      .end(code ? "Connected. You can close this tab." : "No code.");
    if (code) deliver?.(url.searchParams);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    nextCode: async () => {
      const params = await pending;
      pending = new Promise<URLSearchParams>((resolve) => (deliver = resolve));
      return params;
    },
    close: () => server.close(),
  };
}

/** The SDK's OAuthClientProvider, in memory; the "browser" it opens is the test's Chromium. */
class BrowserOAuthProvider implements OAuthClientProvider {
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = "";
  constructor(
    private readonly redirect: string,
    private readonly open: (url: URL) => Promise<void>,
    /** A Client ID Metadata Document URL: then the SDK uses it as client_id instead of registering. */
    readonly clientMetadataUrl?: string,
    private readonly name = "E2E SDK app",
  ) {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    await this.open(url);
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe("an OAuth MCP client end to end", () => {
  let browser: E2EBrowser;
  let page: Page;
  let cdp: CDPSession;
  let channel: { id: string; ownerKey: string; mcpUrl: string };
  let provider: Awaited<ReturnType<typeof startConformanceProvider>>;
  const problems: string[] = [];

  /** The consent step as a person does it: the page names the app and the channel; Allow. */
  const consent = async (url: string, appName: string) => {
    await page.goto(url);
    await page.locator("#consent-allow, #authorize-problem").first().waitFor();
    if (!(await page.locator("#consent-allow").count()))
      throw new Error(`no consent form at ${page.url()}: ${await page.locator("main").textContent()}`);
    expect(await page.locator("#consent-client-name").textContent()).toBe(appName);
    expect(await page.locator("#consent-channel-name").textContent()).toBe("OAuth e2e channel");
    await page.locator("#consent-allow").focus();
    await page.keyboard.press("Enter");
    // The client's callback page (the suite's server answers once and closes: the load may be aborted).
    await page.waitForURL(/127\.0\.0\.1:\d+\/callback/, { waitUntil: "commit" });
  };

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on("pageerror", (e) => problems.push(e.message));
    cdp = await browser.context.newCDPSession(page);
    await cdp.send("WebAuthn.enable", { enableUI: false });
    await cdp.send("WebAuthn.addVirtualAuthenticator", { options: AUTHENTICATOR });
    // Sign up with a passkey, then create a channel while signed in: the account owns it.
    await page.goto(`${hubUrl}/signin`);
    await page.getByLabel("Your name").fill("Grace");
    await page.getByRole("button", { name: "Create account with a passkey" }).click();
    await page.waitForURL(`${hubUrl}/account`);
    const created = await page.request.post(`${hubUrl}/api/channels`, {
      data: { name: "OAuth e2e channel" },
      headers: { origin: hubUrl },
    });
    expect(created.status()).toBe(201);
    const body = (await created.json()) as {
      channel: { id: string };
      ownerKey: string;
      pairingCode: string;
    };
    channel = { id: body.channel.id, ownerKey: body.ownerKey, mcpUrl: `${hubUrl}/mcp/${body.channel.id}` };
    provider = await startConformanceProvider({ hubUrl, pairingCode: body.pairingCode });
    await waitForTools(
      hubUrl,
      channel.id,
      channel.ownerKey,
      CONFORMANCE_TOOLS.map((t) => t.name),
    );
  }, 120_000);

  afterAll(async () => {
    await provider?.close();
    await browser?.close();
  });

  it("connects by DCR from the plain MCP URL, calls a relayed tool, and is cut off when disconnected", async () => {
    const callback = await callbackServer();
    try {
      let consentFailure: Promise<never> | undefined;
      const oauth = new BrowserOAuthProvider(callback.url, async (url) => {
        consentFailure = consent(url.href, "E2E SDK app").then(
          () => new Promise<never>(() => {}),
          (e: unknown) => Promise.reject(e instanceof Error ? e : new Error(String(e))),
        );
        consentFailure.catch(() => {});
      });
      const first = new StreamableHTTPClientTransport(new URL(channel.mcpUrl), { authProvider: oauth });
      const probe = new Client({ name: "e2e-oauth", version: "1.0.0" });
      await expect(probe.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
      await first.finishAuth(await Promise.race([callback.nextCode(), consentFailure!]));
      expect(oauth.tokens()?.access_token).toBeTruthy();

      const client = new Client({ name: "e2e-oauth", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(channel.mcpUrl), { authProvider: oauth }),
      );
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["test_simple_text"]));
      const result = await client.callTool({ name: "test_simple_text", arguments: {} });
      expect(result.isError ?? false).toBe(false);

      // The console's list shows the app; disconnecting it ends the session at once.
      const listed = await page.request.get(`${hubUrl}/api/channels/${channel.id}/connected-apps`);
      const { connectedApps } = (await listed.json()) as {
        connectedApps: Array<{ grantId: string; clientName: string; lastUsedAt: string | null }>;
      };
      const app = connectedApps.find((a) => a.clientName === "E2E SDK app");
      expect(app?.lastUsedAt).not.toBeNull();
      const revoked = await page.request.delete(
        `${hubUrl}/api/channels/${channel.id}/connected-apps/${app!.grantId}`,
        { headers: { origin: hubUrl } },
      );
      expect(revoked.status()).toBe(200);
      expect(((await revoked.json()) as { closedSessions: number }).closedSessions).toBe(1);
      await expect(client.callTool({ name: "test_simple_text", arguments: {} })).rejects.toThrow();
      await client.close().catch(() => {});
    } finally {
      callback.close();
    }
    expect(problems).toEqual([]);
  });

  it("connects again with a Client ID Metadata Document served over https by a local server", async () => {
    const callback = await callbackServer();
    const tls = inject("localhostTls");
    let documentUrl = "";
    const fetched: string[] = [];
    const cimd = createHttpsServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      fetched.push(req.url ?? "");
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          client_id: documentUrl,
          client_name: "E2E CIMD app",
          redirect_uris: [callback.url],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
        }),
      );
    });
    await new Promise<void>((resolve) => cimd.listen(0, "127.0.0.1", resolve));
    documentUrl = `https://localhost:${(cimd.address() as AddressInfo).port}/oauth/client.json`;
    try {
      let consentFailure: Promise<never> | undefined;
      const oauth = new BrowserOAuthProvider(
        callback.url,
        async (url) => {
          expect(url.searchParams.get("client_id")).toBe(documentUrl);
          consentFailure = consent(url.href, "E2E CIMD app").then(
            () => new Promise<never>(() => {}),
            (e: unknown) => Promise.reject(e instanceof Error ? e : new Error(String(e))),
          );
          consentFailure.catch(() => {});
        },
        documentUrl,
        "E2E CIMD app",
      );
      const first = new StreamableHTTPClientTransport(new URL(channel.mcpUrl), { authProvider: oauth });
      await expect(new Client({ name: "e2e-cimd", version: "1" }).connect(first)).rejects.toBeInstanceOf(
        UnauthorizedError,
      );
      await first.finishAuth(await Promise.race([callback.nextCode(), consentFailure!]));
      expect(fetched).toContain("/oauth/client.json");
      const client = new Client({ name: "e2e-cimd", version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(channel.mcpUrl), { authProvider: oauth }),
      );
      const result = await client.callTool({ name: "test_simple_text", arguments: {} });
      expect(result.isError ?? false).toBe(false);
      await client.close();
    } finally {
      callback.close();
      cimd.close();
    }
  });

  it("passes the conformance suite's authorization scenarios", async () => {
    const { results, output } = await runAuthorizationConformance({
      hubUrl,
      resource: channel.mcpUrl,
      port: await freePort(),
      authorize: (url) => consent(url, "MCP conformance suite"),
    });
    for (const scenario of AUTHORIZATION_SCENARIOS) {
      const checks = results[scenario] ?? [];
      expect(checks.length, `${scenario}\n${output}`).toBeGreaterThan(0);
      const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
      expect(bad, `${scenario}\n${output}`).toEqual([]);
    }
  }, 300_000);
});
