// Reads tool calls out of a model's raw output, in the four shapes of shared/seeds/004:
// a JSON array of {function, arguments}; <function_call name="…">{…}</function_call> tags;
// fenced ```json blocks; a single {function, arguments} object. `name` is accepted for `function`,
// and `arguments` may be a JSON string (as OpenAI returns it).
import type { ToolCall } from "./channels.js";

export class FunctionCallParseError extends Error {}

export function parseFunctionCalls(text: string): ToolCall[] {
  const tagged = [
    ...text.matchAll(/<function_call\s+name\s*=\s*["']([^"']+)["']\s*>([\s\S]*?)<\/function_call>/g),
  ];
  if (tagged.length) {
    return tagged.map((m, i) => ({
      name: m[1]!.trim(),
      arguments: toArguments(
        parseJson(m[2]!.trim() || "{}", `<function_call> #${i + 1}`),
        `<function_call name="${m[1]}">`,
      ),
    }));
  }
  const fenced = [...text.matchAll(/```(?:json)?\s*\n?([\s\S]*?)```/g)];
  if (fenced.length)
    return fenced.flatMap((m, i) => toCalls(parseJson(m[1]!.trim(), `code block #${i + 1}`)));
  const trimmed = text.trim();
  if (trimmed.startsWith("[") || trimmed.startsWith("{")) return toCalls(parseJson(trimmed, "the text"));
  throw new FunctionCallParseError(
    'No function call found. Send a JSON array of {"function", "arguments"}, <function_call name="…">{…}</function_call> tags, a ```json block, or one {"function", "arguments"} object.',
  );
}

function parseJson(source: string, where: string): unknown {
  try {
    return JSON.parse(source);
  } catch (e) {
    throw new FunctionCallParseError(
      `${where} is not valid JSON${e instanceof SyntaxError ? `: ${e.message}` : ""}.`,
    );
  }
}

function toCalls(value: unknown): ToolCall[] {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) throw new FunctionCallParseError("The list of function calls is empty.");
  return items.map((item, i) => {
    if (typeof item !== "object" || item === null)
      throw new FunctionCallParseError(`Call #${i + 1} is not an object.`);
    const record = item as Record<string, unknown>;
    const name = record.function ?? record.name;
    if (typeof name !== "string" || name === "")
      throw new FunctionCallParseError(`Call #${i + 1} has no "function" name.`);
    return { name, arguments: toArguments(record.arguments ?? {}, `call #${i + 1} (${name})`) };
  });
}

function toArguments(value: unknown, where: string): Record<string, unknown> {
  const parsed = typeof value === "string" ? parseJson(value, `the arguments of ${where}`) : value;
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new FunctionCallParseError(`The arguments of ${where} must be a JSON object.`);
  }
  return parsed as Record<string, unknown>;
}
