// Small building blocks shared by every page: badges, tool cards, copyable values, code blocks, notices.
// Everything renders without JavaScript; /assets/common.js (web/client/common.ts) adds copy buttons, tabs and
// the theme switch. Markup the browser scripts also build (code blocks, copy buttons) and texts they also
// show (`ago`, `plural`) come from web/shared/markup.ts, written once for both.
import type { Child } from "hono/jsx";
import { jsx } from "hono/jsx/jsx-runtime";
import { ago, codeBlock, copyButton, type MarkupElement } from "../shared/markup.js";
import type { ToolAnnotations } from "../../src/protocol/index.js";
import type { RegistryToolView } from "../../src/protocol/views.js";

export const sitePath = (host: string) => `/sites/${encodeURIComponent(host)}`;
export const toolPath = (host: string, name: string) => `${sitePath(host)}/tools/${encodeURIComponent(name)}`;

export interface Hint {
  label: string;
  kind: "ro" | "rw" | "danger" | "untrusted" | "info";
  title: string;
}

/** What a tool's annotations mean for the person who lets an agent call it, in plain words. */
export function hints(readOnly: boolean, a: ToolAnnotations): Hint[] {
  const out: Hint[] = [];
  if (readOnly) {
    out.push({
      label: "read-only",
      kind: "ro",
      title: "The site declares that this tool changes nothing, so agents may call it without asking you.",
    });
  } else {
    out.push({
      label: "changes data — asks for approval",
      kind: "rw",
      title: "This tool may change something. When an agent calls it, your tab asks you to approve first.",
    });
    if (a.destructiveHint === true)
      out.push({ label: "destructive", kind: "danger", title: "It may delete or overwrite data." });
  }
  if (a.consequentialHint === true)
    out.push({
      label: "consequential",
      kind: "danger",
      title: "Its effects matter outside the page, such as a purchase or a message sent.",
    });
  if (a.untrustedContentHint === true)
    out.push({
      label: "untrusted content",
      kind: "untrusted",
      title:
        "It returns content written by others (reviews, messages, web pages): an agent should treat it as data, not instructions.",
    });
  if (a.openWorldHint === true)
    out.push({
      label: "reaches other services",
      kind: "info",
      title: "It talks to systems beyond this site.",
    });
  if (a.idempotentHint === true)
    out.push({
      label: "safe to repeat",
      kind: "info",
      title: "Calling it twice has the same effect as once.",
    });
  return out;
}

export function HintBadges(props: { readOnly: boolean; annotations: ToolAnnotations }) {
  return (
    <>
      {hints(props.readOnly, props.annotations).map((h) => (
        <>
          <span class={`badge ${h.kind}`} title={h.title}>
            {h.label}
          </span>{" "}
        </>
      ))}
    </>
  );
}

export function VerifiedBadge(props: { method?: string | null }) {
  return (
    <span class="badge verified" title="The site proved it controls this origin">
      <span aria-hidden="true">✓ </span>verified{props.method ? ` by ${methodLabel(props.method)}` : ""}
    </span>
  );
}

export function methodLabel(method: string): string {
  return method === "dns" ? "DNS record" : method === "http" ? "HTTP file" : method;
}

export function ToolCard(props: { tool: RegistryToolView; showSite?: boolean }) {
  const t = props.tool;
  return (
    <li class="card tool-card">
      <h3>
        <a href={toolPath(t.site, t.name)}>{t.title ?? t.name}</a>
      </h3>
      <p class="meta">
        <code>{t.name}</code>
        {props.showSite === false ? null : (
          <>
            {" · "}
            <a href={sitePath(t.site)}>{t.site}</a> <VerifiedBadge />
          </>
        )}
      </p>
      <p class="desc">{t.description}</p>
      <p class="badges">
        <HintBadges readOnly={t.readOnly} annotations={t.annotations} />
      </p>
    </li>
  );
}

/** A value the user will paste somewhere: shown in full, with a copy button once scripts run. */
export function CopyValue(props: { id: string; label: string; value: string; secret?: boolean }) {
  return (
    <div class="copy-value">
      <span class="label" id={`${props.id}-label`}>
        {props.label}
      </span>
      <code id={props.id} class={props.secret ? "secret" : undefined}>
        {props.value}
      </code>
      <CopyButton target={props.id} label={props.label} />
    </div>
  );
}

export function CopyButton(props: { target: string; label: string }) {
  return <Markup node={copyButton(props.target, props.label, { hidden: true })} />;
}

/** A block of code with a copy button. */
export function CodeBlock(props: { id: string; label: string; code: string; lang?: string }) {
  return <Markup node={codeBlock({ ...props, hidden: true })} />;
}

/** Renders an element of web/shared/markup.ts. */
export function Markup(props: { node: MarkupElement }): ReturnType<typeof jsx> {
  const { tag, attrs, children } = props.node;
  return jsx(tag, {
    ...attrs,
    children: children.map((c) => (typeof c === "string" ? c : <Markup node={c} />)),
  });
}

/** Sections that become tabs when scripts run (each child is a `<section data-tab="Label">`). */
export function Tabs(props: { label: string; children: Child }) {
  return (
    <div class="tabs" data-tabs={props.label}>
      {props.children}
    </div>
  );
}

export function Notice(props: { kind: "info" | "ok" | "warn" | "error"; title?: string; children: Child }) {
  return (
    <div class={`alert ${props.kind}`} role={props.kind === "error" ? "alert" : undefined}>
      {props.title ? <strong>{props.title} </strong> : null}
      {props.children}
    </div>
  );
}

export function Empty(props: { children: Child }) {
  return <div class="empty">{props.children}</div>;
}

/** "3 days ago" style text for a past ISO time, with the exact time in a title attribute. */
export function Ago(props: { iso: string; now: number }) {
  return (
    <time datetime={props.iso} title={props.iso.replace("T", " ").slice(0, 16) + " UTC"}>
      {ago(Date.parse(props.iso), props.now)}
    </time>
  );
}

export { ago, plural } from "../shared/markup.js";

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
