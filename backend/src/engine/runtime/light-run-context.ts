// LangChain runs every runnable (each LangGraph node, each channel write, each edge's router)
// inside `AsyncLocalStorageProviderSingleton.runWithConfig`, which, when nothing traces to
// LangSmith, still builds a LangSmith `RunTree` with tracing off as the async context: a uuid v7
// from fresh random bytes, the environment read for LangSmith's settings, a timestamp. That was
// about a seventh of a run thread's CPU on a chain of Conditions (decision 0029). What the
// context is read for is the config (`getConfig()`, `interrupt()`), LangChain's context
// variables and the `tracingEnabled: false` that keeps traceable children from tracing; a plain
// object carries all three. When a LangChain tracer with a parent run is configured, the tracer's
// own run tree is used exactly as upstream does; when nothing can trace (no tracer in the config,
// the environment or the parent context), LangChain's callback setup is skipped as well.
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

/** Whether LangChain would add a tracer or a console logger of its own (read once: a studio's environment stays as it started). */
function langChainCallbacksFromEnvironment(): boolean {
  const env = process.env;
  const on = (name: string) => env[name] === "true";
  return (
    on("LANGSMITH_TRACING_V2") ||
    on("LANGCHAIN_TRACING_V2") ||
    on("LANGSMITH_TRACING") ||
    Boolean(env.LANGCHAIN_TRACING) ||
    on("LANGCHAIN_VERBOSE")
  );
}

function hasTracer(callbacks: RunnableConfigLike["callbacks"]): boolean {
  const handlers = Array.isArray(callbacks) ? callbacks : (callbacks as { handlers?: unknown[] } | undefined)?.handlers;
  return handlers?.some((handler) => (handler as { name?: string } | null)?.name === "langchain_tracer") ?? false;
}

/** Puts the light context in place of LangChain's per-runnable RunTree (once per process or thread). */
export function useLightRunContext(): void {
  if (installed) return;
  installed = true;
  const provider = AsyncLocalStorageProviderSingleton;
  const environmentCallbacks = langChainCallbacksFromEnvironment();
  provider.runWithConfig = function runWithConfig<T>(
    config: RunnableConfigLike | undefined,
    callback: () => T,
    avoidCreatingRootRunTree?: boolean,
  ): T {
    const storage = provider.getInstance();
    const previous = storage.getStore() as RunContextStore | undefined;
    // Without a tracer in the config, the environment or a tracing parent, LangChain's callback
    // setup (a copy of the handlers, the environment read again) could only lead to the light context.
    const quiet = !environmentCallbacks && previous?.tracingEnabled !== true && !hasTracer(config?.callbacks);
    if (quiet && avoidCreatingRootRunTree) {
      // Each step of a stream (its generator's next()) asks for no context of its own: with no
      // tracer, LangChain's setup makes none and keeps only the context variables, as here.
      const kept: RunContextStore | undefined =
        previous?.[_CONTEXT_VARIABLES_KEY] === undefined
          ? undefined
          : { [_CONTEXT_VARIABLES_KEY]: previous[_CONTEXT_VARIABLES_KEY] };
      return storage.run(kept, callback);
    }
    if (quiet) {
      const light: RunContextStore = { tracingEnabled: false, extra: { [CHILD_CONFIG]: config } };
      if (previous?.[_CONTEXT_VARIABLES_KEY] !== undefined)
        light[_CONTEXT_VARIABLES_KEY] = previous[_CONTEXT_VARIABLES_KEY];
      return storage.run(light, callback);
    }
    const callbackManager = CallbackManager._configureSync(
      config?.callbacks,
      undefined,
      config?.tags,
      undefined,
      config?.metadata,
    );
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
