// Subscribers of one Server-Sent Events stream, in a process of their own so that their reading
// does not share the server's thread (bench/runs.ts starts it):
//
//   bun bench/lib/sse-subscribers.ts <url> <count> [bearer key]
//
// Opens <count> streams at once and prints `READY` when every response has arrived; when every
// stream has ended, one line `ARRIVALS <json>`: per subscriber, the id and arrival time of each
// `message.created` frame as a flat list [id, ms, id, ms, …]. Times are on the clock
// `performance.timeOrigin + performance.now()`, which processes on one machine share.
export {}; // a module: top-level await

const [url, countText, key] = process.argv.slice(2);
if (!url || !countText) throw new Error('usage: sse-subscribers.ts <url> <count> [bearer key]');
const TYPE = 'message.created';
const clock = () => performance.timeOrigin + performance.now();

async function subscribe(): Promise<() => Promise<number[]>> {
  const response = await fetch(url!, { headers: { accept: 'text/event-stream', ...(key ? { authorization: `Bearer ${key}` } : {}) } });
  if (response.status !== 200 || !response.body) throw new Error(`${url} → ${response.status} ${await response.text()}`);
  const reader = response.body.getReader();
  return async () => {
    const arrivals: number[] = [];
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return arrivals;
      const at = clock();
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id = NaN;
        let type = '';
        for (const line of frame.split('\n')) {
          if (line.startsWith('id: ')) id = Number(line.slice(4));
          else if (line.startsWith('event: ')) type = line.slice(7);
        }
        if (type === TYPE) arrivals.push(id, Math.round(at * 1000) / 1000);
      }
    }
  };
}

const readers = await Promise.all(Array.from({ length: Number(countText) }, subscribe));
process.stdout.write('READY\n');
const arrivals = await Promise.all(readers.map((read) => read()));
process.stdout.write(`ARRIVALS ${JSON.stringify(arrivals)}\n`);
