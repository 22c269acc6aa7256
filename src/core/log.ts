// A small levelled logger writing one line per event to stderr (stdout stays for the bootstrap key).

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, error?: unknown): void;
}

export function createLogger(level: LogLevel, name: string): Logger {
  const emit = (at: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    const extra = fields && Object.keys(fields).length > 0 ? ' ' + JSON.stringify(fields) : '';
    process.stderr.write(`${new Date().toISOString()} ${at.toUpperCase()} [${name}] ${message}${extra}\n`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, e) => emit('error', m, e === undefined ? undefined : { error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
