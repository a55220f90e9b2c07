// Open on demand: an agent calls a marketplace tool added to the channel while no tab offers it;
// the channel asks the paired extension's control socket to open the tool's published page, waits for a tab
// of the site's origin to register the tool, and runs the call there (with its approval request). The
// extension's socket here is a real WebSocket speaking the control frames by hand, as the service worker does.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { OpenFrame } from "../../src/protocol/index.js";
import {
  EXTENSION,
  connectTab,
  openTabSocket,
  pairedExtension,
  providers,
  snapshot,
  until,
} from "./extension-helpers.js";
import { api, publish, tool, verifiedSite } from "./helpers.js";
import { HUB, TestProvider, connectAgent, createChannel, type TestChannel } from "./relay-helpers.js";

const owner = (ch: TestChannel) => ({ authorization: `Bearer ${ch.ownerKey}` });

/** The extension's control socket, as its service worker keeps it. */
class Control {
  readonly frames: Array<Record<string, unknown>> = [];
  readonly closed: Promise<number>;
  private arrived: () => void = () => {};
  constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
    ws.addEventListener("message", (e) => {
      this.frames.push(JSON.parse(String(e.data)));
      this.arrived();
    });
  }
  send(frame: unknown): void {
    this.ws.send(JSON.stringify(frame));
  }
  /** The next frame of `type`, waiting for frames as they arrive (up to `timeoutMs`). */
  async next(type: string, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.frames.findIndex((f) => f.type === type);
      if (i >= 0) return this.frames.splice(i, 1)[0]!;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${type} frame (got ${JSON.stringify(this.frames)})`);
      await new Promise<void>((resolve) => {
        this.arrived = resolve;
        setTimeout(resolve, left);
      });
    }
  }
  /** Every frame the hub sent before now has arrived: it answers a ping after handling what came before. */
  async flush(): Promise<void> {
    this.ws.send('{ "type": "ping" }');
    await this.next("pong");
  }
}

async function connectControl(ch: TestChannel, token: string, origin: string | null = EXTENSION) {
  const res = await SELF.fetch(`${HUB}/relay/${ch.id}?control=1`, {
    headers: {
      upgrade: "websocket",
      "sec-websocket-protocol": `webmcp-hub.v1, ${token}`,
      ...(origin ? { origin } : {}),
    },
  });
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  ws.accept();
  const control = new Control(ws);
  await control.next("welcome");
  return control;
}

/** A verified site publishing `greet` (page /hello, not read-only) and `sum` (no page); both added to a
 *  channel whose extension is paired and connected for opening pages. */
async function setup() {
  const site = await verifiedSite();
  const published = await publish(site.host, site.key, {
    tools: [
      tool("greet", { title: "Greet", pages: ["/hello?lang=en"] }),
      tool("sum", { annotations: { readOnlyHint: true } }),
    ],
  });
  expect(published.status).toBe(201);
  const ch = await createChannel();
  const addRes = await api(`/api/channels/${ch.id}/tools`, {
    method: "POST",
    json: { host: site.host },
    headers: owner(ch),
  });
  expect(addRes.status).toBe(201);
  const ext = await pairedExtension(ch);
  const control = await connectControl(ch, ext.token);
  return { site, ch, ext, control };
}

/** One plain HTTP call with the channel's agent token. */
async function call(ch: TestChannel, name: string, timeoutMs?: number) {
  const res = await api(`/api/channels/${ch.id}/calls`, {
    method: "POST",
    json: { name, arguments: { text: "hi" }, ...(timeoutMs ? { timeoutMs } : {}) },
    headers: { authorization: `Bearer ${ch.agentToken}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: Array<{ status: string; result: any }> }).results[0]!;
}

async function auditStatus(ch: TestChannel, tool: string): Promise<string[]> {
  const res = await api(`/api/channels/${ch.id}/audit`, { headers: owner(ch) });
  const { entries } = (await res.json()) as { entries: Array<{ tool: string; status: string }> };
  return entries.filter((e) => e.tool === tool).map((e) => e.status);
}

const textOf = (result: { content: Array<{ text: string }> }) => result.content[0]!.text;

describe("opening an added tool's page on demand", () => {
  it("asks the extension to open the page, waits for the tab to register the tool, then runs the call there", async () => {
    const { site, ch, ext, control } = await setup();
    const snap = (await snapshot(ch)) as unknown as { extensionsConnected: number; providers: unknown[] };
    // The control socket is not a provider: it offers no tools and is counted apart.
    expect(snap.extensionsConnected).toBe(1);
    expect(snap.providers).toEqual([]);

    const agent = await connectAgent(ch, undefined, undefined, {
      name: "test-agent",
      version: "1",
      title: "Test Agent",
    });
    const progress: string[] = [];
    const pending = agent.callTool({ name: "greet", arguments: { text: "x" } }, {
      onprogress: (p: { message?: string }) => progress.push(p.message ?? ""),
    } as never);
    const open = (await control.next("open")) as OpenFrame;
    expect(open).toMatchObject({
      type: "open",
      url: `${site.origin}/hello?lang=en`,
      origin: site.origin,
      site: site.host,
      tool: "greet",
      title: "Greet",
      readOnly: false,
      client: "Test Agent",
    });
    expect(open.agent.length).toBeGreaterThan(0);
    expect(open.timeoutMs).toBeGreaterThan(0);
    control.send({ type: "opened", id: open.id });

    // The page loads; the extension's tab socket for it offers the tool; the call reaches it, with approval.
    const tab = await connectTab(ch, ext.token, site.origin, [tool("greet", { title: "Greet" })]);
    const callFrame = await tab.provider.next("call");
    expect(callFrame).toMatchObject({ name: "greet", arguments: { text: "x" } });
    expect(callFrame.approval?.verification).toMatchObject({ status: "verified", site: site.host });
    tab.provider.send({
      type: "result",
      id: callFrame.id,
      result: { content: [{ type: "text", text: "hi!" }] },
    });
    const result = await pending;
    expect(result.content).toEqual([{ type: "text", text: "hi!" }]);
    expect(progress.some((m) => m.includes(`${site.origin}/hello?lang=en`))).toBe(true);

    // The tab stays open: the next call runs there at once, and nothing asks to open another.
    tab.provider.serve(() => ({ content: [{ type: "text", text: "again" }] }));
    expect((await call(ch, "greet")).result.content).toEqual([{ type: "text", text: "again" }]);
    await control.flush();
    expect(control.frames.filter((f) => f.type === "open")).toEqual([]);
    expect(await auditStatus(ch, "greet")).toEqual(["ok", "ok"]);
    await agent.close();
    tab.provider.close();
  });

  it("opens a page once for calls that come together (one pending open per tool and channel)", async () => {
    const { site, ch, ext, control } = await setup();
    const calls = [call(ch, "greet"), call(ch, "greet"), call(ch, "greet")];
    const open = (await control.next("open")) as OpenFrame;
    control.send({ type: "opened", id: open.id });
    const tab = await connectTab(ch, ext.token, site.origin, [tool("greet", { title: "Greet" })]);
    // All three calls reach the one tab (they arrive as soon as it offers the tool).
    for (let i = 0; i < 3; i++) {
      const frame = await tab.provider.next("call");
      tab.provider.send({
        type: "result",
        id: frame.id,
        result: { content: [{ type: "text", text: `ran ${i}` }] },
      });
    }
    const results = await Promise.all(calls);
    expect(results.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
    expect(results.map((r) => textOf(r.result)).sort()).toEqual(["ran 0", "ran 1", "ran 2"]);
    // All three have run: any second open would have been sent by now, and has arrived once a ping is answered.
    await control.flush();
    expect(control.frames.filter((f) => f.type === "open")).toEqual([]);
    tab.provider.close();
  });

  it("a tab whose tool reads exactly like the added one ends the open, even when the tools agents see were read between its hello and its tools", async () => {
    const { site, ch, ext, control } = await setup();
    const pending = call(ch, "greet");
    control.send({ type: "opened", id: ((await control.next("open")) as OpenFrame).id });
    const res = await openTabSocket(ch, ext.token, site.origin);
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    ws.accept();
    const provider = new TestProvider(ws, ext.token);
    const { providerId } = await provider.next("welcome");
    provider.send({ type: "hello", kind: "tab", label: "tab", version: "test" });
    // The owner's snapshot reads the tools agents see after the hello, before the tab's tools arrive.
    await until(async () => (await providers(ch)).some((p) => p.id === providerId), "the tab's hello");
    provider.send({ type: "tools", tools: [tool("greet", { title: "Greet" })] });
    const frame = await provider.next("call");
    provider.send({ type: "result", id: frame.id, result: { content: [{ type: "text", text: "ran" }] } });
    const result = await pending;
    expect(result.status).toBe("ok");
    expect(textOf(result.result)).toBe("ran");
    provider.close();
  });

  it("the user declining, or never sharing the site, is an isError saying so; nothing runs", async () => {
    const { site, ch, control } = await setup();
    const declined = call(ch, "greet");
    control.send({
      type: "open-failed",
      id: ((await control.next("open")) as OpenFrame).id,
      reason: "declined",
    });
    const d = await declined;
    expect(d.status).toBe("denied");
    expect(d.result.isError).toBe(true);
    expect(textOf(d.result)).toContain(`The user declined to open ${site.origin}/hello?lang=en`);

    const blocked = call(ch, "greet");
    const open = (await control.next("open")) as OpenFrame;
    control.send({ type: "open-failed", id: open.id, reason: "blocked", message: "never shared" });
    const b = await blocked;
    expect(b.status).toBe("denied");
    expect(textOf(b.result)).toContain(`never shares ${site.origin} in the webmcp-hub extension`);
    expect(await auditStatus(ch, "greet")).toEqual(["denied", "denied"]);
    // The extension answered both (its prompts are gone): the hub withdraws nothing.
    await control.flush();
    expect(control.frames.filter((f) => f.type === "open-cancel")).toEqual([]);
  });

  it("a page that never registers the tool, or a user who never answers, ends with a timeout; the prompt is withdrawn", async () => {
    const { site, ch, ext, control } = await setup();
    const never = call(ch, "greet", 400);
    control.send({ type: "opened", id: ((await control.next("open")) as OpenFrame).id });
    // A tab of the site opens but offers other tools only.
    const tab = await connectTab(ch, ext.token, site.origin, [tool("other")]);
    const n = await never;
    expect(n.status).toBe("timeout");
    expect(textOf(n.result)).toContain(
      `${site.origin}/hello?lang=en opened in the user's browser but did not register greet`,
    );

    const unanswered = call(ch, "greet", 300);
    const open = (await control.next("open")) as OpenFrame;
    const u = await unanswered;
    expect(u.status).toBe("timeout");
    expect(textOf(u.result)).toContain("The user did not answer the request to open");
    expect(await control.next("open-cancel")).toMatchObject({ type: "open-cancel", id: open.id });
    expect(await auditStatus(ch, "greet")).toEqual(["timeout", "timeout"]);
    tab.provider.close();
  });

  it("a tool with no published page, or a tab of another origin offering its name, never counts", async () => {
    const { ch, ext, control } = await setup();
    // `sum` publishes no page: nothing is opened; the answer says to open one of the site's pages.
    const sum = await call(ch, "sum");
    expect(sum.status).toBe("disconnected");
    expect(textOf(sum.result)).toContain("publishes no page");
    expect(control.frames.filter((f) => f.type === "open")).toEqual([]);

    // Another site's tab offering `greet` is not the added tool's page: the wait goes on until it times out.
    const pending = call(ch, "greet", 400);
    control.send({ type: "opened", id: ((await control.next("open")) as OpenFrame).id });
    const other = await connectTab(ch, ext.token, "https://impostor.example", [tool("greet")]);
    other.provider.serve(() => ({ content: [{ type: "text", text: "impostor ran" }] }));
    const r = await pending;
    expect(r.status).toBe("timeout");
    expect(JSON.stringify(r.result)).not.toContain("impostor ran");
    other.provider.close();
  });

  it("an extension that disconnects while the user decides ends the call; revoking its token closes the control socket", async () => {
    const { ch, ext, control } = await setup();
    const pending = call(ch, "greet");
    await control.next("open");
    control.ws.close(1000, "bye");
    const r = await pending;
    expect(r.status).toBe("disconnected");
    expect(textOf(r.result)).toContain("disconnected before the user answered");

    const again = await connectControl(ch, ext.token);
    const res = await api(`/api/channels/${ch.id}/providers/${ext.tokenId}`, {
      method: "DELETE",
      headers: owner(ch),
    });
    expect(res.status).toBe(200);
    expect(await again.closed).toBe(4001);
    await until(async () => ((await snapshot(ch)) as any).extensionsConnected === 0, "no control socket");
  });
});
