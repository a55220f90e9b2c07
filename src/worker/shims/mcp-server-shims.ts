// Stands in, in the Worker bundle only (wrangler.toml [alias]), for @modelcontextprotocol/server's workerd shim
// ("@modelcontextprotocol/server/_shims"). The SDK's shim carries its own inlined copy of @cfworker/json-schema
// (about 6 KiB gzipped) beside the one the hub already bundles; this one is the same validator on the hub's
// copy: the same dialect dispatch (no `$schema` or 2020-12 → 2020-12, 2019-09, draft-07/06 → 7, any other
// `$schema` refused) and the same answers. The SDK's shim also warms its schema caches at start
// (`preloadSchemas`, internal): without it they fill on first use. Tests run the SDK's own shim.
import { Validator, type Schema } from "@cfworker/json-schema";

type Draft = "2020-12" | "2019-09" | "7";
type Result<T> =
  { valid: true; data: T; errorMessage: undefined } | { valid: false; data: undefined; errorMessage: string };

/** `$schema` URIs by dialect, without a trailing `#`, over http and https (as the SDK's own dispatch). */
const DIALECTS = new Map<string, Draft>(
  (
    [
      ["json-schema.org/draft/2020-12/schema", "2020-12"],
      ["json-schema.org/draft/2019-09/schema", "2019-09"],
      ["json-schema.org/draft-07/schema", "7"],
      ["json-schema.org/draft-06/schema", "7"],
    ] as const
  ).flatMap(([uri, draft]) => [
    [`https://${uri}`, draft],
    [`http://${uri}`, draft],
  ]),
);

function draftOf(schema: Record<string, unknown>): Draft {
  if (typeof schema.$schema !== "string") return "2020-12";
  const draft = DIALECTS.get(schema.$schema.replace(/#$/, ""));
  if (!draft)
    throw new Error(
      `JSON Schema declares an unsupported dialect ("$schema": "${schema.$schema.slice(0, 200)}"). The default validator supports JSON Schema 2020-12, 2019-09, draft-07, and draft-06.`,
    );
  return draft;
}

export class DefaultJsonSchemaValidator {
  private readonly shortcircuit: boolean;
  private readonly draft: Draft | undefined;

  constructor(options?: { shortcircuit?: boolean; draft?: Draft }) {
    this.shortcircuit = options?.shortcircuit ?? true;
    this.draft = options?.draft;
  }

  getValidator<T>(schema: Record<string, unknown>): (input: unknown) => Result<T> {
    const validator = new Validator(schema as Schema, this.draft ?? draftOf(schema), this.shortcircuit);
    return (input) => {
      const result = validator.validate(input);
      return result.valid
        ? { valid: true, data: input as T, errorMessage: undefined }
        : {
            valid: false,
            data: undefined,
            errorMessage: result.errors.map((e) => `${e.instanceLocation}: ${e.error}`).join("; "),
          };
    };
  }
}

function notSupported(): never {
  throw new Error(
    "StdioServerTransport is not supported in this environment. Use StreamableHTTPServerTransport instead.",
  );
}

export const process = {
  get stdin(): never {
    return notSupported();
  },
  get stdout(): never {
    return notSupported();
  },
};
