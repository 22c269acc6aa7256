// The entry point of every server process: `bun src/main.ts [all|control-plane|runtime]` (default
// `all`, what `npm start` runs). Everything is built and served by the composition root.
import { ROLES, start, type Role } from './compose.ts';

const role = process.argv[2] ?? 'all';
if (!(ROLES as readonly string[]).includes(role)) {
  process.stderr.write(`unknown role "${role}": expected one of ${ROLES.join(', ')}\n`);
  process.exit(2);
}
await start(role as Role);
