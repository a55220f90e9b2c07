// The "Try it" form's fields, generated in the browser from a tool's inputSchema: one labelled control per
// top-level argument (at most 100), named `arg:<name>`, id `arg-<i>`, with its kind in data-kind (which
// tool.ts's argsCollector turns back into a JSON value), a hint (description, type and rules in words, as the
// server's "What it takes" table says them) and an error slot. Built here, not on the server: the form only
// works with JavaScript, and this code is then no weight in the Worker's bundle.
import type { JsonSchemaObject } from "../../../src/protocol/index.js";
import { isObj, lit, rules, typeLabel, type Schema } from "../../shared/schema-words.js";
import { h } from "./dom.js";

/** The kind of form control for one argument; argsCollector turns each back into a JSON value. */
export type ArgKind = "string" | "number" | "integer" | "boolean" | "enum" | "json";

export function argKind(s: Schema): ArgKind {
  if (Array.isArray(s.enum) && s.enum.length > 0 && s.enum.length <= 50) return "enum";
  const t = Array.isArray(s.type) ? s.type.filter((x) => x !== "null") : [s.type];
  if (t.length === 1) {
    if (t[0] === "string" || t[0] === "number" || t[0] === "integer" || t[0] === "boolean") return t[0];
  }
  return "json";
}

const INPUT_TYPE_FOR_FORMAT: Record<string, string> = {
  date: "date",
  email: "email",
  uri: "url",
  url: "url",
  time: "time",
};

const num = (v: unknown) => (typeof v === "number" ? v : undefined);

/** The fields of `schema`'s arguments, or a note that the tool takes none. */
export function argFields(schema: JsonSchemaObject): HTMLElement[] {
  const props = isObj(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const entries = Object.entries(props).slice(0, 100);
  if (entries.length === 0) return [h("p", { class: "empty-inline" }, "This tool takes no arguments.")];
  return entries.map(([name, raw], i) => {
    const s = isObj(raw) ? raw : {};
    const kind = argKind(s);
    const id = `arg-${i}`;
    const req = required.has(name);
    const hint = [typeof s.description === "string" ? s.description : "", typeLabel(s), ...rules(s)]
      .filter(Boolean)
      .join(" · ");
    const common = {
      id,
      name: `arg:${name}`,
      "data-arg": name,
      "data-kind": kind,
      "aria-describedby": `${id}-hint`,
      ...(req ? { required: true, "aria-required": "true" } : {}),
    };
    const def = s.default;
    const notSet = req ? null : h("option", { value: "" }, "— not set —");
    let control: HTMLElement;
    if (kind === "enum") {
      control = h(
        "select",
        common,
        notSet,
        (s.enum as unknown[]).map((v) =>
          h(
            "option",
            { value: lit(v), selected: def !== undefined && lit(def) === lit(v) },
            typeof v === "string" ? v : lit(v),
          ),
        ),
      );
    } else if (kind === "boolean") {
      control = h(
        "select",
        common,
        notSet,
        h("option", { value: "true", selected: def === true }, "true"),
        h("option", { value: "false", selected: def === false }, "false"),
      );
    } else if (kind === "number" || kind === "integer") {
      control = h("input", {
        ...common,
        type: "number",
        inputmode: kind === "integer" ? "numeric" : "decimal",
        step: kind === "integer" ? "1" : "any",
        min: num(s.minimum),
        max: num(s.maximum),
        value: num(def),
      });
    } else if (kind === "string") {
      const format = typeof s.format === "string" ? INPUT_TYPE_FOR_FORMAT[s.format] : undefined;
      control = h("input", {
        ...common,
        type: format ?? "text",
        minlength: num(s.minLength),
        maxlength: num(s.maxLength),
        value: typeof def === "string" ? def : undefined,
        autocomplete: "off",
      });
    } else {
      control = h(
        "textarea",
        {
          ...common,
          rows: 3,
          spellcheck: "false",
          placeholder: isObj(s.items) || s.type === "array" ? "[ ]" : "JSON value",
        },
        def !== undefined ? lit(def) : "",
      );
    }
    return h(
      "div",
      { class: "field" },
      h(
        "label",
        { for: id },
        h("code", {}, name),
        " ",
        h("span", { class: req ? "req" : "opt" }, req ? "required" : "optional"),
      ),
      control,
      h("p", { class: "hint", id: `${id}-hint` }, hint, kind === "json" ? " · enter JSON" : ""),
      h("p", { class: "field-error", id: `${id}-error`, hidden: true }),
    );
  });
}
