// The icon of each node type, shared by the canvas, the palette, the command palette and the outline.
import {
  BotIcon,
  BrainIcon,
  CodeIcon,
  FlagIcon,
  GitBranchIcon,
  type LucideIcon,
  MergeIcon,
  PlayIcon,
  RepeatIcon,
  SendIcon,
  UserRoundIcon,
  WorkflowIcon,
  WrenchIcon,
} from "lucide-react";
import type { NodeType } from "../document";

export const NODE_ICONS: Record<NodeType, LucideIcon> = {
  start: PlayIcon,
  end: FlagIcon,
  llm: BrainIcon,
  tool: WrenchIcon,
  code: CodeIcon,
  condition: GitBranchIcon,
  decision: BotIcon,
  for_each: RepeatIcon,
  join: MergeIcon,
  human: UserRoundIcon,
  send_email: SendIcon,
  subgraph: WorkflowIcon,
};

/** Every node type, in palette order (the record above makes the list complete by type). */
export const PALETTE_TYPES = Object.keys(NODE_ICONS) as NodeType[];

/** Accent colour class per node type (border and icon), readable in light and dark themes. */
export const NODE_ACCENTS: Record<NodeType, string> = {
  start: "text-emerald-600 dark:text-emerald-400",
  end: "text-rose-600 dark:text-rose-400",
  llm: "text-violet-600 dark:text-violet-400",
  tool: "text-amber-600 dark:text-amber-400",
  code: "text-sky-600 dark:text-sky-400",
  condition: "text-orange-600 dark:text-orange-400",
  decision: "text-fuchsia-600 dark:text-fuchsia-400",
  for_each: "text-teal-600 dark:text-teal-400",
  join: "text-cyan-600 dark:text-cyan-400",
  human: "text-lime-700 dark:text-lime-400",
  send_email: "text-blue-600 dark:text-blue-400",
  subgraph: "text-slate-600 dark:text-slate-300",
};
