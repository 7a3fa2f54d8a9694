// The source text of an imported graph's node: the block that starts at the line the runner gave
// (its decorators, the `def` or `class` header however many lines it spans, and the indented body),
// or the one statement there when it is not a definition (a lambda passed to add_node).

export const MAX_SOURCE_LINES = 200;

/** Bracket depth change of a line, strings and comments left out (enough to follow a header or a call). */
function bracketDelta(line: string, state: { quote: string | null }): number {
  let delta = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (state.quote) {
      if (c === "\\") i++;
      else if (line.startsWith(state.quote, i)) {
        i += state.quote.length - 1;
        state.quote = null;
      }
      continue;
    }
    if (c === "#") break;
    if (c === '"' || c === "'") {
      const triple = line.startsWith(c.repeat(3), i);
      state.quote = triple ? c.repeat(3) : c;
      if (triple) i += 2;
      continue;
    }
    if ("([{".includes(c)) delta++;
    else if (")]}".includes(c)) delta--;
  }
  // A single-quoted string never spans lines.
  if (state.quote && state.quote.length === 1) state.quote = null;
  return delta;
}

const indentOf = (line: string) => /^[ \t]*/.exec(line)?.[0].length ?? 0;

/** The lines of the block at 1-based `line`, cut at MAX_SOURCE_LINES; null when the line is not in the file. */
export function sourceBlock(text: string, line: number): string | null {
  const lines = text.split(/\r?\n/);
  const first = line - 1;
  if (first < 0 || first >= lines.length || (lines[first] as string).trim() === "") return null;
  const base = indentOf(lines[first] as string);
  const state = { quote: null as string | null };
  let i = first;
  // Decorators, each possibly spanning lines.
  while (i < lines.length && (lines[i] as string).trimStart().startsWith("@")) {
    let depth = bracketDelta(lines[i] as string, state);
    i++;
    while (depth > 0 && i < lines.length) depth += bracketDelta(lines[i++] as string, state);
  }
  const head = (lines[i] ?? "").trimStart();
  const definition = /^(async\s+def|def|class)\b/.test(head);
  // The header (or the whole statement) until its brackets close.
  let depth = 0;
  do {
    depth += bracketDelta(lines[i] ?? "", state);
    i++;
  } while ((depth > 0 || state.quote) && i < lines.length);
  if (definition) {
    while (i < lines.length) {
      const current = lines[i] as string;
      if (current.trim() !== "" && indentOf(current) <= base && !state.quote) break;
      bracketDelta(current, state);
      i++;
    }
  }
  let end = i;
  while (end > first + 1 && (lines[end - 1] as string).trim() === "") end--;
  const block = lines.slice(first, end);
  const cut = block.length > MAX_SOURCE_LINES;
  const kept = block.slice(0, MAX_SOURCE_LINES);
  // The block as written, without the indentation it has inside a class or a function.
  const text2 = kept.map((l) => (indentOf(l) >= base ? l.slice(base) : l.trimStart())).join("\n");
  return cut ? `${text2}\n# … cut at ${MAX_SOURCE_LINES} lines` : text2;
}
