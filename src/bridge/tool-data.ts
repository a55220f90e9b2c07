// A registered tool as plain data, what leaves the page: the extension's MAIN world relays it to the service
// worker, and the cloud runner's capture script hands it to the runner. One shape and one copy function for
// both, so the two never drift.

/** A tool as the page's registry describes it: data only, no execute. */
export interface ToolData {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: Record<string, unknown>;
}

/** The data of a registered tool (a copy: the page cannot change it afterwards through a shared object). */
export function toolData(tool: {
  name: string;
  title?: string | undefined;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | undefined;
  annotations?: Record<string, unknown> | undefined;
}): ToolData {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  return {
    name,
    ...(title !== undefined && { title }),
    description,
    inputSchema,
    ...(outputSchema !== undefined && { outputSchema }),
    annotations: { ...annotations },
  };
}
