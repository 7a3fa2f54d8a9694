// The pinned outputs of this workflow's editor runs: each with its node, its JSON (editable), and a
// way to unpin; a pin whose node is gone is flagged (the server refuses a run with it).
import { PinOffIcon } from "lucide-react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "@/components/ui/button";
import { jsonText } from "./run-format";
import { useRun } from "./run-store";

function PinEditor({
  nodeId,
  value,
  label,
  present,
}: {
  nodeId: string;
  value: object;
  label: string;
  present: boolean;
}) {
  const { t } = useTranslation();
  const pin = useRun((s) => s.pin);
  const unpin = useRun((s) => s.unpin);
  const [text, setText] = useState(() => jsonText(value));
  let parsed: Record<string, unknown> | null = null;
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) parsed = v as Record<string, unknown>;
  } catch {
    parsed = null;
  }
  return (
    <li className="grid gap-1 rounded-md border p-2" data-testid={`pin-${nodeId}`}>
      <div className="flex items-center gap-2 text-sm">
        <span className="font-medium">{label}</span>
        {!present && <span className="text-xs text-destructive">{t("run.pins.nodeGone")}</span>}
        <Button variant="ghost" size="sm" className="ml-auto h-6 px-2 text-xs" onClick={() => unpin(nodeId)}>
          <PinOffIcon aria-hidden />
          {t("run.pins.unpin")}
        </Button>
      </div>
      <textarea
        aria-label={t("run.pins.edit", { node: label })}
        className="min-h-16 rounded-md border bg-background p-2 font-mono text-xs"
        spellCheck={false}
        value={text}
        aria-invalid={parsed === null ? true : undefined}
        onChange={(event) => setText(event.target.value)}
        onBlur={() => parsed && pin(nodeId, parsed)}
      />
      {parsed === null && <p className="text-xs text-destructive">{t("run.input.notObject")}</p>}
    </li>
  );
}

export function PinsList({ labelOf, nodeIds }: { labelOf(nodeId: string): string; nodeIds: ReadonlySet<string> }) {
  const { t } = useTranslation();
  const pins = useRun((s) => s.pins);
  const entries = Object.entries(pins);
  if (entries.length === 0) return null;
  return (
    <section className="grid gap-2 px-3 pb-3" data-testid="pins-list">
      <h3 className="text-xs font-medium text-muted-foreground">{t("run.pins.title")}</h3>
      <ul className="grid gap-2">
        {entries.map(([nodeId, value]) => (
          <PinEditor
            key={`${nodeId}:${JSON.stringify(value)}`}
            nodeId={nodeId}
            value={value}
            label={labelOf(nodeId)}
            present={nodeIds.has(nodeId)}
          />
        ))}
      </ul>
    </section>
  );
}
