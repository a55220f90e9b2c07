// The sidecar's stdio wire: one JSON-RPC message a line on stdin, one a line on stdout (the MCP stdio binding).
// It exists because the SDK's StdioServerTransport skips a line that is not JSON without a word and only
// reports one that is not JSON-RPC; the sidecar answers both, with -32700 / -32600 and id null, as JSON-RPC 2.0
// says, so a client that wrote a broken line learns it. Everything else is what the SDK's transport does:
// writes wait for stdout to drain, and the wire closes when stdin ends.
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { parseJSONRPCMessage } from "@modelcontextprotocol/server";
import type { Readable, Writable } from "node:stream";

const PARSE_ERROR = {
  code: -32700,
  message: "Parse error: each line on stdin must be one JSON-RPC message in JSON.",
};
const INVALID_REQUEST = {
  code: -32600,
  message: "Invalid Request: the line is JSON but not a JSON-RPC 2.0 request, notification or response.",
};

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Settles once the wire is closed (stdin ended, or close() was called): the server's lifetime. */
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;
  private buffer = "";
  private isClosed = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
  ) {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  async start(): Promise<void> {
    this.stdin.setEncoding("utf8");
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onError);
    this.stdin.once("end", this.onEnd);
    this.stdin.once("close", this.onEnd);
    this.stdout.on("error", this.onError);
    if (this.stdin.readableEnded || this.stdin.destroyed) setImmediate(this.onEnd);
  }

  private readonly onData = (chunk: string): void => {
    this.buffer += chunk;
    let nl: number;
    while (!this.isClosed && (nl = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, "");
      this.buffer = this.buffer.slice(nl + 1);
      if (line.trim() !== "") this.receive(line);
    }
  };

  private receive(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.answerBadLine(PARSE_ERROR);
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      this.answerBadLine(INVALID_REQUEST);
      return;
    }
    this.onmessage?.(message);
  }

  private answerBadLine(error: { code: number; message: string }): void {
    this.write({ jsonrpc: "2.0", id: null, error }).catch(this.onError);
  }

  private readonly onError = (error: Error): void => {
    this.onerror?.(error);
  };

  private readonly onEnd = (): void => {
    void this.close();
  };

  send(message: JSONRPCMessage): Promise<void> {
    if (this.isClosed) return Promise.reject(new Error("The sidecar's stdio wire is closed."));
    return this.write(message);
  }

  private write(message: unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      const ok = this.stdout.write(`${JSON.stringify(message)}\n`, (error) => {
        if (error) reject(error);
      });
      if (ok) resolve();
      else this.stdout.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.stdin.off("data", this.onData);
    this.stdin.off("end", this.onEnd);
    this.stdin.off("close", this.onEnd);
    this.stdin.pause();
    this.buffer = "";
    this.onclose?.();
    this.resolveClosed();
  }
}
