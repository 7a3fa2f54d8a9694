// React side of draft-commit.ts: a field shows what is typed at once and writes it to the document
// after a pause, on blur, before a shortcut (Ctrl+S, Ctrl+Z act on the written document), when the
// page is hidden and when the field goes away.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { createDraftCommitter } from "./draft-commit";

export interface Draft<T> {
  /** What the field shows: the typed value while it waits, else the document's. */
  shown: T;
  change(value: T): void;
  flush(): void;
  /** For onKeyDown: a shortcut (Ctrl, Meta or Alt held) acts on the document with the typed text in it. */
  onKeyDown(event: { ctrlKey: boolean; metaKey: boolean; altKey: boolean }): void;
}

export function useDraft<T>(value: T, write: (value: T) => void): Draft<T> {
  const [typed, setTyped] = useState<{ value: T } | null>(null);
  const writeRef = useRef(write);
  writeRef.current = write;
  const committer = useMemo(
    () =>
      createDraftCommitter<T>((next) => {
        writeRef.current(next);
        // The document now holds it (or refused it: the field shows the document's value again).
        setTyped(null);
      }),
    [],
  );
  useEffect(() => {
    const flush = () => committer.flush();
    const onVisibility = () => {
      if (document.visibilityState === "hidden") committer.flush();
    };
    // In the capture phase, so the text is in the document before the leave guard asks whether
    // anything is unsaved and before the journal writes on the way out (both listen without it).
    window.addEventListener("beforeunload", flush, true);
    window.addEventListener("pagehide", flush, true);
    document.addEventListener("visibilitychange", onVisibility, true);
    return () => {
      window.removeEventListener("beforeunload", flush, true);
      window.removeEventListener("pagehide", flush, true);
      document.removeEventListener("visibilitychange", onVisibility, true);
      committer.flush();
    };
  }, [committer]);
  const change = useCallback(
    (next: T) => {
      setTyped({ value: next });
      committer.change(next);
    },
    [committer],
  );
  const flush = useCallback(() => committer.flush(), [committer]);
  const onKeyDown = useCallback(
    (event: { ctrlKey: boolean; metaKey: boolean; altKey: boolean }) => {
      if (event.ctrlKey || event.metaKey || event.altKey) committer.flush();
    },
    [committer],
  );
  return { shown: typed ? typed.value : value, change, flush, onKeyDown };
}
