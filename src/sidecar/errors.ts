// The sidecar's two error types, in a module of their own: the argument parser, the root and cursor checks,
// the tool call and both transports all throw or catch them, and with the classes in arguments.ts the
// imports ran in a circle (roots → arguments → tool → roots). Seed 001 §3 sorts every problem into one.

/** The request's shape violates the inputSchema: answered with JSON-RPC error -32602 (Invalid params). */
export class InvalidArgumentsError extends Error {
  override readonly name = "InvalidArgumentsError";
}

/** A domain or input-value error: answered as a CallToolResult with isError and this sentence. */
export class SearchError extends Error {
  override readonly name = "SearchError";
}
