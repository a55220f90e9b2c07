// The tasks extension (io.modelcontextprotocol/tasks) on a channel: a call to a tool that waits for the
// user's approval answers at once with a task when the 2026 request declares the extension; the client polls
// tasks/get across requests, may cancel, and only the token that started a task sees it. Without the
// declaration, the same call answers inline as before.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { CallFrame } from "../../src/protocol/index.js";
import { ChannelTasks } from "../../src/worker/mcp/tasks.js";
import type { ChannelRelay } from "../../src/worker/channel-relay.js";
import { api } from "./helpers.js";
import { modernRequest, readJsonRpc } from "./mcp-raw.js";
import {
  connectProvider,
  createChannel,
  echoTool,
  type TestChannel,
  type TestProvider,
} from "./relay-helpers.js";

const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };
const buy = echoTool("buy", { annotations: { readOnlyHint: false } });

async function approvalChannel(): Promise<{ ch: TestChannel; provider: TestProvider; calls: CallFrame[] }> {
  const ch = await createChannel();
  const calls: CallFrame[] = [];
  const provider = await connectProvider(ch, { tools: [buy, echoTool("look")] });
  provider.handler = (call) => {
    calls.push(call);
  };
  return { ch, provider, calls };
}

async function result(res: Response): Promise<Record<string, any>> {
  const body = (await readJsonRpc(res)) as { result?: Record<string, any>; error?: unknown };
  if (!body.result) throw new Error(`expected a result, got ${JSON.stringify(body)}`);
  return body.result;
}

async function error(res: Response): Promise<{ code: number; message: string; data?: any }> {
  return ((await readJsonRpc(res)) as { error: { code: number; message: string; data?: any } }).error;
}

describe("tasks", () => {
  it("runs an approval-waiting call as a task: the handle at once, working while the user decides, then the result", async () => {
    const { ch, provider, calls } = await approvalChannel();
    const created = await result(
      await modernRequest(
        ch,
        "tools/call",
        { name: "buy", arguments: { text: "x" } },
        { capabilities: TASKS },
      ),
    );
    expect(created).toMatchObject({
      resultType: "task",
      status: "working",
      ttlMs: 3_600_000,
      pollIntervalMs: 1000,
    });
    const taskId = created.taskId as string;
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(created).sort()).toEqual([
      "_meta",
      "createdAt",
      "lastUpdatedAt",
      "pollIntervalMs",
      "resultType",
      "status",
      "statusMessage",
      "taskId",
      "ttlMs",
    ]);

    const call = await provider.next("call");
    expect(call.approval?.agent).toBeTruthy();
    expect(calls).toHaveLength(1);
    const working = await result(await modernRequest(ch, "tasks/get", { taskId }, { capabilities: TASKS }));
    expect(working).toMatchObject({ resultType: "complete", taskId, status: "working" });
    expect(working.result).toBeUndefined();

    provider.send({ type: "result", id: call.id, result: { content: [{ type: "text", text: "bought" }] } });
    let done = working;
    while (done.status === "working") {
      done = await result(await modernRequest(ch, "tasks/get", { taskId }, { capabilities: TASKS }));
    }
    expect(done).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: "bought" }] },
    });
  });

  it("cancels a task: the provider is told, the task ends cancelled", async () => {
    const { ch, provider } = await approvalChannel();
    const { taskId } = await result(
      await modernRequest(
        ch,
        "tools/call",
        { name: "buy", arguments: { text: "x" } },
        { capabilities: TASKS },
      ),
    );
    const call = await provider.next("call");
    const ack = await result(await modernRequest(ch, "tasks/cancel", { taskId }, { capabilities: TASKS }));
    expect(ack).toEqual({ resultType: "complete", _meta: expect.any(Object) });
    const cancel = await provider.next("cancel");
    expect(cancel.id).toBe(call.id);
    const after = await result(await modernRequest(ch, "tasks/get", { taskId }, { capabilities: TASKS }));
    expect(after.status).toBe("cancelled");
  });

  it("a tool's own error completes the task with isError; a provider gone before answering fails it with an error", async () => {
    const { ch, provider } = await approvalChannel();
    const poll = async (taskId: string) => {
      for (;;) {
        const t = await result(await modernRequest(ch, "tasks/get", { taskId }, { capabilities: TASKS }));
        if (t.status !== "working") return t;
      }
    };
    const start = async () =>
      (
        await result(
          await modernRequest(
            ch,
            "tools/call",
            { name: "buy", arguments: { text: "x" } },
            { capabilities: TASKS },
          ),
        )
      ).taskId as string;

    const refused = await start();
    const call = await provider.next("call");
    provider.send({
      type: "result",
      id: call.id,
      result: { isError: true, content: [{ type: "text", text: "out of stock" }] },
    });
    const completed = await poll(refused);
    expect(completed).toMatchObject({ status: "completed", result: { isError: true } });
    expect(completed.error).toBeUndefined();

    const cut = await start();
    await provider.next("call");
    provider.close();
    const failed = await poll(cut);
    expect(failed).toMatchObject({ status: "failed", error: { code: -32603 } });
    expect(failed.error.message).toMatch(/disconnected/);
    expect(failed.result).toBeUndefined();
  });

  it("answers read-only tools inline, and every call inline when the request does not declare the extension", async () => {
    const { ch, provider } = await approvalChannel();
    provider.serve(() => ({ content: [{ type: "text", text: "inline" }] }));
    for (const [name, capabilities] of [
      ["look", TASKS],
      ["buy", {}],
    ] as const) {
      const r = await result(
        await modernRequest(ch, "tools/call", { name, arguments: { text: "x" } }, { capabilities }),
      );
      expect(r, name).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "inline" }] });
    }
  });

  it("refuses tasks/get without the extension (-32021), for an unknown id (-32602), and to another agent token", async () => {
    const { ch } = await approvalChannel();
    const { taskId } = await result(
      await modernRequest(
        ch,
        "tools/call",
        { name: "buy", arguments: { text: "x" } },
        { capabilities: TASKS },
      ),
    );
    const missing = await error(await modernRequest(ch, "tasks/get", { taskId }));
    expect(missing.code).toBe(-32021);
    expect(missing.data.requiredCapabilities).toEqual(TASKS);
    expect(
      (await error(await modernRequest(ch, "tasks/get", { taskId: "nope" }, { capabilities: TASKS }))).code,
    ).toBe(-32602);
    const other = await api(`/api/channels/${ch.id}/agent-tokens`, {
      method: "POST",
      json: { label: "other" },
      headers: { authorization: `Bearer ${ch.ownerKey}` },
    });
    const { agentToken } = (await other.json()) as { agentToken: string };
    const foreign = await error(
      await modernRequest(ch, "tasks/get", { taskId }, { capabilities: TASKS, token: agentToken }),
    );
    expect(foreign).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task not found" });
  });

  it("a task still working when the object starts again (eviction, redeploy) is reported failed, and stays so", async () => {
    const { ch, provider } = await approvalChannel();
    const { taskId } = await result(
      await modernRequest(
        ch,
        "tools/call",
        { name: "buy", arguments: { text: "x" } },
        { capabilities: TASKS },
      ),
    );
    const call = await provider.next("call");
    // The runtime does not evict an object while its call is pending, so what a new instance does at start is
    // run here on the same storage: the task store a fresh instance builds.
    await runInDurableObject(
      env.CHANNEL.get(env.CHANNEL.idFromName(ch.id)),
      (instance: ChannelRelay, state) => {
        new ChannelTasks(instance, state.storage.sql);
      },
    );
    const after = await result(await modernRequest(ch, "tasks/get", { taskId }, { capabilities: TASKS }));
    expect(after).toMatchObject({ status: "failed", error: { code: -32603 } });
    expect(after.statusMessage).toMatch(/restarted/);
    provider.send({ type: "result", id: call.id, result: { content: [{ type: "text", text: "late" }] } });
    const still = await result(await modernRequest(ch, "tasks/get", { taskId }, { capabilities: TASKS }));
    expect(still.status).toBe("failed");
  });
});
