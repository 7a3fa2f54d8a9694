// LangChain runs every runnable (each LangGraph node, each channel write, each edge's router)
// inside `AsyncLocalStorageProviderSingleton.runWithConfig`, which, when nothing traces to
// LangSmith, still builds a LangSmith `RunTree` with tracing off as the async context: a uuid v7
// from fresh random bytes, the environment read for LangSmith's settings, a timestamp. That was
// about a seventh of a run thread's CPU on a chain of Conditions (decision 0029). What the
// context is read for is the config (`getConfig()`, `interrupt()`), LangChain's context
// variables and the `tracingEnabled: false` that keeps traceable children from tracing; a plain
// object carries all three. When a LangChain tracer with a parent run is configured, the tracer's
// own run tree is used exactly as upstream does.
import { CallbackManager } from "@langchain/core/callbacks/manager";
import { _CONTEXT_VARIABLES_KEY, AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";

// The key under which @langchain/core keeps a runnable's config in the context (LC_CHILD_KEY).
const CHILD_CONFIG = Symbol.for("lc:child_config");

interface RunContextStore {
  tracingEnabled?: boolean;
  extra?: Record<PropertyKey, unknown>;
  [_CONTEXT_VARIABLES_KEY]?: unknown;
}

interface TracerLike {
  name?: string;
  getRunTreeWithTracingConfig(id: string): RunContextStore | undefined;
}

type RunnableConfigLike = {
  callbacks?: Parameters<typeof CallbackManager._configureSync>[0];
  tags?: string[];
  metadata?: Record<string, unknown>;
};

let installed = false;

/** Puts the light context in place of LangChain's per-runnable RunTree (once per process or thread). */
export function useLightRunContext(): void {
  if (installed) return;
  installed = true;
  const provider = AsyncLocalStorageProviderSingleton;
  provider.runWithConfig = function runWithConfig<T>(
    config: RunnableConfigLike | undefined,
    callback: () => T,
    avoidCreatingRootRunTree?: boolean,
  ): T {
    const callbackManager = CallbackManager._configureSync(
      config?.callbacks,
      undefined,
      config?.tags,
      undefined,
      config?.metadata,
    );
    const storage = provider.getInstance();
    const previous = storage.getStore() as RunContextStore | undefined;
    const parentRunId = callbackManager?.getParentRunId();
    const tracer = callbackManager?.handlers?.find((handler) => handler?.name === "langchain_tracer") as
      | TracerLike
      | undefined;
    let store: RunContextStore | undefined;
    if (tracer && parentRunId) store = tracer.getRunTreeWithTracingConfig(parentRunId);
    else if (!avoidCreatingRootRunTree) store = { tracingEnabled: false, extra: {} };
    if (store) store.extra = { ...store.extra, [CHILD_CONFIG]: config };
    if (previous?.[_CONTEXT_VARIABLES_KEY] !== undefined) {
      store ??= {};
      store[_CONTEXT_VARIABLES_KEY] = previous[_CONTEXT_VARIABLES_KEY];
    }
    return storage.run(store, callback);
  };
}
