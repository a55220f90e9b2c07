// The drizzle handle over the D1 binding.
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { is, SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import * as schema from "./schema.js";

export type Db = DrizzleD1Database<typeof schema> & { $client: D1Database };

export function database(d1: D1Database): Db {
  return drizzle(d1, { schema });
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
