// The fs.search_by_time tool as agents see it: name, description, annotations, and the input and output
// schemas of shared/seeds/001 (§2.1.2, §2.1.3) copied verbatim, descriptions included.
import type { ToolDescriptor } from "../protocol/tool.js";
import type { SearchRoot } from "./roots.js";

export const TOOL_NAME = "fs.search_by_time";

export const TIME_FIELDS = ["modified", "created"] as const;
export type TimeField = (typeof TIME_FIELDS)[number];
export const SORTS = ["time_desc", "time_asc", "path_asc"] as const;
export type SortOrder = (typeof SORTS)[number];

export const LIMIT_DEFAULT = 100;
export const LIMIT_MIN = 1;
export const LIMIT_MAX = 1000;

/** seed 001 §2.1.2, to the letter. */
export const INPUT_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: {
    root: {
      type: "string",
      description: "검색 루트. 서버가 허용한 루트(allowed roots) 중 하나여야 함. 생략 시 기본 루트 사용.",
    },
    path: {
      type: "string",
      description: "root 하위 시작 경로(상대 경로). 기본값은 root 자체(빈 문자열).",
    },
    timeField: {
      type: "string",
      description: "시간 기준 필드",
      enum: ["modified", "created"],
    },
    from: {
      type: "string",
      format: "date-time",
      description: "시작 시각(포함). 생략 가능.",
    },
    to: {
      type: "string",
      format: "date-time",
      description: "종료 시각(미포함). 생략 가능.",
    },
    glob: {
      type: "string",
      description: "glob 패턴(예: **/*.md). 생략 시 모든 항목 매칭.",
    },
    recursive: {
      type: "boolean",
      default: true,
    },
    maxDepth: {
      type: "integer",
      minimum: 0,
      description:
        "재귀 탐색 시 최대 깊이. recursive=false면 무시. 생략 시 제한 없음(서버 기본 제한은 별도).",
    },
    includeFiles: {
      type: "boolean",
      default: true,
    },
    includeDirectories: {
      type: "boolean",
      default: false,
    },
    sort: {
      type: "string",
      enum: ["time_desc", "time_asc", "path_asc"],
      default: "time_desc",
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: 1000,
      default: 100,
    },
    cursor: {
      type: "string",
      description: "페이지네이션 커서(opaque).",
    },
    includeUnknownTime: {
      type: "boolean",
      default: false,
      description: "created 시간이 OS/FS에서 제공되지 않는 항목을 결과에 포함할지 여부(기본 false).",
    },
  },
  required: ["timeField"],
} as const;

/** seed 001 §2.1.3, to the letter. */
export const OUTPUT_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: {
    timeField: { type: "string", enum: ["modified", "created"] },
    range: {
      type: "object",
      additionalProperties: false,
      properties: {
        from: { type: ["string", "null"], format: "date-time" },
        to: { type: ["string", "null"], format: "date-time" },
      },
      required: ["from", "to"],
    },
    matches: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        properties: {
          path: { type: "string" },
          isDirectory: { type: "boolean" },
          sizeBytes: { type: ["integer", "null"], minimum: 0 },
          modifiedAt: { type: "string", format: "date-time" },
          createdAt: { type: ["string", "null"], format: "date-time" },
        },
        required: ["path", "isDirectory", "sizeBytes", "modifiedAt", "createdAt"],
      },
    },
    nextCursor: { type: ["string", "null"] },
    stats: {
      type: "object",
      additionalProperties: false,
      properties: {
        scannedFiles: { type: "integer", minimum: 0 },
        scannedDirectories: { type: "integer", minimum: 0 },
        returned: { type: "integer", minimum: 0 },
      },
      required: ["scannedFiles", "scannedDirectories", "returned"],
    },
  },
  required: ["timeField", "range", "matches", "nextCursor", "stats"],
} as const;

export const TOOL_ANNOTATIONS = {
  title: "Search files by time",
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/** What the tool does and the rules the schema cannot say; the allowed roots are named (never their paths). */
export function toolDescription(roots: readonly SearchRoot[]): string {
  const names = roots.map((r, i) => (i === 0 ? `"${r.name}" (the default)` : `"${r.name}"`)).join(", ");
  return [
    "Finds files (and optionally directories) under the user's allowed folders by their modified or created time.",
    `Allowed roots: ${names}; pass one as 'root', and a relative 'path' inside it to start lower down.`,
    "'from' is inclusive and 'to' exclusive, both ISO 8601 date-times with a time zone, like 2025-12-15T00:00:00Z.",
    "'glob' (like **/*.md or src/**/*.ts) is matched against each entry's path relative to the root, the same path the results show; it also matches dotfiles. A leading ! excludes a whole pattern (!**/*.js); a negated extglob such as *.!(js) is refused with an error, not applied: name what to match instead (*.@(ts|md)).",
    "maxDepth counts the directory levels below 'path' to descend into: 0 lists only the entries directly in 'path' (like recursive=false).",
    "Symbolic links are never followed: a link is listed as itself (isDirectory false, its own times).",
    "Results are sorted by time (ties by path) or by path; entries whose created time is unknown sort last.",
    "When nextCursor is not null, call again with the same arguments and cursor=nextCursor for the next page ('limit' may change).",
  ].join(" ");
}

export function toolDescriptor(roots: readonly SearchRoot[]): ToolDescriptor {
  return {
    name: TOOL_NAME,
    title: TOOL_ANNOTATIONS.title,
    description: toolDescription(roots),
    inputSchema: structuredClone(INPUT_SCHEMA) as unknown as Record<string, unknown>,
    outputSchema: structuredClone(OUTPUT_SCHEMA) as unknown as Record<string, unknown>,
    annotations: { ...TOOL_ANNOTATIONS },
  };
}
