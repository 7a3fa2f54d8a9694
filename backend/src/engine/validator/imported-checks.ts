// An imported workflow (document.imported set, decision 0028) runs the repository's own graph in
// the import sandbox, not the studio's nodes: only its structure is checked here. One Start and
// one End, every other node a Code node naming the graph's node in data.imported, unique ids, and
// edges between nodes that exist. The Code node's own schema does not apply to these nodes.
import { z } from "zod";
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";
import { NODE_DATA } from "../nodes/node-data.schema.js";
import { zodPath } from "./issue-path.js";
import { type ProblemList, problem } from "./problem-list.js";
import type { TypedNode } from "./validation-types.js";

const importedNodeData = z.object({
  imported: z.strictObject({
    node: z.string().min(1).max(1000),
    source: z.strictObject({ file: z.string().min(1).max(1000), line: z.number().int().min(1) }).nullable(),
    subgraph: z.string().min(1).max(1000).nullable(),
  }),
});

/** Checks an imported document; returns its Start and End with their parsed data (its only typed nodes). */
export function checkImportedDocument(document: WorkflowDocument, problems: ProblemList): Map<string, TypedNode> {
  const typed = new Map<string, TypedNode>();
  const seenIds = new Set<string>();
  const graphNodes = new Set<string>();
  for (const [i, node] of document.nodes.entries()) {
    if (seenIds.has(node.id)) problems.push(problem("DUPLICATE_NODE_ID", { node_id: node.id, path: `nodes.${i}.id` }));
    seenIds.add(node.id);
    if (node.type === "start" || node.type === "end") {
      const data = NODE_DATA[node.type].safeParse(node.data);
      if (!data.success) {
        for (const issue of data.error.issues) {
          const path = zodPath(`nodes.${i}.data`, issue);
          problems.push(problem("NODE_DATA_INVALID", { node_id: node.id, path }, `${path}: ${issue.message}`));
        }
      } else if (!typed.has(node.id))
        typed.set(node.id, { id: node.id, type: node.type, data: data.data } as TypedNode);
      continue;
    }
    if (node.type !== "code") {
      problems.push(
        problem(
          "IMPORTED_NODE_INVALID",
          { node_id: node.id, path: `nodes.${i}.type` },
          `nodes.${i}.type: an imported workflow holds only Start, End and the graph's Code nodes, not ${node.type}`,
        ),
      );
      continue;
    }
    const data = importedNodeData.safeParse(node.data);
    if (!data.success) {
      const issue = data.error.issues[0];
      const path = issue ? zodPath(`nodes.${i}.data`, issue) : `nodes.${i}.data`;
      problems.push(
        problem(
          "IMPORTED_NODE_INVALID",
          { node_id: node.id, path },
          `${path}: a node of an imported workflow needs data.imported {node, source, subgraph} (${issue?.message ?? "missing"})`,
        ),
      );
      continue;
    }
    if (graphNodes.has(data.data.imported.node))
      problems.push(
        problem(
          "IMPORTED_NODE_INVALID",
          { node_id: node.id, path: `nodes.${i}.data.imported.node` },
          `nodes.${i}.data.imported.node: two nodes stand for the graph's node ${JSON.stringify(data.data.imported.node)}`,
        ),
      );
    graphNodes.add(data.data.imported.node);
  }
  const starts = document.nodes.filter((n) => n.type === "start");
  const ends = document.nodes.filter((n) => n.type === "end");
  if (starts.length !== 1 || ends.length !== 1)
    problems.push(
      problem(
        "IMPORTED_START_END",
        {},
        `An imported workflow has exactly one Start and one End node; this one has ${starts.length} Start and ${ends.length} End.`,
      ),
    );
  const edgeIds = new Set<string>();
  for (const [i, edge] of document.edges.entries()) {
    if (edgeIds.has(edge.id)) problems.push(problem("DUPLICATE_EDGE_ID", { edge_id: edge.id, path: `edges.${i}.id` }));
    edgeIds.add(edge.id);
    if (!seenIds.has(edge.source))
      problems.push(problem("EDGE_SOURCE_UNKNOWN", { edge_id: edge.id, path: `edges.${i}.source` }));
    if (!seenIds.has(edge.target))
      problems.push(problem("EDGE_TARGET_UNKNOWN", { edge_id: edge.id, path: `edges.${i}.target` }));
  }
  return typed;
}
