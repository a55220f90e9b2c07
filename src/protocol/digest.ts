// Definition digests (ARCHITECTURE.md "Live tools checked against the registry"): lowercase hex SHA-256 of the
// RFC 8785 canonical JSON (canonicalize, by the RFC's author) of {name, title, description, inputSchema,
// outputSchema, annotations}. Members a tool does not have are left out, never null (an empty annotations
// object counts as none); annotations as stored (string hints already booleans). The same function digests a published manifest tool and a live tool, so a
// tab's tool is `verified` exactly when its definition is the published one.
import canonicalize from "canonicalize";

/** The members a definition digest covers. */
export interface DigestedDefinition {
  name: string;
  title?: string | undefined;
  description: string;
  inputSchema?: Record<string, unknown> | undefined;
  outputSchema?: Record<string, unknown> | undefined;
  annotations?: Record<string, unknown> | undefined;
}

/** The object that is canonicalized: only the covered members, absent ones left out. */
export function digestInput(tool: DigestedDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = { name: tool.name, description: tool.description };
  if (tool.title !== undefined) out.title = tool.title;
  if (tool.inputSchema !== undefined) out.inputSchema = tool.inputSchema;
  if (tool.outputSchema !== undefined) out.outputSchema = tool.outputSchema;
  // An empty annotations object says nothing: the same as none (the bridge and the extension always send one).
  if (tool.annotations !== undefined && Object.keys(tool.annotations).length > 0)
    out.annotations = tool.annotations;
  return out;
}

/** Lowercase hex SHA-256 of the tool's canonical JSON. */
export async function definitionDigest(tool: DigestedDefinition): Promise<string> {
  const text = canonicalize(digestInput(tool));
  if (text === undefined) throw new TypeError("A tool definition must be JSON.");
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
