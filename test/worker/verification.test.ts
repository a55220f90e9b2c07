// Live tools checked against what their tab's origin published, and the channel's verification policy:
// a verified site publishes a manifest, a tab of that origin offers one identical tool, one changed, one the
// site never published (and one from a frame); a sidecar's tool is not checked.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { CallFrame } from "../../src/protocol/index.js";
import { api, expectError, publish, tool, verifiedSite } from "./helpers.js";
import {
  connectAgent,
  connectProvider,
  createChannel,
  echoTool,
  type TestChannel,
  until,
} from "./relay-helpers.js";

const owner = (ch: TestChannel) => ({ authorization: `Bearer ${ch.ownerKey}` });
const KEY = "webmcp-hub/verification";

async function setPolicy(ch: TestChannel, verificationPolicy: string): Promise<Response> {
  return api(`/api/channels/${ch.id}`, { method: "PATCH", json: { verificationPolicy }, headers: owner(ch) });
}

/** A channel with a tab of a verified site's origin: `same` as published, `edited` changed, `extra` unpublished. */
async function setup() {
  const site = await verifiedSite();
  const published = [tool("same"), tool("edited", { annotations: { readOnlyHint: "true" } }), tool("framed")];
  const res = await publish(site.host, site.key, { tools: published });
  expect(res.status).toBe(201);
  const { version } = (await res.json()) as { version: number };
  const ch = await createChannel();
  const calls: CallFrame[] = [];
  const tab = await connectProvider(ch, {
    kind: "tab",
    origin: site.origin,
    tools: [
      tool("same"),
      // Another description (and the published "true" hint is a boolean live: hints compare as booleans).
      tool("edited", { description: "Now does something else.", annotations: { readOnlyHint: true } }),
      tool("extra"),
      { ...tool("framed"), frameOrigin: "https://widget.example" } as ReturnType<typeof tool>,
    ],
  });
  tab.serve((call) => {
    calls.push(call);
    return { content: [{ type: "text", text: `ran ${call.name}` }] };
  });
  (await connectProvider(ch, { kind: "sidecar", label: "files", tools: [echoTool("read_file")] })).serve(
    () => ({ content: [{ type: "text", text: "file" }] }),
  );
  return { site, version, ch, calls };
}

describe("live tools checked against the published manifest", () => {
  it("marks each tab tool verified, changed (with what differs) or unpublished; sidecar tools carry no mark", async () => {
    const { site, version, ch } = await setup();
    const agent = await connectAgent(ch);
    const { tools } = await agent.listTools();
    const meta = Object.fromEntries(tools.map((t) => [t.name, t._meta?.[KEY]]));
    expect(meta).toEqual({
      same: { status: "verified", site: site.host, version },
      edited: { status: "changed", site: site.host, version, differs: ["description"] },
      extra: { status: "unpublished", site: site.host, version },
      // A frame's tool is checked against the tab's own origin, whatever frame registered it.
      framed: { status: "verified", site: site.host, version },
      read_file: undefined,
    });
    // Policy "all" (the default): descriptions are the tools' own.
    expect(tools.find((t) => t.name === "edited")?.description).toBe("Now does something else.");

    // The owner's view shows the same verification for each tool, and the policy.
    const snap = (await (await api(`/api/channels/${ch.id}`, { headers: owner(ch) })).json()) as any;
    expect(snap.channel.verificationPolicy).toBe("all");
    const byName = Object.fromEntries(snap.tools.map((t: any) => [t.name, t.verification]));
    expect(byName.edited).toEqual({ status: "changed", site: site.host, version, differs: ["description"] });
    expect(byName.read_file).toBeNull();
  });

  it("a tab of an origin with no verified site: its tools are unpublished", async () => {
    const ch = await createChannel();
    await connectProvider(ch, { kind: "tab", origin: "https://nobody.example", tools: [tool("same")] });
    const { tools } = await (await connectAgent(ch)).listTools();
    expect(tools[0]?._meta?.[KEY]).toEqual({ status: "unpublished" });
  });

  it("D1 failing leaves tools unchecked (listed, no mark) and the verified policy refuses them, saying why", async () => {
    const site = await verifiedSite();
    expect((await publish(site.host, site.key, { tools: [tool("same")] })).status).toBe(201);
    const ch = await createChannel();
    expect((await setPolicy(ch, "verified")).status).toBe(200);
    await env.DB.exec("ALTER TABLE manifest_versions RENAME TO manifest_versions_away");
    try {
      // The tools frame and the owner's view do not wait on (or fail with) the registry.
      const tab = await connectProvider(ch, { kind: "tab", origin: site.origin, tools: [tool("same")] });
      tab.serve(() => ({ content: [{ type: "text", text: "ran" }] }));
      const agent = await connectAgent(ch);
      const [listed] = (await agent.listTools()).tools;
      expect(listed?._meta?.[KEY]).toBeUndefined();
      expect(listed?.description).toMatch(/^\[Unchecked: the hub could not check this tool against /);
      const refused = await agent.callTool({ name: "same", arguments: { text: "x" } });
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0]!.text).toContain("could not check it");
    } finally {
      await env.DB.exec("ALTER TABLE manifest_versions_away RENAME TO manifest_versions");
    }
  });

  it("carries the verification in the approval request the tab gets", async () => {
    const { site, version, ch, calls } = await setup();
    const agent = await connectAgent(ch);
    const result = await agent.callTool({ name: "same", arguments: { text: "x" } });
    expect(result.isError).toBeFalsy();
    expect(calls[0]?.approval?.verification).toEqual({ status: "verified", site: site.host, version });
  });
});

describe("the channel's verification policy", () => {
  it("is set by the owner through REST; an unknown policy or a stranger is refused", async () => {
    const { ch } = await setup();
    await expectError(await setPolicy(ch, "sometimes"), 400, "validation_failed");
    const other = await createChannel();
    const res = await api(`/api/channels/${ch.id}`, {
      method: "PATCH",
      json: { verificationPolicy: "warn" },
      headers: owner(other),
    });
    expect(res.status).toBe(403);
    const ok = await setPolicy(ch, "warn");
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).channel.verificationPolicy).toBe("warn");
    const snap = (await (await api(`/api/channels/${ch.id}`, { headers: owner(ch) })).json()) as any;
    expect(snap.channel.verificationPolicy).toBe("warn");
  });

  it("warn: prefixes a warning to the description of every tab tool that is not verified", async () => {
    const { site, ch } = await setup();
    const agent = await connectAgent(ch);
    expect((await setPolicy(ch, "warn")).status).toBe(200);
    const { tools } = await agent.listTools();
    const desc = Object.fromEntries(tools.map((t) => [t.name, t.description]));
    expect(desc.same).toBe("The same tool does same things.");
    expect(desc.edited).toBe(
      `[Unverified: this tool's definition differs from what ${site.host} published (description)] Now does something else.`,
    );
    expect(desc.extra).toBe(
      `[Unpublished: ${site.origin} has not published this tool] The extra tool does extra things.`,
    );
    expect(desc.read_file).toBe("Echoes its text (read_file).");
    // Calls still run.
    expect((await agent.callTool({ name: "extra", arguments: { text: "x" } })).isError).toBeFalsy();
  });

  it("verified: lists the others with a note, refuses their calls with isError, and audits them", async () => {
    const { site, ch, calls } = await setup();
    const agent = await connectAgent(ch);
    expect((await setPolicy(ch, "verified")).status).toBe(200);
    const { tools } = await agent.listTools();
    expect(tools.find((t) => t.name === "extra")?.description).toMatch(
      /^\[Unpublished: .* has not published this tool; this channel refuses calls to it\] /,
    );
    const refused = await agent.callTool({ name: "edited", arguments: { text: "x" } });
    expect(refused.isError).toBe(true);
    const text = (refused.content as Array<{ text: string }>)[0]!.text;
    expect(text).toContain("only allows verified tools");
    expect(text).toContain("(description)");
    expect(text).toContain('verification policy "all" or "warn"');
    expect((await agent.callTool({ name: "extra", arguments: { text: "x" } })).isError).toBe(true);
    // Verified tools and sidecar tools still run; nothing refused reached the tab.
    expect((await agent.callTool({ name: "same", arguments: { text: "x" } })).isError).toBeFalsy();
    expect((await agent.callTool({ name: "read_file", arguments: { text: "x" } })).isError).toBeFalsy();
    expect(calls.map((c) => c.name)).toEqual(["same"]);

    const audit = (await (await api(`/api/channels/${ch.id}/audit`, { headers: owner(ch) })).json()) as any;
    expect(audit.entries.map((e: any) => [e.tool, e.status, e.verification])).toEqual([
      ["read_file", "ok", null],
      ["same", "ok", "verified"],
      ["extra", "denied", "unpublished"],
      ["edited", "denied", "changed"],
    ]);
    expect(audit.entries[3].message).toContain("only allows verified tools");

    // The site publishes the live definition: the next call is checked against it at once, and runs; agents
    // are told the list changed (the tool is verified now).
    let changed = 0;
    agent.setNotificationHandler("notifications/tools/list_changed", () => {
      changed++;
    });
    const republished = await publish(site.host, site.key, {
      tools: [
        tool("same"),
        tool("edited", { description: "Now does something else.", annotations: { readOnlyHint: true } }),
        tool("framed"),
      ],
    });
    expect(republished.status).toBe(201);
    expect((await agent.callTool({ name: "edited", arguments: { text: "x" } })).isError).toBeFalsy();
    await until(() => changed > 0, "notifications/tools/list_changed");
    expect(changed).toBeGreaterThan(0);
    const listed = (await agent.listTools()).tools.find((t) => t.name === "edited");
    expect(listed?._meta?.[KEY]).toMatchObject({ status: "verified", version: 2 });
    expect(listed?.description).toBe("Now does something else.");

    // Back to "all": the tool that is still unpublished runs again.
    expect((await setPolicy(ch, "all")).status).toBe(200);
    expect((await agent.callTool({ name: "extra", arguments: { text: "x" } })).isError).toBeFalsy();
  });
});
