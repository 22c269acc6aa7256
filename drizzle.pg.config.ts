// drizzle-kit: generates the committed Postgres migrations from src/core/db/schema/pg.ts.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/core/db/schema/pg.ts',
  out: './src/core/db/migrations/pg',
});
