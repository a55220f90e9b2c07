// Cloud runs in a channel (cloud/channel.ts): an added marketplace tool its site marks cloud is listed with
// provider `cloud`, and a call with no tab open goes to the hub's runner before any page is opened, audited
// with provider `cloud`; an added tool that is not cloud keeps the open-on-demand path. The Worker pool runs no
// runner (vitest.config.ts), so the run itself ends "not available" here; test/e2e/cloud.test.ts runs it.
import { describe, expect, it } from "vitest";
import { api, publish, tool, verifiedSite } from "./helpers.js";
import { connectAgent, createChannel, type TestChannel } from "./relay-helpers.js";

const owner = (ch: TestChannel) => ({ authorization: `Bearer ${ch.ownerKey}` });
const PROVIDER = "webmcp-hub/provider";

async function setup() {
  const site = await verifiedSite();
  const res = await publish(site.host, site.key, {
    tools: [
      tool("lookup", { annotations: { readOnlyHint: true }, pages: ["/lookup"], cloud: true }),
      tool("greet", { pages: ["/hello"] }),
    ],
  });
  expect(res.status).toBe(201);
  const ch = await createChannel();
  const added = await api(`/api/channels/${ch.id}/tools`, {
    method: "POST",
    json: { host: site.host },
    headers: owner(ch),
  });
  expect(added.status).toBe(201);
  return { site, ch };
}

const textOf = (r: { content?: unknown }) =>
  ((r.content as Array<{ text?: string }>)[0]?.text ?? "") as string;

describe("an added cloud tool with no tab open", () => {
  it("is listed with provider cloud; the other added tool stays a registry one", async () => {
    const { site, ch } = await setup();
    for (const era of ["legacy", "modern"] as const) {
      const agent = await connectAgent(ch, undefined, undefined, undefined, { era });
      const { tools } = await agent.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      expect(byName.get("lookup")!._meta?.[PROVIDER]).toMatchObject({
        kind: "cloud",
        origin: site.origin,
        site: site.host,
      });
      expect(byName.get("greet")!._meta?.[PROVIDER]).toMatchObject({ kind: "registry" });
      // The manifest's `cloud` key is the registry's, not part of an MCP tool definition.
      expect(byName.get("lookup")).not.toHaveProperty("cloud");
      await agent.close();
    }
  });

  it("goes to the cloud runner before any page is opened, and its audit row names the provider cloud", async () => {
    const { site, ch } = await setup();
    const agent = await connectAgent(ch);
    const result = await agent.callTool({ name: "lookup", arguments: { text: "hi" } });
    expect(result.isError).toBe(true);
    // No runner in this pool: the hub's answer for a runner it cannot reach.
    expect(textOf(result)).toContain(
      `lookup of ${site.host} did not run in the hub's cloud browser (disabled)`,
    );
    const bad = await agent.callTool({ name: "lookup", arguments: {} });
    expect(textOf(bad)).toMatch(/^Invalid arguments for lookup: /);
    // The tool that is not cloud keeps open on demand, which says no extension is connected.
    const greet = await agent.callTool({ name: "greet", arguments: { text: "hi" } });
    expect(textOf(greet)).toContain("No browser with the webmcp-hub extension paired to this channel");
    await agent.close();

    const audit = await api(`/api/channels/${ch.id}/audit?tool=lookup`, { headers: owner(ch) });
    const { entries } = (await audit.json()) as {
      entries: Array<{ status: string; provider: { id: string; label: string; origin: string } | null }>;
    };
    expect(entries.map((e) => e.status)).toEqual(["invalid", "denied"]);
    for (const e of entries) expect(e.provider).toEqual({ id: "cloud", label: "cloud", origin: site.origin });
  });

  it("says why it did not run when its site's owner turned cloud runs off and no extension can open its page", async () => {
    const { site, ch } = await setup();
    const off = await api(`/api/sites/${encodeURIComponent(site.host)}/cloud`, {
      method: "PUT",
      json: { enabled: false },
      headers: { authorization: `Bearer ${site.key}` },
    });
    expect(off.status).toBe(200);
    const agent = await connectAgent(ch);
    const result = await agent.callTool({ name: "lookup", arguments: { text: "hi" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      `lookup did not run: The owner of ${site.host} has turned cloud runs off for the site. No browser with the webmcp-hub extension is connected to this channel to open its page instead.`,
    );
    await agent.close();
  });
});
