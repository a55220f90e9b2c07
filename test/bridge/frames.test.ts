// The frames protocol's pure part in Node (src/bridge/frames.ts): how a parent reads its <iframe allow="…">
// attribute to decide whether the `tools` feature reaches a child of a given origin, as Permissions Policy
// parses the attribute (a bare feature means 'src'; undefined = not named, so the default allowlist 'self'
// decides). The rest of frames.ts needs windows and runs in Chromium (test/e2e/bridge-frames.test.ts).
import { describe, expect, it } from "vitest";
import { allowGrants } from "../../src/bridge/frames.js";

const SELF = "https://top.example";
const CHILD = "https://child.example";
const SRC = `${CHILD}/frame.html`;
const grants = (allow: string, origin = CHILD, src = SRC) => allowGrants(allow, origin, src, SELF);

describe("allowGrants: an iframe's allow attribute and the tools feature", () => {
  it("is undefined when the attribute does not name tools (the default allowlist 'self' decides)", () => {
    expect(grants("")).toBeUndefined();
    expect(grants("camera; microphone *")).toBeUndefined();
    expect(grants("toolsx *")).toBeUndefined();
  });

  it("a bare `tools` means 'src': the origin of the iframe's src, not another", () => {
    expect(grants("tools")).toBe(true);
    expect(grants("tools 'src'")).toBe(true);
    expect(grants("tools", "https://elsewhere.example")).toBe(false);
  });

  it("understands *, 'self', 'none' and listed origins, among other directives", () => {
    expect(grants("tools *")).toBe(true);
    expect(grants("camera; tools *; fullscreen")).toBe(true);
    expect(grants("tools 'self'")).toBe(false);
    expect(grants("tools 'self'", SELF)).toBe(true);
    expect(grants("tools 'none'")).toBe(false);
    expect(grants(`tools ${CHILD} https://other.example`)).toBe(true);
    expect(grants("tools https://other.example")).toBe(false);
    expect(grants(`tools ${CHILD}/some/path`)).toBe(true);
  });
});
