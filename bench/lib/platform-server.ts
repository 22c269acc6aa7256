// Both origins in one process, wired as `npm start` wires them (src/start.ts: embedded index,
// in-process api.platform, executor with the configured hosts), but bound to free ports (port 0)
// so a bench can start several side by side. Run as its own process so that the load generator
// and the bench driver do not share its CPU:
//
//   bun bench/lib/platform-server.ts      (configuration from the environment, as `npm start`)
//
// Prints one line `READY {"control":port,"runtime":port,"pid":pid}` on stdout when both origins
// answer, and shuts down cleanly (runtime drained, audit flushed, hosts stopped) on SIGTERM or
// when its stdin closes, so that no executor host outlives a killed bench.
import { executorOptions, loadConfig, withBoundPorts } from '../../src/config.ts';
import { createLogger } from '../../src/lib/log.ts';
import { createPlatform, type Platform } from '../../src/platform.ts';
import { createExecutor } from '../../runtime/executor/index.ts';
import { createRuntime, type Runtime } from '../../runtime/create.ts';
import { SERVER_BODY_CAP } from '../../src/http/body.ts';

const source: Record<string, string | undefined> = { ...process.env, PORT: '0', RUNTIME_PORT: '0' };
let config = loadConfig(source);
const log = createLogger(config.LOG_LEVEL, 'bench-platform');
const executor = await createExecutor(executorOptions(config, (line) => log.info(line)));
log.info(`component isolation: ${config.COMPONENT_ISOLATION}`, { layers: executor.status().layers });

// Bind first (port 0), then tell the parts the URLs they were bound at.
let platform: Platform | null = null;
let runtime: Runtime | null = null;
const control = Bun.serve({ port: 0, hostname: '127.0.0.1', maxRequestBodySize: SERVER_BODY_CAP, fetch: (r) => platform!.app.handle(r) });
const edge = Bun.serve({ port: 0, hostname: '127.0.0.1', maxRequestBodySize: SERVER_BODY_CAP, fetch: (r, s) => runtime!.fetch(r, s) });
config = withBoundPorts(config, source, { control: control.port, runtime: edge.port });
platform = await createPlatform(config, log, { executor });
runtime = await createRuntime({
  config,
  db: platform.db,
  credentials: platform.credentials,
  jwt: platform.jwt,
  executor,
  log,
  embedded: { publisher: platform.publisher, controlPlane: (r) => platform!.app.handle(r) },
});

let stopping: Promise<void> | null = null;
const stop = () => {
  stopping ??= (async () => {
    await edge.stop(false);
    await control.stop(false);
    await runtime!.close();
    await executor.close();
    await platform!.close();
    process.exit(0);
  })();
  return stopping;
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
process.stdin.on('end', () => void stop());
process.stdin.on('close', () => void stop());
process.stdin.resume();

process.stdout.write(`READY ${JSON.stringify({ control: control.port, runtime: edge.port, pid: process.pid })}\n`);
