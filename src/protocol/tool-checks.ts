// Checks of a tool's definition for hidden text and model-directed instructions (tool poisoning) and for
// definitions that will not port across clients. Run on publish (registry) and on live tools (relay).
//
// Unicode categories come from the JS engine's property escapes (\p{Bidi_Control}, \p{Cc}, \p{Cf}), which
// follow the engine's Unicode version; no code point range is written here. The small NAMES table only words
// messages for the characters publishers meet most; any other is named by its category.
//
// Decisions:
// - Tab, line feed and carriage return are ordinary text in descriptions (multi-line descriptions are common);
//   every other C0/C1 control is refused there, and in names and titles every control is refused.
// - A bidi control (overrides, embeddings, isolates, marks) is refused wherever it is; other format characters
//   (zero-width space/joiners, word joiner, BOM, soft hyphen) are only warned: they have honest uses in scripts
//   that need joiners, but they also hide text.
// - The hub's name rule already refuses names over 128 characters (the WebMCP and MCP limit), so the name
//   warning is for names over 64: clients with the stricter rule (OpenAI function names, the channel's strict
//   names option) see those cut and hashed.
// - "Too short to choose a tool by": under 20 characters, or the tool's name again.
import { formatPath } from "./errors.js";

export type FindingCode =
  | "bidi_control"
  | "control_character"
  | "invisible_character"
  | "addressed_to_model"
  | "name_too_long"
  | "no_title"
  | "short_description"
  | "type_union"
  | "remote_ref";

/** One finding: `path` in the publish API's field-issue style, e.g. `tools[2].inputSchema.properties.q.description`. */
export interface DefinitionFinding {
  path: string;
  code: FindingCode;
  message: string;
}

export interface DefinitionFindings {
  /** Refused: the definition is not accepted (422 on publish, `invalid_tools` live). */
  refused: DefinitionFinding[];
  warnings: DefinitionFinding[];
}

/** The parts of a tool the checks read (a ToolDescriptor, a manifest tool, a stored row's view). */
export interface CheckedTool {
  name: string;
  title?: string | null | undefined;
  description: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: { title?: string | undefined } | null | undefined;
}

type Path = ReadonlyArray<string | number>;
type TextKind = "name" | "title" | "description";
/** One piece of text of a tool, where it is, and what it is. */
interface ToolText {
  path: Path;
  kind: TextKind;
  text: string;
}

export const NAME_PORTABLE_MAX = 64;
export const DESCRIPTION_MIN = 20;

const NAMES: Record<number, string> = {
  0x061c: "ARABIC LETTER MARK",
  0x200b: "ZERO WIDTH SPACE",
  0x200c: "ZERO WIDTH NON-JOINER",
  0x200d: "ZERO WIDTH JOINER",
  0x200e: "LEFT-TO-RIGHT MARK",
  0x200f: "RIGHT-TO-LEFT MARK",
  0x202a: "LEFT-TO-RIGHT EMBEDDING",
  0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE",
  0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x2060: "WORD JOINER",
  0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE",
  0x2069: "POP DIRECTIONAL ISOLATE",
  0xfeff: "ZERO WIDTH NO-BREAK SPACE (BOM)",
};

/** "U+202E RIGHT-TO-LEFT OVERRIDE at character 14": the code point, its name, its 1-based position in code points. */
export function describeCharacter(text: string, index: number, category: string): string {
  const cp = text.codePointAt(index)!;
  const hex = cp.toString(16).toUpperCase().padStart(4, "0");
  const position = Array.from(text.slice(0, index)).length + 1;
  return `U+${hex} ${NAMES[cp] ?? `(${category})`} at character ${position}`;
}

function where(item: ToolText): string {
  return item.kind === "name" ? "the name" : `this ${item.kind}`;
}

const BIDI = /\p{Bidi_Control}/gu;
/** Controls; tab, line feed and carriage return are left to `controlCharacters` to allow in descriptions. */
const CONTROL = /\p{Cc}/gu;
const ORDINARY_IN_DESCRIPTIONS = new Set(["\t", "\n", "\r"]);
/** Format characters that are not bidi controls (those are refused by `bidiControls`). */
const INVISIBLE = /(?!\p{Bidi_Control})\p{Cf}/gu;

/** A check that finds each character `pattern` matches (but those `ordinary` allows) in a piece of text. */
function characterCheck(
  pattern: RegExp,
  code: FindingCode,
  category: string,
  says: string,
  ordinary: (item: ToolText, char: string) => boolean = () => false,
) {
  return (item: ToolText, path: string): DefinitionFinding[] =>
    [...item.text.matchAll(pattern)]
      .filter((m) => !ordinary(item, m[0]))
      .map((m) => ({
        path,
        code,
        message: `${describeCharacter(item.text, m.index, category)} in ${where(item)} ${says}.`,
      }));
}

/** Refused: bidi overrides, embeddings, isolates and marks make text read as something it is not. */
export const bidiControls = characterCheck(
  BIDI,
  "bidi_control",
  "a bidi control",
  "can make text read as something it is not; remove it",
);

/** Refused: C0/C1 control characters (a tab or line break in a description is ordinary text). */
export const controlCharacters = characterCheck(
  CONTROL,
  "control_character",
  "a control character",
  "is not readable text; remove it",
  (item, char) => item.kind === "description" && ORDINARY_IN_DESCRIPTIONS.has(char),
);

/** Warned: zero-width and other invisible format characters, which can hide words from a reader. */
export const invisibleCharacters = characterCheck(
  INVISIBLE,
  "invisible_character",
  "an invisible format character",
  "is invisible; remove it unless the script needs it",
);

/** Phrases that speak to the model instead of describing the tool; each bounded, so matching stays linear. */
const MODEL_DIRECTED: ReadonlyArray<[RegExp, string]> = [
  [
    /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:previous|prior|earlier|above|preceding|other|system)\s+(?:instructions?|prompts?|messages?|rules?|tools?)/i,
    "tells the model to ignore its other instructions",
  ],
  [
    /\b(?:do\s+not|don't|never)\s+(?:tell|show|mention|reveal|inform|notify|alert)\s+(?:this\s+|it\s+|anything\s+)?(?:to\s+)?the\s+user/i,
    "tells the model to keep something from the user",
  ],
  [
    /\b(?:hide|conceal|keep)\b.{0,60}?\bfrom\s+the\s+user|\bwithout\s+(?:telling|informing|notifying|asking)\s+the\s+user/i,
    "tells the model to keep something from the user",
  ],
  [
    /\b(?:send|post|upload|forward|transmit|exfiltrate|submit)\b.{0,80}?\bto\s+(?:https?:\/\/|(?:this|that|the|a|an)\s+(?:url|endpoint|webhook|server|address))/i,
    "tells the model to send data to a URL",
  ],
  [
    /<\/?\s*(?:important|system|instructions?|secret|hidden|admin)\s*>/i,
    "holds a tag addressed to the model",
  ],
];

/** Warned: text addressed to the model rather than describing the tool (tool poisoning). */
export function modelDirectedText(item: ToolText, path: string): DefinitionFinding[] {
  if (item.kind === "name") return [];
  const out: DefinitionFinding[] = [];
  for (const [pattern, what] of MODEL_DIRECTED) {
    const m = pattern.exec(item.text);
    if (!m) continue;
    out.push({
      path,
      code: "addressed_to_model",
      message: `This ${item.kind} ${what} ("${m[0].slice(0, 60)}"); describe the tool instead.`,
    });
  }
  return out;
}

/** Warned: a name longer than the stricter clients accept. */
export function nameTooLong(tool: CheckedTool, base: Path): DefinitionFinding[] {
  if (tool.name.length <= NAME_PORTABLE_MAX) return [];
  return [
    {
      path: formatPath([...base, "name"]),
      code: "name_too_long",
      message: `The name has ${tool.name.length} characters; clients allowing ${NAME_PORTABLE_MAX} (OpenAI, strict channels) cut it.`,
    },
  ];
}

/** Warned: no `title` (nor `annotations.title`), so people see the bare name. */
export function missingTitle(tool: CheckedTool, base: Path): DefinitionFinding[] {
  if (tool.title?.trim() || tool.annotations?.title?.trim()) return [];
  return [
    {
      path: formatPath([...base, "title"]),
      code: "no_title",
      message: "The tool has no title; add a short one for people to read.",
    },
  ];
}

/** Warned: a description too short for an agent to choose the tool by. */
export function shortDescription(tool: CheckedTool, base: Path): DefinitionFinding[] {
  const text = tool.description.trim();
  if (text.length >= DESCRIPTION_MIN && text !== tool.name) return [];
  return [
    {
      path: formatPath([...base, "description"]),
      code: "short_description",
      message: `The description has ${text.length} characters; say what the tool does and returns (at least ${DESCRIPTION_MIN}).`,
    },
  ];
}

/** Schema keywords whose values are data, not schemas: their keys are not read as schema keywords. */
const DATA_KEYWORDS = new Set(["const", "default", "enum", "examples"]);
/** Schema keywords whose values map names to schemas: a property called `type` or `default` is a schema. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

interface SchemaNode {
  path: Path;
  value: unknown;
  /** The value maps names to schemas (so its keys are not keywords). */
  map: boolean;
}

/** Calls `visit` for each schema object in `schema` (iteratively, so no depth can overflow the stack). */
function walkSchema(schema: unknown, path: Path, visit: (node: Record<string, unknown>, path: Path) => void) {
  const stack: SchemaNode[] = [{ path, value: schema, map: false }];
  while (stack.length) {
    const { path: at, value, map } = stack.pop()!;
    if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push({ path: [...at, i], value: v, map: false }));
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    const node = value as Record<string, unknown>;
    if (!map) visit(node, at);
    for (const [key, child] of Object.entries(node)) {
      if (!map && DATA_KEYWORDS.has(key)) continue;
      if (child !== null && typeof child === "object")
        stack.push({ path: [...at, key], value: child, map: !map && SCHEMA_MAPS.has(key) });
    }
  }
}

/** Warned: `type` given as a list (`["string", "null"]`), which the MCP Inspector's --strict flags. */
export function typeUnions(node: Record<string, unknown>, path: Path): DefinitionFinding[] {
  if (!Array.isArray(node.type)) return [];
  return [
    {
      path: formatPath([...path, "type"]),
      code: "type_union",
      message: `The type ${JSON.stringify(node.type)} is a union some clients reject (MCP Inspector --strict); use one type.`,
    },
  ];
}

/** Warned: a `$ref` outside the schema itself, which clients will not fetch. */
export function remoteRefs(node: Record<string, unknown>, path: Path): DefinitionFinding[] {
  if (typeof node.$ref !== "string" || node.$ref.startsWith("#")) return [];
  return [
    {
      path: formatPath([...path, "$ref"]),
      code: "remote_ref",
      message: `The $ref "${node.$ref.slice(0, 200)}" points outside the schema, which clients do not fetch; use "#/$defs/…".`,
    },
  ];
}

const TEXT_CHECKS = [bidiControls, controlCharacters, invisibleCharacters, modelDirectedText];
const REFUSED: ReadonlySet<FindingCode> = new Set(["bidi_control", "control_character"]);

/** Every piece of text of a tool: its name, titles, description, and each `title`/`description` in its schemas. */
function toolTexts(tool: CheckedTool, base: Path): ToolText[] {
  const texts: ToolText[] = [{ path: [...base, "name"], kind: "name", text: tool.name }];
  if (tool.title) texts.push({ path: [...base, "title"], kind: "title", text: tool.title });
  if (tool.annotations?.title)
    texts.push({ path: [...base, "annotations", "title"], kind: "title", text: tool.annotations.title });
  texts.push({ path: [...base, "description"], kind: "description", text: tool.description });
  return texts;
}

/** All findings of one tool; `base` prefixes every path (`["tools", 2]` in a manifest, none for a live tool). */
export function checkTool(tool: CheckedTool, base: Path = []): DefinitionFindings {
  const findings: DefinitionFinding[] = [
    ...nameTooLong(tool, base),
    ...missingTitle(tool, base),
    ...shortDescription(tool, base),
  ];
  const texts = toolTexts(tool, base);
  for (const key of ["inputSchema", "outputSchema"] as const) {
    walkSchema(tool[key], [...base, key], (node, path) => {
      findings.push(...typeUnions(node, path), ...remoteRefs(node, path));
      for (const kind of ["title", "description"] as const) {
        const text = node[kind];
        if (typeof text === "string") texts.push({ path: [...path, kind], kind, text });
      }
    });
  }
  for (const item of texts) {
    const path = formatPath(item.path);
    for (const check of TEXT_CHECKS) findings.push(...check(item, path));
  }
  return {
    refused: findings.filter((f) => REFUSED.has(f.code)),
    warnings: findings.filter((f) => !REFUSED.has(f.code)),
  };
}

/** All findings of a manifest's tools, with paths like `tools[2].inputSchema.properties.q.description`. */
export function checkTools(tools: readonly CheckedTool[]): DefinitionFindings {
  const out: DefinitionFindings = { refused: [], warnings: [] };
  tools.forEach((tool, i) => {
    const { refused, warnings } = checkTool(tool, ["tools", i]);
    out.refused.push(...refused);
    out.warnings.push(...warnings);
  });
  return out;
}
