// Stands in, in the Worker bundle only (wrangler.toml [alias]), for drizzle-orm's Postgres enum column module,
// which drizzle-orm/sql/sql.js imports for one check (`isPgEnum`) and which brings ~6 KiB of pg-core column code
// into a SQLite (D1) build. The hub defines no Postgres enums, so nothing it builds is one.
export function isPgEnum(_value: unknown): boolean {
  return false;
}
