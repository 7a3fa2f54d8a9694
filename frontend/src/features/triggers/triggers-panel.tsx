// The editor's Triggers tab: how other systems start this workflow (a copyable hook call with the
// workflow's real inputs), and its schedules with the next fire times of a cron expression.
import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { ScrollBox } from "@/components/scroll-box";
import { Button } from "@/components/ui/button";
import { selectDocument, useDocument, useDocumentStore } from "../editor/document";
import { inputFields } from "../run/run-input-form";
import { exampleInput, HOOK_EXAMPLE_WAIT_SECONDS, type HookLanguage, hookExample } from "./hook-examples";
import { SchedulesSection } from "./schedules-section";

const LANGUAGES: HookLanguage[] = ["curl", "javascript", "python"];

export function TriggersPanel() {
  const { t } = useTranslation();
  const document = useDocument(selectDocument);
  const workflowId = useDocumentStore().getState().workflowId ?? "";
  const [language, setLanguage] = useState<HookLanguage>("curl");
  const [copied, setCopied] = useState(false);
  const [wait, setWait] = useState(false);
  const fields = useMemo(() => {
    const start = document.nodes.find((n) => n.type === "start");
    return inputFields(document.state, start?.data.inputs);
  }, [document]);
  const code = hookExample(
    language,
    typeof location === "undefined" ? "" : location.origin,
    workflowId,
    exampleInput(fields),
    { wait },
  );
  return (
    <div className="grid gap-5 p-3" data-testid="triggers-panel">
      <section className="grid gap-2">
        <h2 className="text-sm font-semibold">{t("triggers.hook.title")}</h2>
        <p className="text-xs text-muted-foreground">
          {t("triggers.hook.description")}{" "}
          <Link to="/api-keys" className="underline underline-offset-4">
            {t("triggers.hook.keys")}
          </Link>
        </p>
        <div className="flex gap-1" role="tablist" aria-label={t("triggers.hook.language")}>
          {LANGUAGES.map((l) => (
            <button
              key={l}
              type="button"
              role="tab"
              aria-selected={language === l}
              onClick={() => {
                setLanguage(l);
                setCopied(false);
              }}
              className="rounded-md px-2 py-0.5 text-xs aria-selected:bg-accent aria-selected:font-medium"
              data-testid={`hook-language-${l}`}
            >
              {t(`triggers.hook.languages.${l}`)}
            </button>
          ))}
        </div>
        <label className="flex items-center gap-2 text-xs">
          <input
            type="checkbox"
            className="size-4 accent-primary"
            checked={wait}
            onChange={(event) => {
              setWait(event.target.checked);
              setCopied(false);
            }}
            data-testid="hook-wait"
          />
          {t("triggers.hook.wait", { seconds: HOOK_EXAMPLE_WAIT_SECONDS })}
        </label>
        <ScrollBox
          className="max-h-64 overflow-auto rounded-md border bg-muted/40 p-2 font-mono text-xs"
          data-testid="hook-example"
        >
          {code}
        </ScrollBox>
        <div>
          <Button
            variant="outline"
            size="sm"
            onClick={async () => {
              await navigator.clipboard.writeText(code);
              setCopied(true);
            }}
          >
            {copied ? t("triggers.hook.copied") : t("triggers.hook.copy")}
          </Button>
        </div>
      </section>
      <SchedulesSection workflowId={workflowId} />
    </div>
  );
}
