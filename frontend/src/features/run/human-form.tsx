// The form of a run waiting at a Human node: the node's message and fields, checked as the server
// checks them, and sent to resume the run.
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "@/components/ui/button";
import { Label } from "@/components/ui/label";
import { checkHumanInput, type FormProblem } from "./backend-shared";
import type { HumanField, HumanRequest } from "./run-types";

/** The checker's words, as keys of run.human.problems (a Vietnamese reader gets Vietnamese). */
const PROBLEM_KEYS: Record<string, string> = {
  "is required": "required",
  "is not one of the options": "notOption",
  "must be a number": "number",
  "must be a boolean": "boolean",
  "must be a string": "string",
  "is not a field of the form": "unknownField",
  "must be an object": "object",
};

function answerOf(field: HumanField, text: string): unknown {
  if (text === "") return undefined;
  if (field.type === "number") return Number(text);
  if (field.type === "boolean") return text === "true";
  return text;
}

export function HumanForm({
  request,
  pending,
  serverProblems,
  onSubmit,
}: {
  request: HumanRequest;
  pending: boolean;
  serverProblems: readonly FormProblem[];
  onSubmit(input: Record<string, unknown>): void;
}) {
  const { t } = useTranslation();
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [problems, setProblems] = useState<readonly FormProblem[]>([]);
  const shown = problems.length > 0 ? problems : serverProblems;
  const say = (message: string) => {
    const key = PROBLEM_KEYS[message];
    return key ? t(`run.human.problems.${key}`) : message;
  };
  const problemOf = (name: string) => {
    const found = shown.find((p) => p.field === name);
    return found ? say(found.message) : undefined;
  };
  const submit = () => {
    const input: Record<string, unknown> = {};
    for (const field of request.fields) {
      const value = answerOf(field, texts[field.name] ?? "");
      if (value !== undefined) input[field.name] = value;
    }
    const found = checkHumanInput(request.fields as Parameters<typeof checkHumanInput>[0], input);
    setProblems(found);
    if (found.length === 0) onSubmit(input);
  };
  return (
    <form
      className="grid gap-3 border-b bg-amber-50 p-3 dark:bg-amber-950/40"
      data-testid="human-form"
      aria-label={t("run.human.title")}
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <div>
        <p className="text-xs font-medium uppercase text-muted-foreground">{t("run.human.title")}</p>
        <p className="whitespace-pre-wrap text-sm">{request.message}</p>
      </div>
      {request.fields.map((field) => {
        const id = `human-${field.name}`;
        const text = texts[field.name] ?? "";
        const set = (value: string) => setTexts((current) => ({ ...current, [field.name]: value }));
        const problem = problemOf(field.name);
        return (
          <div key={field.name} className="grid gap-1">
            <Label htmlFor={id} className="text-xs">
              {field.label ?? field.name}
              {field.required && <span aria-hidden> *</span>}
            </Label>
            {field.type === "boolean" ? (
              <input
                id={id}
                type="checkbox"
                className="size-4"
                checked={text === "true"}
                onChange={(event) => set(event.target.checked ? "true" : "false")}
              />
            ) : field.type === "select" ? (
              <select
                id={id}
                className="h-8 rounded-md border bg-background px-2 text-sm"
                value={text}
                onChange={(event) => set(event.target.value)}
              >
                <option value="">{t("run.human.choose")}</option>
                {(field.options ?? []).map((option) => (
                  <option key={option} value={option}>
                    {option}
                  </option>
                ))}
              </select>
            ) : field.type === "text" ? (
              <textarea
                id={id}
                className="min-h-16 rounded-md border bg-background p-2 text-sm"
                value={text}
                onChange={(event) => set(event.target.value)}
              />
            ) : (
              <input
                id={id}
                type={field.type === "number" ? "number" : "text"}
                className="h-8 rounded-md border bg-background px-2 text-sm"
                value={text}
                aria-invalid={problem ? true : undefined}
                onChange={(event) => set(event.target.value)}
              />
            )}
            {problem && (
              <p className="text-xs text-destructive" data-testid="human-form-problem">
                {t("run.human.problem", { field: field.label ?? field.name, message: problem })}
              </p>
            )}
          </div>
        );
      })}
      {shown.some((p) => p.field === "" || !request.fields.some((f) => f.name === p.field)) && (
        <p className="text-xs text-destructive">{shown.map((p) => `${p.field} ${say(p.message)}`.trim()).join("; ")}</p>
      )}
      <div>
        <Button type="submit" size="sm" disabled={pending} data-testid="human-form-submit">
          {t("run.human.submit")}
        </Button>
      </div>
    </form>
  );
}
