// Random 32-bit numbers for the channel to a host: an invocation's secret (only lines that echo it
// may answer it) and a Worker kill's token. Random, so component code writing to its host's
// channel cannot guess one.

const secrets = new Uint32Array(512);
let nextSecret = secrets.length;

/** Two fresh random 32-bit numbers, drawn from a buffer refilled 256 invocations at a time. */
export function newSecret(): readonly [number, number] {
  if (nextSecret >= secrets.length) {
    crypto.getRandomValues(secrets);
    nextSecret = 0;
  }
  const pair = [secrets[nextSecret]!, secrets[nextSecret + 1]!] as const;
  nextSecret += 2;
  return pair;
}
