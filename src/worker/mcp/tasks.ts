// The tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) for a channel: a call to a tool that is
// not read-only (it waits for the user's approval in a tab, which can take minutes) answers at once with a
// task handle when the request declares the extension, and runs on inside the channel's object; the client
// polls `tasks/get` across as many HTTP requests as it likes, and may `tasks/cancel`. Read-only tools and
// clients that do not declare the extension get today's inline result. A call that ends with no tool result
// (its provider disconnected, or it timed out) is a failed task with a JSON-RPC error; a tool's own error
// (isError, a declined approval) is a completed task whose result says so.
//
// Tasks are rows of the object's SQLite (`mcp_tasks`), so a poll works on any request. A task belongs to
// the agent token that started it: another token's `tasks/get` is told the task does not exist. A task
// whose call was running when the object lost its memory (eviction, redeploy) cannot finish; it is marked
// failed when the object starts again. Finished tasks are kept TASK_TTL_MS from creation.
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import * as z from "zod";
import type { AgentContext } from "../../protocol/index.js";
import type { CallRequest, ChannelTools } from "../relay/channel-port.js";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** How long a task (and its result) is kept, from creation. */
export const TASK_TTL_MS = 60 * 60 * 1000;
/** The polling interval suggested to clients. */
export const TASK_POLL_INTERVAL_MS = 1_000;
/** HeaderMismatch (2026-07-28): a routing header disagrees with the body. */
const HEADER_MISMATCH = -32020;
/** Tasks kept per channel; past it the oldest finished ones go first. */
const MAX_TASKS = 1_000;

type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

type TaskRow = {
  id: string;
  agent_token_id: string;
  status: TaskStatus;
  status_message: string | null;
  result: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
};

const TaskIdParams = z.looseObject({ taskId: z.string().min(1).max(200) });

export type TaskCall = Omit<CallRequest, "signal" | "onProgress" | "onLog">;

export class ChannelTasks {
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly tools: ChannelTools,
    private readonly sql: SqlStorage,
    private readonly now: () => number = Date.now,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS mcp_tasks (
      id TEXT PRIMARY KEY, agent_token_id TEXT NOT NULL, status TEXT NOT NULL, status_message TEXT,
      result TEXT, error TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`);
    const at = this.now();
    sql.exec(`DELETE FROM mcp_tasks WHERE created_at < ?`, at - TASK_TTL_MS);
    // This instance runs nothing yet: a task still working was cut off when the object lost its memory.
    sql.exec(
      `UPDATE mcp_tasks SET status = 'failed', updated_at = ?, status_message = ?, error = ? WHERE status = 'working'`,
      at,
      "The hub restarted while the call was running; whether the tool ran is unknown.",
      JSON.stringify({
        code: ProtocolErrorCode.InternalError,
        message: "The hub restarted while the call was running.",
      }),
    );
  }

  /** Whether this request declared the tasks extension in its per-request client capabilities. */
  declared(ctx: ServerContext): boolean {
    const envelope: unknown = ctx.mcpReq.envelope;
    if (typeof envelope !== "object" || envelope === null) return false;
    const caps = (envelope as Record<string, unknown>)["io.modelcontextprotocol/clientCapabilities"];
    if (typeof caps !== "object" || caps === null) return false;
    const extensions = (caps as Record<string, unknown>).extensions;
    return typeof extensions === "object" && extensions !== null && TASKS_EXTENSION in extensions;
  }

  /** Stores a new task (durably, before answering), starts its call, and returns the CreateTaskResult. */
  start(agent: AgentContext, call: TaskCall): CallToolResult {
    const id = crypto.randomUUID();
    const at = this.now();
    this.sql.exec(
      `INSERT INTO mcp_tasks (id, agent_token_id, status, status_message, created_at, updated_at) VALUES (?, ?, 'working', ?, ?, ?)`,
      id,
      agent.agentTokenId,
      "Waiting for the tool (and the user's approval, if it asks for one).",
      at,
      at,
    );
    this.trim();
    const controller = new AbortController();
    this.running.set(id, controller);
    void this.tools
      .callTool({ ...call, signal: controller.signal })
      .then(
        (outcome) => {
          if (outcome.unknownTool) {
            const text = outcome.result.content[0];
            this.finish(id, "failed", null, {
              code: ProtocolErrorCode.InvalidParams,
              message: text?.type === "text" ? text.text : `Unknown tool: ${call.name}`,
            });
          } else if (outcome.status === "cancelled") {
            this.finish(id, "cancelled", null, null);
          } else if (outcome.status === "disconnected" || outcome.status === "timeout") {
            // No tool result exists (the provider went away, or never answered): a protocol-level
            // failure, which the extension reports as failed with an error, not a completed isError.
            const text = outcome.result.content[0];
            this.finish(id, "failed", null, {
              code: ProtocolErrorCode.InternalError,
              message: text?.type === "text" ? text.text : `${call.name} did not answer.`,
            });
          } else {
            this.finish(id, "completed", outcome.result, null);
          }
        },
        (e: unknown) =>
          this.finish(id, "failed", null, {
            code: ProtocolErrorCode.InternalError,
            message: e instanceof Error ? e.message : String(e),
          }),
      )
      .finally(() => this.running.delete(id));
    // The 2026 encode seam passes a handler's own resultType through on tools/call.
    return { resultType: "task", ...this.view(this.row(id)!, false) } as unknown as CallToolResult;
  }

  /** tasks/get, tasks/update and tasks/cancel on a server instance; each answers only its own agent's tasks. */
  register(server: Server, agentOf: (ctx: ServerContext) => AgentContext): void {
    server.setRequestHandler("tasks/get", { params: TaskIdParams }, (params, ctx) => {
      const row = this.owned(params.taskId, agentOf(ctx), ctx);
      return this.view(row, true);
    });
    server.setRequestHandler("tasks/update", { params: TaskIdParams }, (params, ctx) => {
      // No task of a channel ever asks for input (approvals happen in the tab), so there is nothing
      // outstanding to answer: the responses are ignored, as the extension says for unknown keys.
      this.owned(params.taskId, agentOf(ctx), ctx);
      return {};
    });
    server.setRequestHandler("tasks/cancel", { params: TaskIdParams }, (params, ctx) => {
      const row = this.owned(params.taskId, agentOf(ctx), ctx);
      if (row.status === "working") this.running.get(row.id)?.abort();
      return {};
    });
  }

  /** Drops an agent token's tasks (its revocation): running calls are cancelled, stored rows deleted. */
  closeAgent(agentTokenId: string): void {
    for (const row of this.sql
      .exec<{ id: string }>(`SELECT id FROM mcp_tasks WHERE agent_token_id = ?`, agentTokenId)
      .toArray()) {
      this.running.get(row.id)?.abort();
    }
    this.sql.exec(`DELETE FROM mcp_tasks WHERE agent_token_id = ?`, agentTokenId);
  }

  private owned(taskId: string, agent: AgentContext, ctx: ServerContext): TaskRow {
    if (!this.declared(ctx)) {
      throw new ProtocolError(
        ProtocolErrorCode.MissingRequiredClientCapability,
        `Missing required client capability: declare the ${TASKS_EXTENSION} extension to use tasks.`,
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      );
    }
    const named = ctx.http?.req?.headers.get("mcp-name");
    if (named && named !== taskId) {
      throw new ProtocolError(
        HEADER_MISMATCH,
        `Header mismatch: Mcp-Name is ${named}, params.taskId is ${taskId}.`,
      );
    }
    const row = this.row(taskId);
    if (!row || row.agent_token_id !== agent.agentTokenId) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Failed to retrieve task: Task not found");
    }
    if (row.created_at < this.now() - TASK_TTL_MS) {
      this.sql.exec(`DELETE FROM mcp_tasks WHERE id = ?`, taskId);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Failed to retrieve task: Task has expired");
    }
    return row;
  }

  private row(id: string): TaskRow | undefined {
    return this.sql.exec<TaskRow>(`SELECT * FROM mcp_tasks WHERE id = ?`, id).toArray()[0];
  }

  private finish(
    id: string,
    status: TaskStatus,
    result: CallToolResult | null,
    error: { code: number; message: string } | null,
  ): void {
    const message =
      status === "completed"
        ? result?.isError
          ? "The tool answered with an error."
          : "The tool answered."
        : status === "cancelled"
          ? "The call was cancelled."
          : (error?.message ?? null);
    this.sql.exec(
      `UPDATE mcp_tasks SET status = ?, status_message = ?, result = ?, error = ?, updated_at = ? WHERE id = ? AND status = 'working'`,
      status,
      message,
      result ? JSON.stringify(result) : null,
      error ? JSON.stringify(error) : null,
      this.now(),
      id,
    );
  }

  /** The task as the extension shapes it; `detailed` inlines the result or error of a finished task. */
  private view(row: TaskRow, detailed: boolean): Record<string, unknown> {
    return {
      taskId: row.id,
      status: row.status,
      ...(row.status_message ? { statusMessage: row.status_message } : {}),
      createdAt: new Date(row.created_at).toISOString(),
      lastUpdatedAt: new Date(row.updated_at).toISOString(),
      ttlMs: TASK_TTL_MS,
      pollIntervalMs: TASK_POLL_INTERVAL_MS,
      ...(detailed && row.status === "completed" && row.result
        ? { result: JSON.parse(row.result) as unknown }
        : {}),
      ...(detailed && row.status === "failed" && row.error
        ? { error: JSON.parse(row.error) as unknown }
        : {}),
    };
  }

  private trim(): void {
    this.sql.exec(
      `DELETE FROM mcp_tasks WHERE status != 'working' AND id NOT IN (SELECT id FROM mcp_tasks ORDER BY created_at DESC LIMIT ?)`,
      MAX_TASKS,
    );
  }
}
