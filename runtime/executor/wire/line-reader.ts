// Turns a byte stream into lines. A line longer than the limit is a protocol violation: the
// reader reports it once and stops, so a misbehaving peer cannot make us buffer without end.

export function lineReader(
  maxLineChars: number,
  onBatch: (lines: string) => void,
  onOverflow: () => void,
): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  let parts: string[] = [];
  let partChars = 0;
  let broken = false;
  return (chunk) => {
    if (broken) return;
    const text = decoder.decode(chunk, { stream: true });
    const lastNl = text.lastIndexOf('\n');
    if (lastNl === -1) {
      parts.push(text);
      partChars += text.length;
      if (partChars > maxLineChars) {
        broken = true;
        parts = [];
        onOverflow();
      }
      return;
    }
    // '\n' is ASCII and never part of a multi-byte UTF-8 sequence, so splitting the decoded text is safe.
    const complete = parts.length > 0 ? parts.join('') + text.slice(0, lastNl) : text.slice(0, lastNl);
    parts = lastNl + 1 < text.length ? [text.slice(lastNl + 1)] : [];
    partChars = parts.length > 0 ? text.length - lastNl - 1 : 0;
    onBatch(complete);
  };
}
