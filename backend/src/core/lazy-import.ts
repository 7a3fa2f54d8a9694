// Heavy packages (LangGraph, the LLM SDKs, the mail client) load on first use instead of at start:
// each is hundreds of modules and megabytes of memory that a server which never needs them (or not
// yet) should not pay for. Keep their types with `import type`; call the accessor where the code
// is about to use the package.

export interface LazyImport<T> {
  /** The module, loading it the first time (every caller shares one load). */
  (): Promise<T>;
  /** Whether a load has been asked for (tests, diagnostics). */
  readonly requested: boolean;
}

export function lazyImport<T>(load: () => Promise<T>): LazyImport<T> {
  let pending: Promise<T> | null = null;
  const get = () => {
    pending ??= load();
    return pending;
  };
  return Object.defineProperty(get, "requested", { get: () => pending !== null }) as LazyImport<T>;
}
