// The state schema editor: the workflow's state fields with their type, reducer and default; add,
// change, rename (every reference follows, one undo step), remove; where each field is used; and,
// while editing, the `replace` fields two nodes may write in the same superstep.

import type { TFunction } from "i18next";
import { AlertTriangleIcon, PlusIcon, Trash2Icon } from "lucide-react";
import { type FormEvent, useEffect, useId, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { cn } from "@/lib/utils";
import {
  type Command,
  type FieldUsage,
  findUsages,
  type ParallelWrite,
  type StateField,
  selectDocument,
  selectState,
  useDocument,
  useDocumentStore,
  type WorkflowDocument,
} from "../document";
import { REDUCERS, STATE_TYPES } from "../document/backend-shared";
import { useEditorUi } from "../layout/editor-ui-store";
import { parallelWrites } from "./parallel-writes";

const selectClass =
  "h-9 rounded-md border border-input bg-transparent px-2 text-sm outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50";

/** Dispatches a command; returns the translated refusal, if any. */
function useRun() {
  const { t } = useTranslation();
  const store = useDocumentStore();
  return (command: Command): string | null => {
    const result = store.getState().dispatch(command);
    return result.ok ? null : t(`editor.errors.${result.error.code}`, result.error.params ?? {});
  };
}

/** The clashes of the document as it is now, recomputed shortly after edits stop. */
function useParallelWrites(document: WorkflowDocument): ParallelWrite[] {
  const [clashes, setClashes] = useState<ParallelWrite[]>([]);
  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      void parallelWrites(document).then((found) => {
        if (current) setClashes(found);
      });
    }, 100);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [document]);
  return clashes;
}

export function StateSchemaPanel() {
  const { t } = useTranslation();
  const fields = useDocument(selectState);
  const document = useDocument(selectDocument);
  const clashes = useParallelWrites(document);
  const byField = useMemo(() => new Map(clashes.map((c) => [c.field, c])), [clashes]);
  const readOnly = useDocument((s) => s.readOnly);
  // An imported graph's state is its Python code's: nothing to declare or edit here.
  if (readOnly)
    return (
      <div className="grid gap-2 p-4" data-testid="state-schema">
        <h2 className="text-sm font-semibold">{t("editor.stateSchema.title")}</h2>
        <p className="text-sm text-muted-foreground" data-testid="state-read-only">
          {t("editor.imported.stateHint")}
        </p>
      </div>
    );
  return (
    <div className="grid gap-4 p-4" data-testid="state-schema">
      <div>
        <h2 className="text-sm font-semibold">{t("editor.stateSchema.title")}</h2>
        <p className="text-xs text-muted-foreground">
          {t("editor.stateSchema.intro", { open: "{{", close: "}}", interpolation: { escapeValue: false } })}
        </p>
      </div>
      {clashes.length > 0 && (
        <p className="flex gap-2 rounded-md border border-destructive/50 p-2 text-xs text-destructive" role="status">
          <AlertTriangleIcon className="size-4 shrink-0" aria-hidden />
          {t("editor.stateSchema.parallelSummary", { count: clashes.length })}
        </p>
      )}
      {fields.length === 0 ? (
        <p className="text-sm text-muted-foreground" data-testid="state-empty">
          {t("editor.stateSchema.empty")}
        </p>
      ) : (
        <ul className="grid gap-2" aria-label={t("editor.stateSchema.title")}>
          {fields.map((field) => (
            <FieldItem key={field.name} field={field} clash={byField.get(field.name)} />
          ))}
        </ul>
      )}
      <AddField />
    </div>
  );
}

function FieldItem({ field, clash }: { field: StateField; clash: ParallelWrite | undefined }) {
  const { t } = useTranslation();
  const run = useRun();
  const [editing, setEditing] = useState(false);
  const [showUsages, setShowUsages] = useState(false);
  const reducer = field.reducer ?? "replace";
  return (
    <li
      className={cn("grid gap-2 rounded-md border p-3", clash && "border-destructive/60")}
      data-testid="state-field"
      data-field={field.name}
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-mono text-sm font-medium" data-testid="state-field-name">
          {field.name}
        </span>
        <Badge variant="secondary">{t(`editor.stateSchema.types.${field.type}`)}</Badge>
        <Badge variant="outline">{t(`editor.stateSchema.reducers.${reducer}`)}</Badge>
        {field.default !== undefined && (
          <span
            className="max-w-full truncate font-mono text-xs text-muted-foreground"
            title={JSON.stringify(field.default)}
          >
            {t("editor.stateSchema.defaultShown", { value: JSON.stringify(field.default) })}
          </span>
        )}
      </div>
      {field.description && <p className="text-xs text-muted-foreground">{field.description}</p>}
      {clash && <ClashNote clash={clash} />}
      <div className="flex flex-wrap gap-1">
        <Button
          type="button"
          variant="outline"
          size="sm"
          aria-expanded={editing}
          aria-label={t(editing ? "editor.stateSchema.closeField" : "editor.stateSchema.editField", {
            name: field.name,
          })}
          onClick={() => setEditing(!editing)}
          data-testid="state-field-edit"
        >
          {editing ? t("editor.stateSchema.done") : t("editor.stateSchema.edit")}
        </Button>
        <Button
          type="button"
          variant="outline"
          size="sm"
          aria-expanded={showUsages}
          aria-label={t("editor.stateSchema.findUsagesOf", { name: field.name })}
          onClick={() => setShowUsages(!showUsages)}
          data-testid="state-field-usages"
        >
          {t("editor.stateSchema.findUsages")}
        </Button>
        <Button
          type="button"
          variant="ghost"
          size="sm"
          aria-label={t("editor.stateSchema.removeField", { name: field.name })}
          onClick={() => run({ type: "remove-state-field", name: field.name })}
          data-testid="state-field-remove"
        >
          <Trash2Icon aria-hidden />
        </Button>
      </div>
      {editing && <FieldEditor field={field} />}
      {showUsages && <Usages name={field.name} />}
    </li>
  );
}

function ClashNote({ clash }: { clash: ParallelWrite }) {
  const { t } = useTranslation();
  const focusNode = useEditorUi((s) => s.focusNode);
  const [a, b] = clash.nodes;
  return (
    <div className="grid gap-1 text-xs text-destructive" data-testid="parallel-write" role="status">
      <p className="flex gap-1.5">
        <AlertTriangleIcon className="mt-px size-3.5 shrink-0" aria-hidden />
        {t(clash.approximate ? "editor.stateSchema.parallelWriteMaybe" : "editor.stateSchema.parallelWrite", {
          a,
          b,
          field: clash.field,
        })}
      </p>
      <div className="flex gap-3 pl-5">
        {clash.nodes.map((id) => (
          <Button
            key={id}
            type="button"
            variant="link"
            size="sm"
            className="h-auto p-0 text-xs"
            onClick={() => focusNode(id)}
          >
            {t("editor.stateSchema.showNode", { id })}
          </Button>
        ))}
      </div>
    </div>
  );
}

function FieldEditor({ field }: { field: StateField }) {
  const { t } = useTranslation();
  const run = useRun();
  const store = useDocumentStore();
  const id = useId();
  const [newName, setNewName] = useState(field.name);
  const [renameError, setRenameError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [defaultText, setDefaultText] = useState(field.default === undefined ? "" : JSON.stringify(field.default));
  const [defaultError, setDefaultError] = useState<string | null>(null);
  // An undo (or another panel) changes the default: show it, unless the text typed already says it.
  const shownDefault = field.default === undefined ? "" : JSON.stringify(field.default);
  useEffect(() => {
    setDefaultText((typed) => {
      try {
        if (typed.trim() === "" ? shownDefault === "" : JSON.stringify(JSON.parse(typed)) === shownDefault)
          return typed;
      } catch {
        // not JSON: the outside value wins
      }
      return shownDefault;
    });
  }, [shownDefault]);
  const close = () => store.getState().closeGroup();
  const update = (changes: Partial<Omit<StateField, "name">>, remove?: ("reducer" | "default" | "description")[]) =>
    setError(run({ type: "update-state-field", name: field.name, changes, ...(remove ? { remove } : {}) }));

  return (
    <div className="grid gap-3 border-t pt-3" data-testid="state-field-editor">
      <form
        className="grid gap-1.5"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          const to = newName.trim();
          setRenameError(to === field.name ? null : run({ type: "rename-state-field", from: field.name, to }));
        }}
      >
        <label htmlFor={`${id}-name`} className="text-sm font-medium">
          {t("editor.stateSchema.name")}
        </label>
        <div className="flex gap-2">
          <Input
            id={`${id}-name`}
            value={newName}
            onChange={(e) => setNewName(e.target.value)}
            aria-invalid={renameError ? true : undefined}
            aria-describedby={`${id}-rename-help${renameError ? ` ${id}-rename-error` : ""}`}
            data-testid="state-field-rename-input"
            className="font-mono"
          />
          <Button type="submit" variant="outline" data-testid="state-field-rename">
            {t("editor.stateSchema.rename")}
          </Button>
        </div>
        <p id={`${id}-rename-help`} className="text-xs text-muted-foreground">
          {t("editor.stateSchema.renameHelp")}
        </p>
        {renameError && (
          <p id={`${id}-rename-error`} className="text-xs text-destructive" role="status">
            {renameError}
          </p>
        )}
      </form>
      <div className="grid grid-cols-2 gap-2">
        <div className="grid gap-1.5">
          <label htmlFor={`${id}-type`} className="text-sm font-medium">
            {t("editor.stateSchema.type")}
          </label>
          <select
            id={`${id}-type`}
            className={selectClass}
            value={field.type}
            onChange={(e) => update({ type: e.target.value as StateField["type"] })}
          >
            {STATE_TYPES.map((type) => (
              <option key={type} value={type}>
                {t(`editor.stateSchema.types.${type}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="grid gap-1.5">
          <label htmlFor={`${id}-reducer`} className="text-sm font-medium">
            {t("editor.stateSchema.reducer")}
          </label>
          <select
            id={`${id}-reducer`}
            className={selectClass}
            value={field.reducer ?? "replace"}
            aria-describedby={`${id}-reducer-help`}
            onChange={(e) => update({ reducer: e.target.value as NonNullable<StateField["reducer"]> })}
            data-testid="state-field-reducer"
          >
            {REDUCERS.map((reducer) => (
              <option key={reducer} value={reducer}>
                {t(`editor.stateSchema.reducers.${reducer}`)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p id={`${id}-reducer-help`} className="-mt-2 text-xs text-muted-foreground">
        {t(`editor.stateSchema.reducerHelp.${field.reducer ?? "replace"}`)}
      </p>
      <div className="grid gap-1.5">
        <label htmlFor={`${id}-default`} className="text-sm font-medium">
          {t("editor.stateSchema.default")}
        </label>
        <Input
          id={`${id}-default`}
          className="font-mono"
          value={defaultText}
          aria-invalid={defaultError ? true : undefined}
          aria-describedby={`${id}-default-help${defaultError ? ` ${id}-default-error` : ""}`}
          onChange={(e) => {
            const text = e.target.value;
            setDefaultText(text);
            if (text.trim() === "") {
              setDefaultError(null);
              update({}, ["default"]);
              return;
            }
            try {
              const value: unknown = JSON.parse(text);
              setDefaultError(null);
              update({ default: value });
            } catch {
              setDefaultError(t("editor.stateSchema.defaultInvalid"));
            }
          }}
          onBlur={close}
          data-testid="state-field-default"
        />
        <p id={`${id}-default-help`} className="text-xs text-muted-foreground">
          {t("editor.stateSchema.defaultHelp")}
        </p>
        {defaultError && (
          <p id={`${id}-default-error`} className="text-xs text-destructive" role="status">
            {defaultError}
          </p>
        )}
      </div>
      <div className="grid gap-1.5">
        <label htmlFor={`${id}-description`} className="text-sm font-medium">
          {t("editor.stateSchema.description")}
        </label>
        <textarea
          id={`${id}-description`}
          className="min-h-14 rounded-md border border-input bg-transparent px-3 py-1.5 text-sm outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50"
          value={field.description ?? ""}
          onChange={(e) =>
            e.target.value === "" ? update({}, ["description"]) : update({ description: e.target.value })
          }
          onBlur={close}
        />
      </div>
      {error && (
        <p className="text-xs text-destructive" role="status">
          {error}
        </p>
      )}
    </div>
  );
}

function usageText(usage: FieldUsage, t: TFunction): string {
  const setting = usage.path.join(".");
  if (usage.kind === "template") return t("editor.stateSchema.usageTemplate", { setting });
  return t(usage.writes ? "editor.stateSchema.usageWrites" : "editor.stateSchema.usageSetting", { setting });
}

function Usages({ name }: { name: string }) {
  const { t } = useTranslation();
  const document = useDocument(selectDocument);
  const focusNode = useEditorUi((s) => s.focusNode);
  const usages = useMemo(() => findUsages(document, name), [document, name]);
  const labels = useMemo(() => {
    const map = new Map<string, string>();
    for (const node of document.nodes) {
      const label = node.data.label;
      map.set(node.id, typeof label === "string" && label.trim() !== "" ? label : node.id);
    }
    return map;
  }, [document]);
  if (usages.length === 0)
    return (
      <p className="text-xs text-muted-foreground" data-testid="state-usages">
        {t("editor.stateSchema.noUsages")}
      </p>
    );
  return (
    <div className="grid gap-1" data-testid="state-usages">
      <p className="text-xs font-medium">{t("editor.stateSchema.usages", { count: usages.length })}</p>
      <ul className="grid gap-0.5">
        {usages.map((usage, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: usages are recomputed as a whole
          <li key={index}>
            <button
              type="button"
              className="w-full rounded-sm px-1 py-0.5 text-left text-xs outline-none hover:bg-accent focus-visible:ring-[3px] focus-visible:ring-ring/60"
              onClick={() => focusNode(usage.nodeId)}
              data-testid="state-usage"
              data-node-id={usage.nodeId}
            >
              <span className="font-medium">{labels.get(usage.nodeId) ?? usage.nodeId}</span>
              <span className="text-muted-foreground"> · {usageText(usage, t)}</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

function AddField() {
  const { t } = useTranslation();
  const run = useRun();
  const id = useId();
  const [name, setName] = useState("");
  const [type, setType] = useState<StateField["type"]>("string");
  const [reducer, setReducer] = useState<NonNullable<StateField["reducer"]>>("replace");
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="grid gap-2 rounded-md border border-dashed p-3"
      aria-labelledby={`${id}-title`}
      data-testid="state-add"
      onSubmit={(e) => {
        e.preventDefault();
        const field: StateField = { name: name.trim(), type, ...(reducer !== "replace" ? { reducer } : {}) };
        const refused = run({ type: "add-state-field", field });
        setError(refused);
        if (!refused) setName("");
      }}
    >
      <h3 id={`${id}-title`} className="text-sm font-medium">
        {t("editor.stateSchema.addTitle")}
      </h3>
      <div className="grid gap-1.5">
        <label htmlFor={`${id}-name`} className="text-xs font-medium">
          {t("editor.stateSchema.name")}
        </label>
        <Input
          id={`${id}-name`}
          value={name}
          className="font-mono"
          onChange={(e) => setName(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          data-testid="state-add-name"
        />
      </div>
      <div className="grid grid-cols-2 gap-2">
        <div className="grid gap-1.5">
          <label htmlFor={`${id}-type`} className="text-xs font-medium">
            {t("editor.stateSchema.type")}
          </label>
          <select
            id={`${id}-type`}
            className={selectClass}
            value={type}
            onChange={(e) => setType(e.target.value as StateField["type"])}
            data-testid="state-add-type"
          >
            {STATE_TYPES.map((option) => (
              <option key={option} value={option}>
                {t(`editor.stateSchema.types.${option}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="grid gap-1.5">
          <label htmlFor={`${id}-reducer`} className="text-xs font-medium">
            {t("editor.stateSchema.reducer")}
          </label>
          <select
            id={`${id}-reducer`}
            className={selectClass}
            value={reducer}
            onChange={(e) => setReducer(e.target.value as NonNullable<StateField["reducer"]>)}
            data-testid="state-add-reducer"
          >
            {REDUCERS.map((option) => (
              <option key={option} value={option}>
                {t(`editor.stateSchema.reducers.${option}`)}
              </option>
            ))}
          </select>
        </div>
      </div>
      {error && (
        <p id={`${id}-error`} className="text-xs text-destructive" role="status">
          {error}
        </p>
      )}
      <Button
        type="submit"
        size="sm"
        className="justify-self-start"
        disabled={name.trim() === ""}
        data-testid="state-add-submit"
      >
        <PlusIcon aria-hidden />
        {t("editor.stateSchema.add")}
      </Button>
    </form>
  );
}
