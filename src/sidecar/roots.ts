// The folders the sidecar may search: parsed from --root flags and realpath'd once at start, plus the
// containment rules every path goes through (whole path components after realpath, never string prefixes).
import { lstatSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { SearchError } from "./errors.js";

export interface SearchRoot {
  /** What agents pass as `root` (the default root is the first). */
  name: string;
  /** The directory as the user gave it (resolved against the working directory). */
  given: string;
  /** Its realpath, taken at start: every containment check compares against this. */
  realPath: string;
}

/** A root name, as `--root NAME=DIR` gives it. */
export const ROOT_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

export class RootConfigError extends Error {
  override readonly name = "RootConfigError";
}

/** `NAME=DIR` or `DIR`. A DIR that contains `=` can be written `./a=b` (a name has no `/`). */
export function parseRootSpec(spec: string): { name: string | undefined; dir: string } {
  const eq = spec.indexOf("=");
  if (eq > 0 && ROOT_NAME_PATTERN.test(spec.slice(0, eq))) {
    return { name: spec.slice(0, eq), dir: spec.slice(eq + 1) };
  }
  return { name: undefined, dir: spec };
}

function defaultName(realPath: string): string {
  const base = path
    .basename(realPath)
    .replace(/[^A-Za-z0-9_.-]/g, "_")
    .slice(0, 64);
  return base === "" || /^\.+$/.test(base) ? "root" : base;
}

/**
 * Resolves `--root` specs: each must name an existing directory; it is realpath'd now, once. Unnamed roots
 * are named after their folder (`-2`, `-3`… when two share a name); naming two roots alike is an error.
 */
export function resolveRoots(specs: readonly string[], cwd: string = process.cwd()): SearchRoot[] {
  if (specs.length === 0) throw new RootConfigError("Give at least one folder to search with --root DIR.");
  const roots: SearchRoot[] = [];
  const explicit = new Set<string>();
  const parsed = specs.map((spec) => {
    if (spec.includes("\0")) throw new RootConfigError("A --root value contains a NUL byte.");
    const { name, dir } = parseRootSpec(spec);
    if (dir === "") throw new RootConfigError(`--root ${spec}: the folder is missing (use NAME=DIR or DIR).`);
    if (name !== undefined) {
      if (explicit.has(name)) throw new RootConfigError(`Two roots are named "${name}"; names must differ.`);
      explicit.add(name);
    }
    return { name, dir, spec };
  });
  for (const { name, dir, spec } of parsed) {
    const given = path.resolve(cwd, dir);
    let realPath: string;
    try {
      realPath = realpathSync.native(given);
    } catch {
      throw new RootConfigError(`--root ${spec}: ${given} does not exist.`);
    }
    if (!statSync(realPath).isDirectory()) {
      throw new RootConfigError(`--root ${spec}: ${given} is not a directory.`);
    }
    const same = roots.find((r) => r.realPath === realPath);
    if (same) throw new RootConfigError(`--root ${spec}: ${given} is already a root ("${same.name}").`);
    let chosen = name ?? defaultName(realPath);
    if (name === undefined) {
      const base = chosen;
      for (let n = 2; explicit.has(chosen) || roots.some((r) => r.name === chosen); n++)
        chosen = `${base}-${n}`;
    }
    roots.push({ name: chosen, given, realPath });
  }
  return roots;
}

/** True when `child` is `parent` or below it, compared by whole path components (`/data` ⊄ `/data-evil`). */
export function isWithin(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  if (rel === "") return true;
  if (path.isAbsolute(rel)) return false; // another drive on Windows
  return rel !== ".." && !rel.startsWith(`..${path.sep}`);
}

/** Why a `root` or `path` argument was refused (a tool error); the message is written for the agent. */
export class PathPolicyError extends SearchError {}

function rootList(roots: readonly SearchRoot[]): string {
  return roots.map((r) => `"${r.name}"`).join(", ");
}

/**
 * The root an agent asked for: omitted → the first; else a root's name, or the path of a root exactly
 * (as configured or its realpath). A folder inside a root is not a root: the message says to use `path`.
 */
export function selectRoot(roots: readonly SearchRoot[], requested: string | undefined): SearchRoot {
  const first = roots[0];
  if (!first) throw new PathPolicyError("No roots are configured.");
  if (requested === undefined || requested === "") return first;
  const byName = roots.find((r) => r.name === requested);
  if (byName) return byName;
  if (path.isAbsolute(requested)) {
    // Compared as text only: a path the agent sends is never looked up on disk here.
    const wanted = path.resolve(requested);
    const byPath = roots.find((r) => r.given === wanted || r.realPath === wanted);
    if (byPath) return byPath;
    const containing = roots.find((r) => isWithin(r.realPath, wanted) || isWithin(r.given, wanted));
    if (containing) {
      throw new PathPolicyError(
        `'root' must be one of the allowed roots (${rootList(roots)}), not a folder inside one: pass root "${containing.name}" and the folder's path relative to it as 'path'.`,
      );
    }
  }
  throw new PathPolicyError(
    `'root' "${requested}" is not an allowed root. Allowed roots: ${rootList(roots)}; omit 'root' to search "${first.name}".`,
  );
}

export interface StartDirectory {
  /** Absolute path of the directory to search (inside root.realPath). */
  abs: string;
  /** Its path relative to the root, POSIX separators, "" for the root itself. */
  rel: string;
}

/**
 * Resolves the relative `path` argument under a root. Refused: absolute paths, `..` that leaves the root,
 * a component that is a symbolic link (links are never followed), anything missing or not a directory.
 * After the walk, the directory's realpath is checked to be inside the root's realpath.
 */
export function resolveStart(root: SearchRoot, requested: string | undefined): StartDirectory {
  const raw = requested ?? "";
  const posix = path.sep === "\\" ? raw.replace(/\\/g, "/") : raw;
  if (path.posix.isAbsolute(posix) || path.win32.isAbsolute(raw)) {
    throw new PathPolicyError(
      `'path' must be relative to the root (like "src/docs"), not absolute. To search another allowed root, set 'root' to its name.`,
    );
  }
  let rel = posix === "" ? "." : path.posix.normalize(posix);
  if (rel.endsWith("/")) rel = rel.slice(0, -1);
  if (rel === ".." || rel.startsWith("../")) {
    throw new PathPolicyError(
      `'path' "${raw}" leaves the root "${root.name}" through "..": give a path inside the root, or omit 'path' to search the whole root.`,
    );
  }
  if (rel === ".") rel = "";
  let abs = root.realPath;
  const walked: string[] = [];
  for (const part of rel === "" ? [] : rel.split("/")) {
    abs = path.join(abs, part);
    walked.push(part);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (!st) {
      throw new PathPolicyError(
        `'path' "${rel}" does not exist under root "${root.name}" ("${walked.join("/")}" is missing). Check the spelling, or search a parent folder with 'glob'.`,
      );
    }
    if (st.isSymbolicLink()) {
      throw new PathPolicyError(
        `'path' "${rel}" goes through a symbolic link ("${walked.join("/")}"); links are not followed. Give the path of a real directory inside root "${root.name}".`,
      );
    }
    if (!st.isDirectory()) {
      throw new PathPolicyError(
        `'path' "${rel}" is not a directory ("${walked.join("/")}" is a file). Give a directory, and use 'glob' to pick files.`,
      );
    }
  }
  let real: string;
  try {
    real = realpathSync.native(abs);
  } catch {
    throw new PathPolicyError(`'path' "${rel}" could not be opened under root "${root.name}".`);
  }
  if (!isWithin(root.realPath, real)) {
    throw new PathPolicyError(`'path' "${rel}" is outside the root "${root.name}".`);
  }
  return { abs, rel };
}
