// The line protocol spoken between server, host and Worker: one message per '\n'-terminated line,
// `<tag> <numeric fields…>\t<JSON payload>`. JSON.stringify never emits a raw newline, so payloads
// need no escaping, and a relay can route a line by its header without parsing the JSON.

/**
 * Tags. Server→host: L load revision source, R run, V verify, P platform reply, K kill Worker,
 * X drop revision, S stop. Host→server: H hello, D done (outcome), C platform call, k kill
 * acknowledged. Worker→host: D, C, O (memory exhausted, replace me), E (the revision failed to
 * load; retire me once idle).
 */
export type Tag = 'L' | 'R' | 'V' | 'P' | 'K' | 'X' | 'S' | 'H' | 'D' | 'C' | 'k' | 'O' | 'E';

export function line(tag: Tag, fields: readonly number[], payload = ''): string {
  let head: string = tag;
  for (let i = 0; i < fields.length; i++) head += ` ${fields[i]}`;
  return `${head}\t${payload}`;
}

/** The numeric header field at `index` (0-based after the tag), or -1 when absent or malformed. */
export function field(text: string, index: number): number {
  const tab = text.indexOf('\t');
  const end = tab === -1 ? text.length : tab;
  let pos = 1;
  for (let i = 0; i <= index; i++) {
    if (text.charCodeAt(pos) !== 32) return -1;
    pos++;
    let value = 0;
    const start = pos;
    while (pos < end) {
      const c = text.charCodeAt(pos);
      if (c < 48 || c > 57) break;
      value = value * 10 + (c - 48);
      pos++;
    }
    if (pos === start || pos - start > 15) return -1;
    if (i === index) return value;
  }
  return -1;
}

/** The JSON payload after the tab ('' when there is none). */
export function payload(text: string): string {
  const tab = text.indexOf('\t');
  return tab === -1 ? '' : text.slice(tab + 1);
}

/** Calls `fn` for every non-empty line of a batch. */
export function eachLine(batch: string, fn: (text: string) => void): void {
  let start = 0;
  for (let nl = batch.indexOf('\n'); nl !== -1; nl = batch.indexOf('\n', start)) {
    if (nl > start) fn(batch.slice(start, nl));
    start = nl + 1;
  }
  if (start < batch.length) fn(batch.slice(start));
}
