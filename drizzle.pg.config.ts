// drizzle-kit: generates the committed Postgres migrations from src/db/schema/pg.ts.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema/pg.ts',
  out: './src/db/migrations/pg',
});
