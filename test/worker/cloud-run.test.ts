// cloud/run.ts as a function: what the hub makes of each answer of its runner (a result, each failure, a runner
// that is absent, failing or unreachable) and the result and audit status a caller gets for each.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CloudFailureSchema, type CloudRunRequest } from "../../src/protocol/index.js";
import { cloudAuditStatus, cloudCallResult, runInCloud } from "../../src/worker/cloud/run.js";

const request: CloudRunRequest = {
  site: "shop.example",
  origin: "https://shop.example",
  page: "https://shop.example/",
  tool: "lookup",
  arguments: { word: "a" },
  digest: "0".repeat(64),
  timeoutMs: 5_000,
  via: "public",
};

/** The env with CLOUD answering as `answer` does (the runner's RPC method, protocol/cloud.ts CloudRunner). */
const withRunner = (answer: (req: CloudRunRequest) => unknown) =>
  ({ ...env, CLOUD: { run: async (req: CloudRunRequest) => answer(req) } }) as unknown as Env;

describe("runInCloud", () => {
  it("calls the runner with the request and passes its answer through", async () => {
    let seen: unknown;
    const res = await runInCloud(
      withRunner((req) => {
        seen = req;
        return { ok: true, result: { content: [] }, browserMs: 12, warm: true };
      }),
      request,
    );
    expect(seen).toEqual(request);
    expect(res).toEqual({ ok: true, result: { content: [] }, browserMs: 12, warm: true });
  });

  it("makes a runner that cannot be reached or throws `disabled`, one that answers garbage `crashed`", async () => {
    // The Worker tests' CLOUD: a fetch-only service with no `run` (as the dev registry with no runner).
    const absent = await runInCloud(env, request);
    expect(absent).toMatchObject({ ok: false, failure: "disabled" });
    expect(absent).toMatchObject({ message: expect.stringContaining("could not reach its cloud runner") });
    const throwing = await runInCloud(
      withRunner(() => {
        throw new Error("connection refused");
      }),
      request,
    );
    expect(throwing).toMatchObject({ ok: false, failure: "disabled" });
    expect(throwing).toMatchObject({ message: expect.stringContaining("connection refused") });
    const garbled = await runInCloud(
      withRunner(() => ({ ok: "yes" })),
      request,
    );
    expect(garbled).toMatchObject({ ok: false, failure: "crashed" });
  });

  it("stops waiting when the caller gives up, or past the run's time and a grace, as `timeout`", async () => {
    const never = withRunner(() => new Promise(() => {}));
    const caller = new AbortController();
    const pending = runInCloud(never, request, caller.signal);
    caller.abort();
    expect(await pending).toMatchObject({ ok: false, failure: "timeout" });
    const short = await runInCloud(never, { ...request, timeoutMs: 1 });
    expect(short).toMatchObject({ ok: false, failure: "timeout" });
  });

  it("asks no runner when the operator turned cloud runs off", async () => {
    let asked = false;
    const off = {
      ...withRunner(() => ((asked = true), {})),
      CLOUD_RUNS: "off",
    } as unknown as Env;
    expect(await runInCloud(off, request)).toMatchObject({ ok: false, failure: "disabled" });
    expect(asked).toBe(false);
  });
});

describe("what a caller gets", () => {
  it("the page's own result as it is, audited ok (or error when the tool said isError)", () => {
    const ok = {
      ok: true as const,
      result: { content: [{ type: "text", text: "hi" }] },
      browserMs: 1,
      warm: false,
    };
    expect(cloudCallResult("lookup", "shop.example", ok)).toEqual({
      content: [{ type: "text", text: "hi" }],
    });
    expect(cloudAuditStatus(ok, cloudCallResult("lookup", "shop.example", ok))).toBe("ok");
    const own = { ...ok, result: { content: [{ type: "text", text: "no" }], isError: true } };
    expect(cloudAuditStatus(own, cloudCallResult("lookup", "shop.example", own))).toBe("error");
  });

  it("for every failure, an isError naming it, the runner's words and what to do; policy refusals are denied", () => {
    const statuses: Record<string, string> = {};
    for (const failure of CloudFailureSchema.options) {
      const res = { ok: false as const, failure, message: "The runner said so.", browserMs: 0 };
      const result = cloudCallResult("lookup", "shop.example", res);
      expect(result.isError).toBe(true);
      const text = (result.content[0] as { text: string }).text;
      expect(text).toMatch(
        new RegExp(
          `^lookup of shop\\.example did not run in the hub's cloud browser \\(${failure}\\): The runner said so\\. \\S`,
        ),
      );
      statuses[failure] = cloudAuditStatus(res, result);
    }
    expect(statuses).toEqual({
      disabled: "denied",
      budget: "denied",
      busy: "error",
      load: "error",
      navigation: "error",
      unregistered: "denied",
      changed: "denied",
      timeout: "timeout",
      too_large: "error",
      crashed: "error",
    });
  });
});
