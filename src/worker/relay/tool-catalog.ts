// The tools a channel's agents see, derived from its providers' tool lists (naming.ts decides the names) and
// cached until a provider's tools change, with each tool's compiled input and output schemas. It says whether
// a change is one agents can see, so `notifications/tools/list_changed` goes out only then.
import type { Schema } from "@cfworker/json-schema";
import { compileSchema, validateAgainst, type CompiledSchema } from "../../protocol/index.js";
import { exposeTools, type ExposedTool, type ProviderState } from "./naming.js";

export class ToolCatalog {
  private exposedCache: Map<string, ExposedTool> | null = null;
  private readonly validators = new Map<string, CompiledSchema>();

  constructor(private readonly source: () => { providers: ProviderState[]; strictNames: boolean }) {}

  /** The tools agents see now, by exposed name. */
  exposed(): Map<string, ExposedTool> {
    if (!this.exposedCache) {
      const { providers, strictNames } = this.source();
      this.exposedCache = exposeTools(providers, strictNames);
    }
    return this.exposedCache;
  }

  /** Forgets what was derived (a provider came, went, or changed its tools or activity). */
  forget(): void {
    this.exposedCache = null;
    this.validators.clear();
  }

  /** Forgets what was derived and says whether what agents see (names, descriptions, schemas) changed. */
  changed(): boolean {
    const before = this.exposedCache ? signature(this.exposedCache) : null;
    this.forget();
    return before !== signature(this.exposed());
  }

  /** Validates against the tool's schema, compiled once (kept until the tools change). */
  validate(exposed: ExposedTool, which: "input" | "output", value: unknown) {
    const key = `${which}:${exposed.name}`;
    let validator = this.validators.get(key);
    if (!validator) {
      const schema = which === "input" ? exposed.descriptor.inputSchema : exposed.descriptor.outputSchema;
      validator = compileSchema((schema ?? {}) as Schema);
      this.validators.set(key, validator);
    }
    return validateAgainst(validator, value);
  }
}

function signature(exposed: Map<string, ExposedTool>): string {
  return JSON.stringify(
    [...exposed.values()].map((t) => [
      t.name,
      t.descriptor.description,
      t.descriptor.title,
      t.descriptor.inputSchema,
      t.descriptor.outputSchema,
      t.descriptor.annotations,
    ]),
  );
}
