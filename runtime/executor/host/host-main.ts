// Executor host process: started sandboxed by the server with a socketpair on fd 3, it runs
// component Workers (HostCore) and exits as soon as that channel closes, so it never outlives
// the server. It is pid 1 of its namespace, so it is stopped by message (S), then SIGKILL.
import { BatchWriter, line, lineReader } from '../wire/index.ts';
import { connectFd } from './fd-socket.ts';
import { HostCore } from './host-core.ts';
import { selfReport } from './self-report.ts';
import { installSyscallFilter } from './syscall-filter.ts';

const CHANNEL_FD = 3;
/** The server is trusted, but one line is never larger than a request plus its revision. */
const MAX_LINE_CHARS = 64 * 1024 * 1024;

// Before any component code can run: no new programs or processes from here on (syscall-filter.ts).
const filter = process.argv.includes('--no-syscall-filter') ? { ok: false as const, reason: 'switched off' } : await installSyscallFilter();

function exit(code: number): never {
  // process.exit ends the process even while a Worker thread is stuck (e.g. in a WebAssembly loop).
  process.exit(code);
}

let writer: BatchWriter | undefined;
const core = new HostCore(
  (lines) => writer?.write(lines),
  () => exit(0),
);
const read = lineReader(MAX_LINE_CHARS, (batch) => core.receive(batch), () => exit(1));

const socket = await connectFd(CHANNEL_FD, {
  data: (_socket, chunk) => read(chunk),
  drain: () => writer?.drain(),
  end: () => exit(0),
  close: () => exit(0),
  error: () => exit(1),
});
writer = new BatchWriter(socket);
writer.write(line('H', [], JSON.stringify(selfReport(filter.ok ? undefined : filter.reason))));

// Deliberately no SIGTERM/SIGINT handlers: as pid 1 the host ignores them, so component code
// cannot end its own host with process.kill(process.pid). The server stops hosts with S, then SIGKILL.
