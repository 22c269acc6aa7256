// Both origins in one process, started by the composition root exactly as `npm start` starts them
// (src/compose.ts, role `all`), but on free ports (port 0) so a bench can start several side by
// side. Run as its own process so that the load generator and the bench driver do not share its CPU:
//
//   bun bench/lib/platform-server.ts      (configuration from the environment, as `npm start`)
//
// Prints one line `READY {"control":port,"runtime":port,"pid":pid}` on stdout when both origins
// answer, and shuts down cleanly (runtime drained, audit flushed, hosts stopped: the server's own
// SIGTERM drain) on SIGTERM or when its stdin closes, so that no executor host outlives a killed bench.
import { start } from '../../src/index.ts';

const started = await start('all', { ...process.env, PORT: '0', RUNTIME_PORT: '0' });

const stop = () => process.kill(process.pid, 'SIGTERM');
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();

process.stdout.write(`READY ${JSON.stringify({ control: started.control, runtime: started.runtime, pid: process.pid })}\n`);
