// A list-query reader's thread: its own read-only connection to the SQLite file, so a long list
// query (a group or a count over a million audit rows takes a second) runs beside the serving
// thread instead of on it (SQLite is synchronous). Messages: {file} opens, then
// {id, sql, params} → {id, rows} or {id, error: {message, code}}; {id, close} closes the connection.
import { platform, type SqliteConnection, type SqliteValue } from '../../platform/index.ts';

declare const self: Worker;

interface Request {
  id: number;
  /** Closes the connection (the last message: the thread is stopped after it). */
  close?: true;
  file?: string;
  sql?: string;
  params?: SqliteValue[];
}

let db: SqliteConnection | null = null;
/** Why the file could not be opened: every query is answered with it. */
let openError: string | null = null;

function open(file: string): SqliteConnection {
  const client = platform.sqlite.open(file, { readonly: true, strict: true });
  client.exec('PRAGMA busy_timeout = 5000');
  // Read-only twice over: the connection cannot write, and neither can a statement it is given.
  client.exec('PRAGMA query_only = 1');
  return client;
}

self.onmessage = (event: MessageEvent<Request>) => {
  const { id, file, sql, params, close } = event.data;
  try {
    if (close) {
      db?.close(true);
      db = null;
      self.postMessage({ id, rows: [] });
      return;
    }
    if (file !== undefined) {
      try {
        db = open(file);
      } catch (error) {
        openError = String((error as Error).message ?? error);
        throw error;
      }
      self.postMessage({ id, rows: [] });
      return;
    }
    if (!db) throw new Error(`list-query reader: the database could not be opened (${openError ?? 'not opened'})`);
    const statement = db.prepare(sql ?? '');
    try {
      self.postMessage({ id, rows: statement.all(...(params ?? [])) });
    } finally {
      statement.finalize();
    }
  } catch (error) {
    const { message, code } = error as { message?: unknown; code?: unknown };
    self.postMessage({ id, error: { message: String(message ?? error), code: typeof code === 'string' ? code : undefined } });
  }
};
