import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { CallbackManager } from "@langchain/core/callbacks/manager";
import { getContextVariable, setContextVariable } from "@langchain/core/context";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { Annotation, Command, END, getConfig, interrupt, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import type { Client } from "langsmith";
import { isRunTree } from "langsmith/run_trees";
import { getCurrentRunTree } from "langsmith/singletons/traceable";
import { traceable } from "langsmith/traceable";
import { afterEach, describe, expect, it } from "vitest";
import { useLightRunContext } from "./light-run-context.js";

useLightRunContext();

const State = Annotation.Root({ seen: Annotation<unknown[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }) });

/** A one-node graph whose node records what `look` finds in its async context. */
function graphOf(look: () => unknown | Promise<unknown>) {
  return new StateGraph(State)
    .addNode("look", async () => ({ seen: [await look()] }))
    .addEdge(START, "look")
    .addEdge("look", END)
    .compile({ checkpointer: new MemorySaver() });
}

/** A LangSmith client stand-in that records every call made on it (the real one posts to the internet). */
function recordingClient(): { client: Client; calls: string[] } {
  const calls: string[] = [];
  const client = new Proxy(
    {},
    {
      get: (_target, property) => {
        if (property === "then" || typeof property === "symbol") return undefined;
        return async (..._args: unknown[]) => {
          calls.push(property);
          return undefined;
        };
      },
    },
  ) as Client;
  return { client, calls };
}

const TRACING_ENV = ["LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2"] as const;
const savedEnv = Object.fromEntries(TRACING_ENV.map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const name of TRACING_ENV) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
});

describe("the light run context", () => {
  it("gives a node its own config, in a context that is not a LangSmith run tree", async () => {
    const graph = graphOf(() => {
      const store = getCurrentRunTree(true) as { tracingEnabled?: boolean } | undefined;
      return {
        threadId: getConfig().configurable?.thread_id,
        runTree: isRunTree(store),
        tracing: store?.tracingEnabled,
      };
    });
    const result = await graph.invoke({}, { configurable: { thread_id: "t-config" } });
    expect(result.seen).toEqual([{ threadId: "t-config", runTree: false, tracing: false }]);
  });

  it("lets a node wait with interrupt() and go on when resumed", async () => {
    const graph = graphOf(() => interrupt({ ask: "name?" }));
    const config = { configurable: { thread_id: "t-interrupt" } };
    const paused = await graph.invoke({}, config);
    const waits = (paused as { __interrupt__?: { value: unknown }[] }).__interrupt__;
    expect(waits?.[0]?.value).toEqual({ ask: "name?" });
    const resumed = await graph.invoke(new Command({ resume: "Ada" }), config);
    expect(resumed.seen).toEqual(["Ada"]);
  });

  it("carries LangChain context variables set around a run into its nodes", async () => {
    const graph = graphOf(() => getContextVariable("tenant"));
    const result = await (async () => {
      setContextVariable("tenant", "acme");
      return graph.invoke({}, { configurable: { thread_id: "t-vars" } });
    })();
    expect(result.seen).toEqual(["acme"]);
  });

  it("keeps traceable code inside a node from tracing, even with tracing switched on in the environment", async () => {
    process.env.LANGSMITH_TRACING = "true";
    const { client, calls } = recordingClient();
    const traced = traceable(async (x: number) => x * 2, { name: "double", client });
    const result = await graphOf(() => traced(21)).invoke({}, { configurable: { thread_id: "t-traceable" } });
    expect(result.seen).toEqual([42]);
    expect(calls).toEqual([]);
  });

  it("gives a step that asks for no context of its own what LangChain gives it: the context variables alone", async () => {
    // LangChain's own runWithConfig, which the light context replaces on the singleton.
    const provider = AsyncLocalStorageProviderSingleton;
    const upstream = Object.getPrototypeOf(provider).runWithConfig as typeof provider.runWithConfig;
    const storage = provider.getInstance();
    const config = { tags: ["step"], metadata: { step: 1 } };
    type Seen = { store: unknown; variable: unknown; config: unknown };
    const look = (): Seen => ({
      store: storage.getStore(),
      variable: getContextVariable("tenant"),
      config: provider.getRunnableConfig(),
    });
    const both = (): [Seen, Seen] => [
      provider.runWithConfig(config, look, true),
      upstream.call(provider, config, look, true) as Seen,
    ];
    // Outside any context, and inside a node (a context with its config and LangChain context variables).
    const [light, langChain] = both();
    expect(light).toEqual(langChain);
    expect(light.store).toBeUndefined();
    const graph = graphOf(() => {
      setContextVariable("tenant", "acme");
      const [inNode, inNodeLangChain] = both();
      expect(inNode).toEqual(inNodeLangChain);
      return inNode;
    });
    const result = await graph.invoke({}, { configurable: { thread_id: "t-step" } });
    expect(result.seen).toEqual([{ store: expect.any(Object), variable: "acme", config: undefined }]);
  });

  it("uses the run tree of a LangChain tracer with a parent run, as LangChain does", () => {
    // A stand-in for LangChainTracer (which posts to LangSmith over the internet).
    class Tracer extends BaseCallbackHandler {
      name = "langchain_tracer";
      getRunTreeWithTracingConfig(id: string) {
        return { from: "tracer", id, extra: {} };
      }
    }
    const callbacks = new CallbackManager("parent-run");
    callbacks.addHandler(new Tracer(), true);
    const config = { callbacks };
    const seen = AsyncLocalStorageProviderSingleton.runWithConfig(config, () => ({
      store: getCurrentRunTree(true),
      config: AsyncLocalStorageProviderSingleton.getRunnableConfig(),
    }));
    expect(seen.store).toMatchObject({ from: "tracer", id: "parent-run" });
    expect(seen.config).toBe(config);
  });
});
