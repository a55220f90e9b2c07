// hono's JSX contexts without the rest of `hono/jsx`: that entry point also imports its DOM renderer, hooks and
// streaming (about 17 KiB, 5 KiB gzipped, of code the server never runs), and its package exports offer
// createContext/useContext nowhere else. So the module the renderer itself uses (jsx/base.js imports
// ./context.js) is imported by its path: one module, the same context stacks; the types are hono/jsx's.
// @ts-ignore -- a path into the package (no declaration file beside it); typed below.
import * as context from "../../node_modules/hono/dist/jsx/context.js";
import type { createContext as CreateContext, useContext as UseContext } from "hono/jsx";

export const createContext = (context as { createContext: typeof CreateContext }).createContext;
export const useContext = (context as { useContext: typeof UseContext }).useContext;
