// drizzle-kit: generates D1 SQL migrations from src/worker/db/schema.ts into migrations/ (`npm run db:generate`).
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./src/worker/db/schema.ts",
  out: "./migrations",
});
