// The settings form of one node, generated from its type's JSON Schema (see schema-form.ts). Every
// change dispatches `update-node-data` for the setting's path; typed text is written after a short
// pause (use-draft.ts), and the writes of one field merge into one undo step, closed when the
// field loses focus.

import type { TFunction } from "i18next";
import { PlusIcon, Trash2Icon } from "lucide-react";
import {
  createContext,
  type KeyboardEvent as ReactKeyboardEvent,
  type ReactNode,
  useContext,
  useEffect,
  useId,
  useState,
} from "react";
import { useTranslation } from "react-i18next";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { cn } from "@/lib/utils";
import { CodeEditor, type ReferenceScope } from "../code-editor/code-editor";
import { nearestName, type SettingPath } from "../document";
import { type NodeTypeInfo, namesStateField, stateFieldForm, stringEditor } from "./node-type-queries";
import { emptyValue, type FieldSpec, fieldProblem, pickVariant } from "./schema-form";
import { useDraft } from "./use-draft";

/** What every field of one node's form shares. */
export interface FormContext {
  info: NodeTypeInfo;
  data: Record<string, unknown>;
  scope: ReferenceScope;
  /** Sets the setting at `path` (undefined removes it); returns a translated refusal, if any. */
  change(path: SettingPath, value: unknown): string | null;
  /** Ends the current undo step (a field was left). */
  closeGroup(): void;
  /** Id of the datalist offering the declared state field names. */
  fieldListId: string;
}

const Form = createContext<FormContext | null>(null);

export function SettingsFormProvider({ value, children }: { value: FormContext; children: ReactNode }) {
  return <Form.Provider value={value}>{children}</Form.Provider>;
}

function useForm(): FormContext {
  const form = useContext(Form);
  if (!form) throw new Error("settings fields need a SettingsFormProvider");
  return form;
}

const inputClass =
  "flex w-full min-w-0 rounded-md border border-input bg-transparent px-3 py-1.5 text-sm shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 aria-invalid:border-destructive";

/** The translated name of a setting; list members are numbered. */
function useSettingName(name: string | number): string {
  const { t } = useTranslation();
  if (typeof name === "number") return t("editor.inspector.item", { number: name + 1 });
  return t(`editor.inspector.fields.${name}`, { defaultValue: name });
}

/** Help under a setting: the translated help for its name, else the schema's description. */
function useHelp(name: string | number, spec: FieldSpec): string | undefined {
  const { t, i18n } = useTranslation();
  if (typeof name === "string") {
    const key = `editor.inspector.help.${name}`;
    // Help texts show {{…}} references literally: the braces come in as values.
    if (i18n.exists(key)) return t(key, { open: "{{", close: "}}", interpolation: { escapeValue: false } });
  }
  return spec.description;
}

interface FieldProps {
  name: string | number;
  spec: FieldSpec;
  required: boolean;
  path: SettingPath;
  value: unknown;
}

/** A labelled setting with its help and inline error, whatever its kind. */
export function SettingField(props: FieldProps) {
  const { spec } = props;
  switch (spec.kind) {
    case "object":
      return <ObjectField {...props} spec={spec} />;
    case "variants":
      return <VariantsField {...props} spec={spec} />;
    case "list":
      return <ListField {...props} spec={spec} />;
    case "record":
      return <RecordField {...props} spec={spec} />;
    case "const":
      return null;
    default:
      return <ScalarField {...props} />;
  }
}

function FieldFrame({
  id,
  name,
  required,
  help,
  error,
  children,
  testId,
  onKeyDown,
}: {
  id: string;
  name: string;
  required: boolean;
  help?: string | undefined;
  error?: string | null | undefined;
  children: ReactNode;
  testId: string;
  onKeyDown?: (event: ReactKeyboardEvent) => void;
}) {
  const { t } = useTranslation();
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: only listens to its field's keys (a shortcut writes the typed text first)
    <div className="grid gap-1.5" data-testid={testId} onKeyDown={onKeyDown}>
      <label htmlFor={id} id={`${id}-label`} className="text-sm font-medium">
        {name}
        {required && (
          <span className="ml-0.5 text-destructive" title={t("editor.inspector.required")}>
            <span aria-hidden>*</span>
            <span className="sr-only">{t("editor.inspector.required")}</span>
          </span>
        )}
      </label>
      {children}
      {help && (
        <p id={`${id}-help`} className="text-xs text-muted-foreground">
          {help}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="text-xs text-destructive" data-testid="setting-error" role="status">
          {error}
        </p>
      )}
    </div>
  );
}

const testIdOf = (path: SettingPath) => `setting-${path.join(".")}`;

function ScalarField(props: FieldProps) {
  const { name, spec, required, path } = props;
  const { t } = useTranslation();
  const form = useForm();
  const id = useId();
  const label = useSettingName(name);
  const help = useHelp(name, spec);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [draftError, setDraftError] = useState<string | null>(null);
  // Typed text waits in the field; the document gets it after a pause, on blur or before a shortcut.
  const draft = useDraft<unknown>(props.value, (next) => setRefusal(form.change(path, next)));
  const value = draft.shown;
  const problem = fieldProblem(spec, value, required);
  const error =
    refusal ??
    draftError ??
    (problem ? t(`editor.inspector.errors.${problem.code}`, problem.params ?? {}) : null) ??
    undeclaredField(form, path, value, t);
  const describedBy = [help ? `${id}-help` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  const set = draft.change;
  /** A choice (checkbox, list) is one event, not a burst: written at once. */
  const setNow = (next: unknown) => {
    draft.flush();
    setRefusal(form.change(path, next));
  };
  const leave = () => {
    draft.flush();
    form.closeGroup();
  };
  const common = {
    id,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy,
    "aria-required": required || undefined,
    onBlur: leave,
  };

  let control: ReactNode;
  switch (spec.kind) {
    case "string": {
      const text = typeof value === "string" ? value : "";
      const editor = stringEditor(form.info, form.data, path);
      if (editor !== "text") {
        control = (
          <CodeEditor
            value={text}
            onChange={(next) => set(next === "" && !required ? undefined : next)}
            language={editor}
            references={form.scope}
            aria-label={label}
            aria-describedby={describedBy}
            aria-invalid={Boolean(error)}
            onBlur={leave}
            minLines={editor === "template" && (spec.maxLength ?? 0) < 5000 ? 1 : 4}
            data-testid={`${testIdOf(path)}-editor`}
          />
        );
      } else if ((spec.maxLength ?? 0) > 400) {
        control = (
          <textarea
            {...common}
            className={cn(inputClass, "min-h-16")}
            value={text}
            onChange={(e) => set(e.target.value === "" && !required ? undefined : e.target.value)}
          />
        );
      } else {
        control = (
          <Input
            {...common}
            value={text}
            list={namesStateField(form.info, path) ? form.fieldListId : undefined}
            onChange={(e) => set(e.target.value === "" && !required ? undefined : e.target.value)}
          />
        );
      }
      break;
    }
    case "number":
      control = <NumberInput common={common} value={value} onValue={set} onDraftError={setDraftError} />;
      break;
    case "boolean":
      control = (
        <input
          {...common}
          type="checkbox"
          className="size-4 accent-[var(--ring)]"
          checked={value === true}
          onChange={(e) => setNow(e.target.checked)}
        />
      );
      break;
    case "enum":
      control = (
        <select
          {...common}
          className={cn(inputClass, "h-9")}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => setNow(e.target.value === "" ? undefined : e.target.value)}
        >
          {(!required || typeof value !== "string") && <option value="">{t("editor.inspector.notSet")}</option>}
          {spec.options.map((option) => (
            <option key={option} value={option}>
              {t(`editor.inspector.options.${option}`, { defaultValue: option })}
            </option>
          ))}
        </select>
      );
      break;
    default:
      control = (
        <JsonInput
          value={value}
          label={label}
          describedBy={describedBy}
          invalid={Boolean(error)}
          onValue={set}
          onDraftError={setDraftError}
          onBlur={leave}
          testId={`${testIdOf(path)}-editor`}
        />
      );
  }
  return (
    <FieldFrame
      id={id}
      name={label}
      required={required}
      help={help}
      error={error}
      testId={testIdOf(path)}
      onKeyDown={draft.onKeyDown}
    >
      {control}
    </FieldFrame>
  );
}

/** For a setting that names a state field: the validator's complaint when the field is not declared. */
function undeclaredField(form: FormContext, path: SettingPath, value: unknown, t: TFunction): string | null {
  const how = stateFieldForm(form.info, path);
  if (!how || typeof value !== "string" || value === "") return null;
  const name = how === "path" ? (value.split(".")[0] as string) : value;
  const declared = form.scope.fields.map((f) => f.name);
  if (declared.includes(name)) return null;
  const suggestion = nearestName(name, declared);
  const message = t("editor.references.STATE_REFERENCE_UNKNOWN", { name });
  return suggestion ? `${message} ${t("editor.references.suggestion", { suggestion })}` : message;
}

/** A number typed as text: kept as typed until it is a number, then dispatched. */
function NumberInput({
  common,
  value,
  onValue,
  onDraftError,
}: {
  common: Record<string, unknown>;
  value: unknown;
  onValue: (value: unknown) => void;
  onDraftError: (error: string | null) => void;
}) {
  const { t } = useTranslation();
  const shown = typeof value === "number" ? String(value) : "";
  const [text, setText] = useState(shown);
  useEffect(() => {
    setText((current) => (Number(current) === value && current.trim() !== "" ? current : shown));
  }, [shown, value]);
  return (
    <Input
      {...common}
      inputMode="decimal"
      value={text}
      onChange={(e) => {
        const next = e.target.value;
        setText(next);
        if (next.trim() === "") {
          onDraftError(null);
          onValue(undefined);
        } else if (Number.isFinite(Number(next))) {
          onDraftError(null);
          onValue(Number(next));
        } else onDraftError(t("editor.inspector.errors.notNumber"));
      }}
    />
  );
}

/** Any JSON value as JSON text: dispatched once it parses; the last valid value is kept until then. */
function JsonInput({
  value,
  label,
  describedBy,
  invalid,
  onValue,
  onDraftError,
  onBlur,
  testId,
}: {
  value: unknown;
  label: string;
  describedBy: string | undefined;
  invalid: boolean;
  onValue: (value: unknown) => void;
  onDraftError: (error: string | null) => void;
  onBlur: () => void;
  testId: string;
}) {
  const { t } = useTranslation();
  const form = useForm();
  const shown = value === undefined ? "" : JSON.stringify(value, null, 2);
  const [text, setText] = useState(shown);
  useEffect(() => {
    setText((current) => {
      try {
        if (current.trim() !== "" && JSON.stringify(JSON.parse(current)) === JSON.stringify(value)) return current;
      } catch {
        // not JSON yet: the outside value wins only when it changed
      }
      return shown;
    });
  }, [shown, value]);
  return (
    <CodeEditor
      value={text}
      language="json"
      references={form.scope}
      aria-label={label}
      aria-describedby={describedBy}
      aria-invalid={invalid}
      onBlur={onBlur}
      data-testid={testId}
      onChange={(next) => {
        setText(next);
        if (next.trim() === "") {
          onDraftError(null);
          onValue(undefined);
          return;
        }
        try {
          const parsed: unknown = JSON.parse(next);
          onDraftError(null);
          onValue(parsed);
        } catch {
          onDraftError(t("editor.inspector.errors.notJson"));
        }
      }}
    />
  );
}

function Group({
  name,
  path,
  help,
  children,
}: {
  name: string;
  path: SettingPath;
  help?: string | undefined;
  children: ReactNode;
}) {
  return (
    <fieldset className="grid gap-3 rounded-md border p-3" data-testid={testIdOf(path)}>
      <legend className="px-1 text-sm font-medium">{name}</legend>
      {help && <p className="-mt-1 text-xs text-muted-foreground">{help}</p>}
      {children}
    </fieldset>
  );
}

function ObjectField({ name, spec, path, value }: FieldProps & { spec: Extract<FieldSpec, { kind: "object" }> }) {
  const label = useSettingName(name);
  const help = useHelp(name, spec);
  const object = (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
  const fields = spec.properties.map((p) => (
    <SettingField
      key={p.name}
      name={p.name}
      spec={p.spec}
      required={p.required}
      path={[...path, p.name]}
      value={object[p.name]}
    />
  ));
  if (path.length === 0) return <div className="grid gap-4">{fields}</div>;
  return (
    <Group name={label} path={path} help={help}>
      {fields}
    </Group>
  );
}

function VariantsField({ spec, path, value }: FieldProps & { spec: Extract<FieldSpec, { kind: "variants" }> }) {
  const { t } = useTranslation();
  const form = useForm();
  const id = useId();
  const variant = pickVariant(spec, value);
  const object = (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
  return (
    <div className="grid gap-4">
      <FieldFrame
        id={id}
        name={t(`editor.inspector.fields.${spec.discriminator}`, { defaultValue: spec.discriminator })}
        required
        testId={testIdOf([...path, spec.discriminator])}
      >
        <select
          id={id}
          className={cn(inputClass, "h-9")}
          value={variant.value}
          onChange={(e) => {
            const next = spec.variants.find((v) => v.value === e.target.value);
            if (!next) return;
            // A new kind starts from its own required settings; the node's label and description stay.
            const kept: Record<string, unknown> = {};
            for (const key of ["label", "description"]) if (object[key] !== undefined) kept[key] = object[key];
            form.change(path, { ...kept, ...(emptyValue(next.spec) as Record<string, unknown>) });
            form.closeGroup();
          }}
        >
          {spec.variants.map((v) => (
            <option key={v.value} value={v.value}>
              {t(`editor.inspector.options.${v.value}`, { defaultValue: v.value })}
            </option>
          ))}
        </select>
      </FieldFrame>
      <ObjectField name="" spec={variant.spec} required path={path} value={value} />
    </div>
  );
}

function ListField({ name, spec, required, path, value }: FieldProps & { spec: Extract<FieldSpec, { kind: "list" }> }) {
  const { t } = useTranslation();
  const form = useForm();
  const label = useSettingName(name);
  const help = useHelp(name, spec);
  const items = Array.isArray(value) ? value : [];
  const problem = fieldProblem(spec, value, required);
  const full = spec.maxItems !== undefined && items.length >= spec.maxItems;
  return (
    <Group name={label} path={path} help={help}>
      {items.map((item, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: members have no identity but their place
        <div key={index} className="flex items-start gap-2">
          <div className="min-w-0 flex-1">
            <SettingField name={index} spec={spec.item} required path={[...path, index]} value={item} />
          </div>
          <Button
            type="button"
            variant="ghost"
            size="icon"
            className="mt-6"
            aria-label={t("editor.inspector.removeItem", { name: label, number: index + 1 })}
            onClick={() => {
              form.change([...path, index], undefined);
              form.closeGroup();
            }}
          >
            <Trash2Icon aria-hidden />
          </Button>
        </div>
      ))}
      {problem && (
        <p className="text-xs text-destructive" data-testid="setting-error" role="status">
          {t(`editor.inspector.errors.${problem.code}`, problem.params ?? {})}
        </p>
      )}
      <Button
        type="button"
        variant="outline"
        size="sm"
        className="justify-self-start"
        disabled={full}
        data-testid={`${testIdOf(path)}-add`}
        onClick={() => {
          form.change(path, [...items, emptyValue(spec.item)]);
          form.closeGroup();
        }}
      >
        <PlusIcon aria-hidden />
        {t("editor.inspector.addItem", { name: label })}
      </Button>
    </Group>
  );
}

function RecordField({ name, spec, path, value }: FieldProps & { spec: Extract<FieldSpec, { kind: "record" }> }) {
  const { t } = useTranslation();
  const form = useForm();
  const label = useSettingName(name);
  const help = useHelp(name, spec);
  const record = (value && typeof value === "object" && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
  const keys = Object.keys(record);
  const rename = (from: string, to: string) => {
    const next: Record<string, unknown> = {};
    for (const key of keys) next[key === from ? to : key] = record[key];
    form.change(path, next);
  };
  return (
    <Group name={label} path={path} help={help}>
      {keys.map((key, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: keyed by place so renaming a key keeps focus in its input
        <div key={index} className="grid gap-2 rounded-md bg-muted/40 p-2">
          <div className="flex items-center gap-2">
            <RecordKey
              label={t("editor.inspector.recordKey", { name: label, number: index + 1 })}
              name={key}
              pattern={spec.keyPattern}
              onRename={(to) => {
                if (to === key) return true;
                if (to in record) return false;
                rename(key, to);
                form.closeGroup();
                return true;
              }}
            />
            <Button
              type="button"
              variant="ghost"
              size="icon"
              aria-label={t("editor.inspector.removeItem", { name: label, number: index + 1 })}
              onClick={() => {
                form.change([...path, key], undefined);
                form.closeGroup();
              }}
            >
              <Trash2Icon aria-hidden />
            </Button>
          </div>
          <SettingField name={key} spec={spec.value} required path={[...path, key]} value={record[key]} />
        </div>
      ))}
      <Button
        type="button"
        variant="outline"
        size="sm"
        className="justify-self-start"
        data-testid={`${testIdOf(path)}-add`}
        onClick={() => {
          let n = keys.length + 1;
          while (`key_${n}` in record) n++;
          form.change([...path, `key_${n}`], emptyValue(spec.value));
          form.closeGroup();
        }}
      >
        <PlusIcon aria-hidden />
        {t("editor.inspector.addEntry", { name: label })}
      </Button>
    </Group>
  );
}

/** A record entry's name, renamed when the field is left (or on Enter), so that a name typed
 * letter by letter never collides with another entry on the way. */
function RecordKey({
  label,
  name,
  pattern,
  onRename,
}: {
  label: string;
  name: string;
  pattern: string | undefined;
  onRename: (to: string) => boolean;
}) {
  const { t } = useTranslation();
  const id = useId();
  const [text, setText] = useState(name);
  const [taken, setTaken] = useState(false);
  useEffect(() => setText(name), [name]);
  const invalid = pattern !== undefined && !new RegExp(pattern, "u").test(text);
  const commit = () => {
    if (invalid || text === "") return;
    setTaken(!onRename(text));
  };
  const shape = pattern === "^[A-Za-z_][A-Za-z0-9_]{0,63}$" ? "identifier" : "pattern";
  const error = taken ? t("editor.inspector.errors.keyTaken") : invalid ? t(`editor.inspector.errors.${shape}`) : null;
  return (
    <div className="grid min-w-0 flex-1 gap-1">
      <Input
        aria-label={label}
        value={text}
        className="font-mono"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => {
          setText(e.target.value);
          setTaken(false);
        }}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            commit();
          }
        }}
      />
      {error && (
        <p id={`${id}-error`} className="text-xs text-destructive" data-testid="setting-error" role="status">
          {error}
        </p>
      )}
    </div>
  );
}
