// The Hono environment every route shares, and helpers to read what routes need from it.
import type { Context } from "hono";
import type { z } from "zod";
import { database, type Db } from "../db/client.js";
import { settingsOf, type Bindings, type Settings } from "../env.js";
import { parseWith } from "./body.js";

export type AppEnv = {
  Bindings: Bindings;
  Variables: {
    db: Db;
    settings: Settings;
    now: number;
    /** The hub's origin, as this request reached it (links, cookies' Origin check, OAuth issuer). */
    hub: string;
    /** The sha256 of the request's agent token, once something hashed it (hashed once per request). */
    agentTokenHash?: string;
  };
};
export type AppContext = Context<AppEnv>;

/** Middleware factory: parses settings once, opens the database handle, fixes the request's clock and
 *  notes the hub's origin (every absolute URL the hub writes starts with it). */
export function hubContext() {
  return async function hubContextMiddleware(c: AppContext, next: () => Promise<void>): Promise<void> {
    c.set("settings", settingsOf(c.env));
    c.set("db", database(c.env.DB));
    c.set("now", Date.now());
    c.set("hub", new URL(c.req.url).origin);
    await next();
  };
}

/** Parses the query string with a zod schema, answering 400 validation_failed with field issues. */
export function query<S extends z.ZodType>(c: AppContext, schema: S): z.infer<S> {
  return parseWith(schema, c.req.query());
}
