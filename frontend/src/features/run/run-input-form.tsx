// The run's input: a field per input of the Start node (all state fields when it names none),
// typed as the state schema says, or the whole input as raw JSON; the last inputs to pick from.
import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { Label } from "@/components/ui/label";
import type { StateField } from "@/lib/api";
import { cn } from "@/lib/utils";
import { jsonText, shortJson } from "./run-format";

export interface InputDraft {
  raw: boolean;
  /** The text of each field (JSON for objects and lists). */
  fields: Record<string, string>;
  json: string;
}

export function inputFields(state: readonly StateField[], startInputs: unknown): StateField[] {
  const names = Array.isArray(startInputs) ? startInputs.filter((n): n is string => typeof n === "string") : [];
  if (names.length === 0) return [...state];
  return names.map((name) => state.find((f) => f.name === name) ?? { name, type: "any" as const });
}

export function draftFrom(fields: readonly StateField[], input: Record<string, unknown>, raw = false): InputDraft {
  const texts: Record<string, string> = {};
  for (const field of fields) {
    const value = input[field.name];
    texts[field.name] =
      value === undefined
        ? ""
        : field.type === "string"
          ? String(value)
          : field.type === "boolean"
            ? String(value === true)
            : JSON.stringify(value);
  }
  return { raw, fields: texts, json: jsonText(input) };
}

export type InputResult =
  | { ok: true; input: Record<string, unknown> }
  | { ok: false; problems: Record<string, string> };

/** The input the draft describes, or the fields whose text does not fit their type (problem keys are i18n keys). */
export function readInput(fields: readonly StateField[], draft: InputDraft): InputResult {
  if (draft.raw) {
    try {
      const value = JSON.parse(draft.json || "{}") as unknown;
      if (!value || typeof value !== "object" || Array.isArray(value))
        return { ok: false, problems: { "": "run.input.notObject" } };
      return { ok: true, input: value as Record<string, unknown> };
    } catch {
      return { ok: false, problems: { "": "run.input.badJson" } };
    }
  }
  const input: Record<string, unknown> = {};
  const problems: Record<string, string> = {};
  for (const field of fields) {
    const text = draft.fields[field.name] ?? "";
    if (text.trim() === "") continue;
    if (field.type === "string") input[field.name] = text;
    else if (field.type === "boolean") input[field.name] = text === "true";
    else if (field.type === "number") {
      const n = Number(text);
      if (Number.isFinite(n)) input[field.name] = n;
      else problems[field.name] = "run.input.badNumber";
    } else {
      try {
        const value = JSON.parse(text) as unknown;
        if (field.type === "list" && !Array.isArray(value)) problems[field.name] = "run.input.notList";
        else if (field.type === "object" && (!value || typeof value !== "object" || Array.isArray(value)))
          problems[field.name] = "run.input.notObject";
        else input[field.name] = value;
      } catch {
        problems[field.name] = "run.input.badJson";
      }
    }
  }
  return Object.keys(problems).length > 0 ? { ok: false, problems } : { ok: true, input };
}

export function RunInputForm({
  fields,
  draft,
  onChange,
  problems,
  history,
  rawOnly = false,
  contextSchema = null,
}: {
  fields: readonly StateField[];
  draft: InputDraft;
  onChange(draft: InputDraft): void;
  problems: Record<string, string>;
  history: readonly Record<string, unknown>[];
  /** Only the raw JSON (an imported graph: its input is any JSON object, there are no fields). */
  rawOnly?: boolean;
  /** The imported graph's runtime context schema as text, shown as a hint for `__context__`. */
  contextSchema?: string | null;
}) {
  const { t } = useTranslation();
  const [historyPick, setHistoryPick] = useState("");
  const toRaw = () => {
    const read = readInput(fields, { ...draft, raw: false });
    onChange({ ...draft, raw: true, json: read.ok ? jsonText(read.input) : draft.json });
  };
  const toFields = () => {
    const read = readInput(fields, { ...draft, raw: true });
    onChange(read.ok ? draftFrom(fields, read.input, false) : { ...draft, raw: false });
  };
  const options = useMemo(
    () => history.map((input, i) => ({ value: String(i), label: shortJson(input, 70) })),
    [history],
  );
  return (
    <div className="grid gap-3 p-3" data-testid="run-input">
      <div className="flex flex-wrap items-center gap-2">
        {!rawOnly && (
          <fieldset className="inline-flex rounded-md border p-0.5 text-xs">
            <legend className="sr-only">{t("run.input.mode")}</legend>
            <button
              type="button"
              aria-pressed={!draft.raw}
              onClick={toFields}
              className={cn("rounded px-2 py-0.5", !draft.raw && "bg-accent font-medium")}
            >
              {t("run.input.form")}
            </button>
            <button
              type="button"
              aria-pressed={draft.raw}
              onClick={toRaw}
              className={cn("rounded px-2 py-0.5", draft.raw && "bg-accent font-medium")}
              data-testid="run-input-raw"
            >
              {t("run.input.json")}
            </button>
          </fieldset>
        )}
        {options.length > 0 && (
          <select
            aria-label={t("run.input.previous")}
            className="h-7 max-w-72 truncate rounded-md border bg-background px-2 text-xs"
            value={historyPick}
            data-testid="run-input-history"
            onChange={(event) => {
              const input = history[Number(event.target.value)];
              setHistoryPick("");
              if (input) onChange(draftFrom(fields, input, draft.raw));
            }}
          >
            <option value="">{t("run.input.previous")}</option>
            {options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        )}
      </div>
      {draft.raw ? (
        <div className="grid gap-1">
          <Label htmlFor="run-input-json">{t("run.input.json")}</Label>
          <textarea
            id="run-input-json"
            className="min-h-28 rounded-md border bg-background p-2 font-mono text-xs"
            spellCheck={false}
            value={draft.json}
            aria-describedby={rawOnly ? "run-input-json-hint" : undefined}
            aria-invalid={problems[""] ? true : undefined}
            onChange={(event) => onChange({ ...draft, json: event.target.value })}
          />
          {problems[""] && <p className="text-xs text-destructive">{t(problems[""])}</p>}
          {rawOnly && (
            <p id="run-input-json-hint" className="text-xs text-muted-foreground" data-testid="run-input-any-object">
              {t("run.input.anyObject", { key: "__context__" })}
            </p>
          )}
          {contextSchema !== null && (
            <details className="text-xs" data-testid="run-input-context-schema">
              <summary className="cursor-pointer text-muted-foreground">
                {t("run.input.contextSchema", { key: "__context__" })}
              </summary>
              <pre className="mt-1 max-h-40 overflow-auto rounded-md border bg-muted/40 p-2 font-mono">
                {contextSchema}
              </pre>
            </details>
          )}
        </div>
      ) : fields.length === 0 ? (
        <p className="text-sm text-muted-foreground">{t("run.input.none")}</p>
      ) : (
        fields.map((field) => {
          const id = `run-input-${field.name}`;
          const value = draft.fields[field.name] ?? "";
          const set = (text: string) => onChange({ ...draft, fields: { ...draft.fields, [field.name]: text } });
          const problem = problems[field.name];
          return (
            <div key={field.name} className="grid gap-1">
              <Label htmlFor={id} className="text-xs">
                {field.name}{" "}
                <span className="font-normal text-muted-foreground">{t(`editor.stateSchema.types.${field.type}`)}</span>
              </Label>
              {field.type === "boolean" ? (
                <input
                  id={id}
                  type="checkbox"
                  className="size-4 self-start"
                  // Not given, a checkbox shows the field's default: what the run would get.
                  checked={value === "" ? field.default === true : value === "true"}
                  onChange={(event) => set(event.target.checked ? "true" : "false")}
                />
              ) : field.type === "string" || field.type === "number" ? (
                <input
                  id={id}
                  type={field.type === "number" ? "number" : "text"}
                  className="h-8 rounded-md border bg-background px-2 text-sm"
                  value={value}
                  placeholder={field.default === undefined ? undefined : String(field.default)}
                  aria-invalid={problem ? true : undefined}
                  onChange={(event) => set(event.target.value)}
                />
              ) : (
                <textarea
                  id={id}
                  className="min-h-14 rounded-md border bg-background p-2 font-mono text-xs"
                  spellCheck={false}
                  placeholder={field.type === "list" ? "[]" : "{}"}
                  value={value}
                  aria-invalid={problem ? true : undefined}
                  onChange={(event) => set(event.target.value)}
                />
              )}
              {problem && <p className="text-xs text-destructive">{t(problem)}</p>}
            </div>
          );
        })
      )}
    </div>
  );
}
