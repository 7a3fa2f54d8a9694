// Light, dark or the system's choice, remembered in localStorage. index.html applies the same
// rule before the first paint (no flash of the wrong theme); this module keeps it applied after.
import { useSyncExternalStore } from "react";

export type ThemePreference = "light" | "dark" | "system";
export const THEME_KEY = "superstep.theme";

const media = typeof window === "undefined" ? null : window.matchMedia("(prefers-color-scheme: dark)");
const listeners = new Set<() => void>();

function read(): ThemePreference {
  const saved = typeof localStorage === "undefined" ? null : localStorage.getItem(THEME_KEY);
  return saved === "light" || saved === "dark" ? saved : "system";
}

let preference: ThemePreference = read();

export function resolvedTheme(value: ThemePreference = preference): "light" | "dark" {
  if (value === "system") return media?.matches ? "dark" : "light";
  return value;
}

function apply(): void {
  if (typeof document === "undefined") return;
  const dark = resolvedTheme() === "dark";
  document.documentElement.classList.toggle("dark", dark);
  document.documentElement.style.colorScheme = dark ? "dark" : "light";
}

function emit(): void {
  apply();
  for (const listener of listeners) listener();
}

media?.addEventListener("change", () => {
  if (preference === "system") emit();
});
if (typeof window !== "undefined") {
  window.addEventListener("storage", (event) => {
    if (event.key !== THEME_KEY) return;
    preference = read();
    emit();
  });
}
apply();

export function setTheme(value: ThemePreference): void {
  preference = value;
  if (value === "system") localStorage.removeItem(THEME_KEY);
  else localStorage.setItem(THEME_KEY, value);
  emit();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The chosen preference and the theme it gives now. */
export function useTheme(): { preference: ThemePreference; resolved: "light" | "dark" } {
  const current = useSyncExternalStore(subscribe, () => preference);
  const resolved = useSyncExternalStore(subscribe, () => resolvedTheme());
  return { preference: current, resolved };
}
