// Log lines of an import step: what git, unzip and later pip print, cut into bounded lines.

export type LineSink = (line: string) => void;

const MAX_LINE = 500;

/** Turns chunks of process output into whole lines (carriage-return progress lines too). */
export function splitLines(sink: LineSink): ((chunk: Buffer | string) => void) & { flush(): void } {
  let pending = "";
  const emit = (line: string) => {
    const trimmed = line.trimEnd();
    if (trimmed !== "") sink(trimmed.length > MAX_LINE ? `${trimmed.slice(0, MAX_LINE)}…` : trimmed);
  };
  const onChunk = (chunk: Buffer | string) => {
    pending += chunk.toString();
    const parts = pending.split(/\r?\n|\r/);
    pending = parts.pop() ?? "";
    for (const part of parts) emit(part);
    if (pending.length > 64 * 1024) {
      emit(pending);
      pending = "";
    }
  };
  return Object.assign(onChunk, {
    flush: () => {
      emit(pending);
      pending = "";
    },
  });
}
