// Reading Server-Sent Events in tests: the frames of a run's event stream as they arrive, parsed by
// the rules of the SSE format (a blank line ends a frame; `field: value`, one leading space
// dropped; a line starting with `:` is a comment), with the raw text kept for framing checks.

export interface SseFrame {
  /** The frame's field lines in the order sent, comments left out. */
  fields: [name: string, value: string][];
  /** Comment lines of the frame (without the leading colon). */
  comments: string[];
  id?: string;
  event?: string;
  data?: string;
}

interface SseRead {
  frames: SseFrame[];
  /** Frames carrying events (not only comments). */
  events: SseFrame[];
  /** True when the server ended the stream; false when the reader stopped it (or gave up). */
  ended: boolean;
  /** Set when the body failed (the connection broke) instead of ending. */
  error?: string;
  /** Text received after the last complete frame. */
  rest: string;
}

function parseFrame(block: string): SseFrame {
  const frame: SseFrame = { fields: [], comments: [] };
  for (const line of block.split(/\r\n|\r|\n/)) {
    if (line === '') continue;
    if (line.startsWith(':')) {
      frame.comments.push(line.slice(1));
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    frame.fields.push([name, value]);
    if (name === 'id') frame.id = value;
    else if (name === 'event') frame.event = value;
    else if (name === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
  }
  return frame;
}

/**
 * Reads an SSE response until the server ends it, `stop(frames)` says enough (then the reader
 * cancels the body: the client drops the connection), or `ms` pass (the body is cancelled too).
 */
export async function readSse(response: Response, options: { stop?: (events: SseFrame[]) => boolean; ms?: number } = {}): Promise<SseRead> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const frames: SseFrame[] = [];
  const events = () => frames.filter((f) => f.fields.length > 0);
  let buffer = '';
  let ended = false;
  let error: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), options.ms ?? 20_000)));
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), timeout]);
      if (next === 'timeout') break;
      if (next.done) {
        ended = true;
        break;
      }
      buffer += decoder.decode(next.value, { stream: true });
      let end: number;
      while ((end = buffer.search(/\r\n\r\n|\n\n|\r\r/)) !== -1) {
        const separator = buffer.slice(end).startsWith('\r\n\r\n') ? 4 : 2;
        frames.push(parseFrame(buffer.slice(0, end)));
        buffer = buffer.slice(end + separator);
      }
      if (options.stop?.(events())) break;
    }
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  } finally {
    clearTimeout(timer);
    if (!ended) await reader.cancel().catch(() => {});
  }
  return { frames, events: events(), ended, rest: buffer, ...(error === undefined ? {} : { error }) };
}
