// Reference tools over the document: the {{…}} references in a node's settings, the usages of a
// state field, and the references that name no declared field (with the nearest name). Templates
// are scanned by the backend's own scanner, in the settings the backend's node facts name.
import { closest, distance } from "fastest-levenshtein";
import {
  fieldMentions,
  parseReference,
  type Reference,
  type SettingPath,
  scanTemplate,
  TemplateError,
  templateTexts,
} from "./backend-shared.js";
import type { WorkflowDocument, WorkflowNode } from "./document-types.js";

/** One {{…}} in a text: where it is (UTF-16 offsets, end exclusive) and what it says. */
export interface TextReference {
  start: number;
  end: number;
  body: string;
  /** The parsed reference, or null when the body is not one (`{{state.a + 1}}`). */
  reference: Reference | null;
  /** Why the body is not a reference (English, for a tooltip beside the translated code). */
  error?: string;
}

export function textReferences(text: string): TextReference[] {
  return scanTemplate(text).map((match) => {
    try {
      return { ...match, reference: parseReference(match.body) };
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      return { ...match, reference: null, error: error.message };
    }
  });
}

/** A reference in a node's settings: the node, the setting's path and the place in its text. */
export interface NodeReference extends TextReference {
  nodeId: string;
  path: SettingPath;
}

export function nodeReferences(node: Pick<WorkflowNode, "id" | "type" | "data">): NodeReference[] {
  return templateTexts(node.type, node.data).flatMap(({ path, text }) =>
    textReferences(text).map((found) => ({ ...found, nodeId: node.id, path })),
  );
}

/** Where a state field is used: in a template, or named by a setting (written, read or declared). */
export interface FieldUsage {
  nodeId: string;
  path: SettingPath;
  kind: "template" | "setting";
  /** For a template: the reference's place in the setting's text. */
  start?: number;
  end?: number;
  /** Whether the node writes the field there. */
  writes: boolean;
}

export function findUsages(document: WorkflowDocument, field: string): FieldUsage[] {
  const usages: FieldUsage[] = [];
  for (const node of document.nodes) {
    for (const found of nodeReferences(node)) {
      if (found.reference?.root === "state" && found.reference.path[0] === field) {
        usages.push({
          nodeId: node.id,
          path: found.path,
          kind: "template",
          start: found.start,
          end: found.end,
          writes: false,
        });
      }
    }
    for (const mention of fieldMentions(node.type, node.data)) {
      if (mention.name === field)
        usages.push({ nodeId: node.id, path: mention.path, kind: "setting", writes: mention.writes });
    }
  }
  return usages;
}

/** The state field names a node uses: in its templates and in the settings that name fields. */
export function fieldsUsedBy(node: Pick<WorkflowNode, "id" | "type" | "data">): Set<string> {
  const names = new Set<string>();
  for (const found of nodeReferences(node)) {
    const name = found.reference?.root === "state" ? found.reference.path[0] : undefined;
    if (name !== undefined) names.add(name);
  }
  for (const mention of fieldMentions(node.type, node.data)) names.add(mention.name);
  return names;
}

/** The known name closest to a misspelt one, when it is close enough to be a likely typo. */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  if (known.length === 0 || name === "") return undefined;
  const best = closest(name, known as string[]);
  const lower = known.find((k) => k.toLowerCase() === name.toLowerCase());
  if (lower) return lower;
  return distance(name, best) <= Math.max(1, Math.floor(Math.max(name.length, best.length) / 3)) ? best : undefined;
}

/** A reference problem, with the validator's code so the UI shows the same message. */
export interface ReferenceProblem {
  code: "STATE_REFERENCE_UNKNOWN" | "TEMPLATE_INVALID" | "ITEM_REFERENCE_OUTSIDE_FOR_EACH";
  nodeId: string;
  path: SettingPath;
  /** For a template: the reference's place in the setting's text. */
  start?: number;
  end?: number;
  /** The unknown field's name, and the declared field it most likely means. */
  name?: string;
  suggestion?: string;
}

/** Ids of the nodes that are a For each body (the target of a For each's `item` edge). */
export function forEachBodies(document: WorkflowDocument): Set<string> {
  const forEach = new Set(document.nodes.filter((n) => n.type === "for_each").map((n) => n.id));
  return new Set(document.edges.filter((e) => e.label === "item" && forEach.has(e.source)).map((e) => e.target));
}

export interface TextCheckOptions {
  /** The declared state field names. */
  fields: readonly string[];
  /** Whether {{item}} and {{index}} are allowed (the text belongs to a For each body). */
  inForEachBody: boolean;
}

/** Problems of one text as it is typed, for underlining: offsets into the text. */
export function checkText(text: string, options: TextCheckOptions): Omit<ReferenceProblem, "nodeId" | "path">[] {
  const declared = new Set(options.fields);
  const problems: Omit<ReferenceProblem, "nodeId" | "path">[] = [];
  for (const found of textReferences(text)) {
    const at = { start: found.start, end: found.end };
    if (!found.reference) problems.push({ code: "TEMPLATE_INVALID", ...at });
    else if (found.reference.root === "state") {
      const name = found.reference.path[0];
      if (name !== undefined && !declared.has(name)) {
        const suggestion = nearestName(name, options.fields);
        problems.push({ code: "STATE_REFERENCE_UNKNOWN", ...at, name, ...(suggestion ? { suggestion } : {}) });
      }
    } else if ((found.reference.root === "item" || found.reference.root === "index") && !options.inForEachBody) {
      problems.push({ code: "ITEM_REFERENCE_OUTSIDE_FOR_EACH", ...at });
    }
  }
  return problems;
}

/** Every reference problem in the document: templates and settings that name state fields. */
export function referenceProblems(document: WorkflowDocument): ReferenceProblem[] {
  const fields = document.state.map((f) => f.name);
  const declared = new Set(fields);
  const bodies = forEachBodies(document);
  const problems: ReferenceProblem[] = [];
  for (const node of document.nodes) {
    for (const { path, text } of templateTexts(node.type, node.data)) {
      for (const problem of checkText(text, { fields, inForEachBody: bodies.has(node.id) }))
        problems.push({ ...problem, nodeId: node.id, path });
    }
    for (const mention of fieldMentions(node.type, node.data)) {
      if (declared.has(mention.name)) continue;
      const suggestion = nearestName(mention.name, fields);
      problems.push({
        code: "STATE_REFERENCE_UNKNOWN",
        nodeId: node.id,
        path: mention.path,
        name: mention.name,
        ...(suggestion ? { suggestion } : {}),
      });
    }
  }
  return problems;
}

/** A text with every {{state.<from>…}} turned into {{state.<to>…}}; everything else kept as it was. */
export function renameFieldInText(text: string, from: string, to: string): string {
  if (!text.includes(from)) return text;
  let out = "";
  let copied = 0;
  for (const found of textReferences(text)) {
    if (found.reference?.root !== "state" || found.reference.path[0] !== from) continue;
    // The body starts with "state.<from>" after optional whitespace inside the braces.
    const at = text.indexOf("state.", found.start + 2) + "state.".length;
    out += text.slice(copied, at) + to;
    copied = at + from.length;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
