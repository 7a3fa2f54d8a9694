// The system clipboard for copied nodes: navigator.clipboard where the browser allows it (so a copy
// pastes in another workflow, tab or window), else a hidden textarea and execCommand for writing.
// Every copy is also kept in localStorage, the fallback for reading when the browser refuses
// clipboard access; it is shared by the tabs of this studio.
const FALLBACK_KEY = "superstep.canvas.clipboard";

function keep(text: string): void {
  try {
    localStorage.setItem(FALLBACK_KEY, text);
  } catch {
    // Storage full or disabled: the system clipboard still has it.
  }
}

function copyWithTextarea(text: string): boolean {
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  const active = document.activeElement as HTMLElement | null;
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  active?.focus?.();
  return ok;
}

export async function writeClipboardText(text: string): Promise<void> {
  keep(text);
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    copyWithTextarea(text);
  }
}

export async function readClipboardText(): Promise<string> {
  try {
    return await navigator.clipboard.readText();
  } catch {
    return localStorage.getItem(FALLBACK_KEY) ?? "";
  }
}
