// Subgraph: another saved workflow at a pinned version, run inside this node with its own state.
// It shares the run's checkpointer (its checkpoints live under this node's namespace), ledger
// and event stream; its node ids appear as "<this node>/<child node>".
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { RunContext } from "../runtime/run-context.js";
import { renderValue } from "../templates/template.js";
import type { TypedNode } from "../validator/validator.js";
import type { Executor } from "./node-execution.js";

type SubgraphNode = Extract<TypedNode, { type: "subgraph" }>;

interface InvokableGraph {
  invoke(input: unknown, config: LangGraphRunnableConfig): Promise<Record<string, unknown>>;
}

export const executeSubgraph: Executor<SubgraphNode> = async ({ node, scope, ctx, config, key, child }) => {
  const graph = child as InvokableGraph;
  const input: Record<string, unknown> = {};
  for (const [field, template] of Object.entries(node.data.input)) input[field] = renderValue(template, scope);
  const childContext: RunContext = {
    ...ctx,
    keyPrefix: key,
    depth: ctx.depth + 1,
    nodePrefix: `${ctx.nodePrefix}${node.id}/`,
  };
  const result = await graph.invoke(input, {
    ...config,
    configurable: { ...config.configurable, studio: childContext },
  });
  const output: Record<string, unknown> = {};
  for (const [parentField, childField] of Object.entries(node.data.output))
    output[parentField] = result[childField] ?? null;
  return output;
};
