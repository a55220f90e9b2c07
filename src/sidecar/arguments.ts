// Parses fs.search_by_time arguments once, at the edge, into one typed value, and sorts every problem into
// one of two errors (seed 001 §3): a request whose shape breaks the published inputSchema (not an object,
// an unknown or missing property, a wrong JSON type) is a protocol error; a value of the right type that
// cannot be used (an enum or bound, a date, the range, a root or path, a cursor) is a tool error (isError).
import { InvalidArgumentsError, SearchError } from "./errors.js";
import { compileGlob, GlobError } from "./glob.js";
import { INPUT_SCHEMA, LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN, SORTS, TIME_FIELDS } from "./tool.js";
import type { SortOrder, TimeField } from "./tool.js";

export interface SearchArguments {
  root: string | undefined;
  path: string | undefined;
  timeField: TimeField;
  from: Instant | undefined;
  to: Instant | undefined;
  glob: string | undefined;
  recursive: boolean;
  maxDepth: number | undefined;
  includeFiles: boolean;
  includeDirectories: boolean;
  sort: SortOrder;
  limit: number;
  cursor: string | undefined;
  includeUnknownTime: boolean;
}

/** A date-time argument: the caller's text (echoed back in `range`) and its instant in epoch ms. */
export interface Instant {
  text: string;
  ms: number;
}

type JsonType = "string" | "boolean" | "integer";
const PROPERTY_TYPES: Record<keyof typeof INPUT_SCHEMA.properties, JsonType> = {
  root: "string",
  path: "string",
  timeField: "string",
  from: "string",
  to: "string",
  glob: "string",
  recursive: "boolean",
  maxDepth: "integer",
  includeFiles: "boolean",
  includeDirectories: "boolean",
  sort: "string",
  limit: "integer",
  cursor: "string",
  includeUnknownTime: "boolean",
};

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a number";
  return `a ${typeof value}`;
}

function hasType(value: unknown, type: JsonType): boolean {
  if (type === "integer") return typeof value === "number" && Number.isInteger(value);
  return typeof value === type;
}

/**
 * RFC 3339 `date-time` (the JSON Schema format; ISO 8601's profile with a required offset):
 * `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`. Calendar fields are range-checked (Feb 30 is refused).
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

export function parseDateTime(text: string): number | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined; // :60 is a leap second
  let offsetMin = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const fraction = m[7] ? Number(`0${m[7]}`) * 1000 : 0;
  // setUTCFullYear, unlike Date.UTC, keeps years 0–99 as written; a :60 second rolls over to the next minute.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime() + fraction - offsetMin * 60_000;
}

function checkShape(input: unknown): Record<string, unknown> {
  if (input === undefined || input === null) return {};
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new InvalidArgumentsError(
      `Invalid arguments for fs.search_by_time: 'arguments' must be an object, got ${typeName(input)}.`,
    );
  }
  const args = input as Record<string, unknown>;
  const problems: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    const type = PROPERTY_TYPES[key as keyof typeof PROPERTY_TYPES];
    if (type === undefined) {
      problems.push(`unknown property '${key}' (allowed: ${Object.keys(PROPERTY_TYPES).join(", ")})`);
    } else if (!hasType(value, type)) {
      problems.push(
        `'${key}' must be ${type === "integer" ? "an integer" : `a ${type}`}, got ${typeName(value)}`,
      );
    }
  }
  if (!("timeField" in args)) problems.push(`'timeField' is required ("modified" or "created")`);
  if (problems.length > 0) {
    throw new InvalidArgumentsError(
      `Invalid arguments for fs.search_by_time: ${problems.join("; ")}. Fix them to match the tool's inputSchema.`,
    );
  }
  return args;
}

function refuseNul(name: string, value: string | undefined): void {
  if (value !== undefined && value.includes("\0")) {
    throw new SearchError(`'${name}' contains a NUL byte, which no path or pattern can contain; remove it.`);
  }
}

/** Compiles the glob once here, so a bound it passes or a pattern no scan could match is an isError now. */
function checkGlob(glob: string): void {
  try {
    compileGlob(glob);
  } catch (e) {
    if (e instanceof GlobError) throw new SearchError(e.message);
    throw e;
  }
}

function instant(name: "from" | "to", text: string | undefined): Instant | undefined {
  if (text === undefined) return undefined;
  const ms = parseDateTime(text);
  if (ms === undefined || !Number.isFinite(ms)) {
    throw new SearchError(
      `Invalid '${name}': ${JSON.stringify(text.slice(0, 64))} is not an ISO 8601 date-time. Use a full date and time with a time zone, like 2025-12-15T00:00:00Z or 2025-12-15T09:00:00+09:00.`,
    );
  }
  return { text, ms };
}

/** Parses and checks the arguments; throws InvalidArgumentsError (protocol) or SearchError (isError). */
export function parseSearchArguments(input: unknown): SearchArguments {
  const args = checkShape(input);
  const str = (k: string) => args[k] as string | undefined;
  const bool = (k: string, fallback: boolean) => (args[k] as boolean | undefined) ?? fallback;

  const timeField = str("timeField")!;
  if (!(TIME_FIELDS as readonly string[]).includes(timeField)) {
    throw new SearchError(
      `Invalid 'timeField' ${JSON.stringify(timeField.slice(0, 64))}: use "modified" (last change) or "created" (creation time).`,
    );
  }
  const sort = str("sort") ?? "time_desc";
  if (!(SORTS as readonly string[]).includes(sort)) {
    throw new SearchError(
      `Invalid 'sort' ${JSON.stringify(sort.slice(0, 64))}: use "time_desc" (newest first, the default), "time_asc" or "path_asc".`,
    );
  }
  const limit = (args.limit as number | undefined) ?? LIMIT_DEFAULT;
  if (limit < LIMIT_MIN || limit > LIMIT_MAX) {
    throw new SearchError(
      `Invalid 'limit' ${limit}: it must be between ${LIMIT_MIN} and ${LIMIT_MAX} (default ${LIMIT_DEFAULT}); page through more results with 'cursor'.`,
    );
  }
  const maxDepth = args.maxDepth as number | undefined;
  if (maxDepth !== undefined && maxDepth < 0) {
    throw new SearchError(
      `Invalid 'maxDepth' ${maxDepth}: it must be 0 or more (0 = only the entries directly in 'path'); omit it for no limit.`,
    );
  }
  for (const key of ["root", "path", "glob", "cursor", "from", "to"]) refuseNul(key, str(key));
  const from = instant("from", str("from"));
  const to = instant("to", str("to"));
  if (from && to && from.ms >= to.ms) {
    throw new SearchError("Invalid range: 'from' must be earlier than 'to'.");
  }
  const includeFiles = bool("includeFiles", true);
  const includeDirectories = bool("includeDirectories", false);
  if (!includeFiles && !includeDirectories) {
    throw new SearchError(
      "Nothing to search for: 'includeFiles' and 'includeDirectories' are both false. Set one of them to true.",
    );
  }
  const glob = str("glob");
  if (glob !== undefined && glob !== "") checkGlob(glob);
  return {
    root: str("root"),
    path: str("path"),
    timeField: timeField as TimeField,
    from,
    to,
    glob: glob === "" ? undefined : glob,
    recursive: bool("recursive", true),
    maxDepth,
    includeFiles,
    includeDirectories,
    sort: sort as SortOrder,
    limit,
    cursor: str("cursor") || undefined,
    includeUnknownTime: bool("includeUnknownTime", false),
  };
}
