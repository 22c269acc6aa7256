// drizzle-kit: generates the committed SQLite migrations from src/core/db/schema/sqlite.ts.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/core/db/schema/sqlite.ts',
  out: './src/core/db/migrations/sqlite',
});
