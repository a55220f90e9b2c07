// The drizzle handle over the D1 binding.
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { is, SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import {
  accounts,
  challenges,
  channels,
  manifestVersions,
  passkeys,
  providerTokens,
  publisherKeys,
  sites,
} from "./schema.js";

/**
 * The tables `db.query` reads (drizzle's relational queries). Only these: every table passed here stays in the
 * Worker's bundle, while a table read only through `sql` is dropped (schema.ts marks each table pure).
 */
const schema = {
  accounts,
  challenges,
  channels,
  manifestVersions,
  passkeys,
  providerTokens,
  publisherKeys,
  sites,
};

export type Db = DrizzleD1Database<typeof schema> & { $client: D1Database };

const handles = new WeakMap<D1Database, Db>();

/**
 * The drizzle handle for a D1 binding, made once per binding and isolate: building it walks the whole schema
 * (relational config for `db.query`), work a request should not repeat. The handle holds no request state.
 */
export function database(d1: D1Database): Db {
  let db = handles.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    handles.set(d1, db);
  }
  return db;
}

/** A drizzle query builder (insert/update/delete/select) or a raw `sql` fragment. */
export type BatchItem = { toSQL(): { sql: string; params: unknown[] } } | SQL;

const dialect = new SQLiteAsyncDialect();

/**
 * Runs statements as one D1 batch, which D1 executes as a single transaction: all apply or none do.
 * (drizzle's own `db.batch` cannot carry raw `sql` statements with parameters, which FTS5 upkeep needs.)
 */
export async function atomically(db: Db, items: BatchItem[]): Promise<D1Result[]> {
  const statements = items.map((item) => {
    const query = is(item, SQL) ? dialect.sqlToQuery(item) : item.toSQL();
    return db.$client.prepare(query.sql).bind(...query.params);
  });
  return db.$client.batch(statements);
}
