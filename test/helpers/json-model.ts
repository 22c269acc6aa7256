// Reference models the fuzz tests judge responses by, written independently of src/ (so a bug
// there cannot hide in the model): how deep a JSON text nests, and which media types are JSON.

/** How deep a JSON text nests (brackets inside strings ignored). */
export function jsonNesting(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') max = Math.max(max, ++depth);
    else if (c === '}' || c === ']') depth--;
  }
  return max;
}
