import { Tabs } from "radix-ui";
import { useTranslation } from "react-i18next";
import { TriggersPanel } from "@/features/triggers/triggers-panel";
import { cn } from "@/lib/utils";
import { NodeSettingsPanel } from "../inspector/node-settings-panel";
import { JsonViewPanel } from "../json-view/json-view-panel";
import { OutlinePanel } from "../outline/outline-panel";
import { StateSchemaPanel } from "../state-schema/state-schema-panel";
import { ProblemsTabBadge } from "../validation/problems-tab-badge";
import { ValidationPanel } from "../validation/validation-panel";
import { VersionsPanel } from "../versions/versions-panel";
import { SIDE_PANELS, type SidePanel, useEditorUi } from "./editor-ui-store";

const PANELS: Record<SidePanel, () => React.ReactNode> = {
  settings: () => <NodeSettingsPanel />,
  state: () => <StateSchemaPanel />,
  json: () => <JsonViewPanel />,
  problems: () => <ValidationPanel />,
  versions: () => <VersionsPanel />,
  outline: () => <OutlinePanel />,
  triggers: () => <TriggersPanel />,
};

/** The right column: one panel at a time, chosen by tabs (the open one is in the UI store). */
export function EditorSidePanel() {
  const { t } = useTranslation();
  const panel = useEditorUi((s) => s.sidePanel);
  const openPanel = useEditorUi((s) => s.openPanel);
  return (
    <Tabs.Root
      value={panel}
      onValueChange={(value) => openPanel(value as SidePanel)}
      className="flex h-full min-h-0 flex-col"
    >
      <Tabs.List aria-label={t("editor.layout.panels")} className="flex flex-wrap gap-1 border-b px-2 py-1.5">
        {SIDE_PANELS.map((name) => (
          <Tabs.Trigger
            key={name}
            value={name}
            data-testid={`panel-tab-${name}`}
            className={cn(
              "rounded-md px-2 py-1 text-xs font-medium text-muted-foreground outline-none hover:text-foreground focus-visible:ring-[3px] focus-visible:ring-ring/60",
              "data-[state=active]:bg-accent data-[state=active]:text-accent-foreground",
            )}
          >
            {t(`editor.layout.panel.${name}`)}
            {name === "problems" && <ProblemsTabBadge />}
          </Tabs.Trigger>
        ))}
      </Tabs.List>
      {SIDE_PANELS.map((name) => (
        <Tabs.Content
          key={name}
          value={name}
          className="min-h-0 flex-1 overflow-y-auto outline-none"
          data-testid={`panel-${name}`}
        >
          {PANELS[name]()}
        </Tabs.Content>
      ))}
    </Tabs.Root>
  );
}
