// The tool the test site's pages register, as the site publishes it (its digest is what the runner checks).
export const ADD_TOOL = {
  name: "add",
  description: "Adds two numbers.",
  inputSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  },
  annotations: { readOnlyHint: true },
};

/** An outputSchema for add's structuredContent. */
export const SUM_SCHEMA = { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] };
