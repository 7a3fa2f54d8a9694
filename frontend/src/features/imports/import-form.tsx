import { FileArchiveIcon, FolderGitIcon, LoaderCircleIcon } from "lucide-react";
import { type DragEvent, type FormEvent, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import type { ImportJob } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";
import { cn } from "@/lib/utils";
import { useStartImport } from "./import-queries";
import { type GithubFields, githubBody, githubFieldErrors, type SourceErrorCode, zipFileError } from "./import-source";

interface FieldProps {
  id: string;
  label: string;
  hint?: string;
  value: string;
  error: SourceErrorCode | undefined;
  placeholder?: string;
  onChange: (value: string) => void;
}

function Field({ id, label, hint, value, error, placeholder, onChange }: FieldProps) {
  const { t } = useTranslation();
  const described = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ");
  return (
    <div className="grid gap-1.5">
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        value={value}
        placeholder={placeholder}
        autoComplete="off"
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        onChange={(event) => onChange(event.target.value)}
      />
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-muted-foreground">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="text-sm text-destructive" data-testid={`${id}-error`}>
          {t(`errors.${error}`)}
        </p>
      )}
    </div>
  );
}

/** The two ways in: a public GitHub URL (branch and sub-directory optional) or a zip file, picked or dropped. */
export function ImportForm({ onStarted }: { onStarted: (job: ImportJob) => void }) {
  const { t } = useTranslation();
  const id = useId();
  const start = useStartImport();
  const fileInput = useRef<HTMLInputElement>(null);
  const [fields, setFields] = useState<GithubFields>({ url: "", branch: "", subdir: "" });
  const [checked, setChecked] = useState(false);
  const [fileError, setFileError] = useState<SourceErrorCode | null>(null);
  const [dragging, setDragging] = useState(false);

  const errors = checked ? githubFieldErrors(fields) : {};
  const set = (key: keyof GithubFields) => (value: string) => setFields((previous) => ({ ...previous, [key]: value }));

  const submitGithub = (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    setFileError(null);
    if (Object.keys(githubFieldErrors(fields)).length > 0) return;
    start.mutate({ kind: "github", body: githubBody(fields) }, { onSuccess: onStarted });
  };

  const submitFile = (file: File | undefined) => {
    if (!file || start.isPending) return;
    start.reset();
    const problem = zipFileError(file);
    setFileError(problem);
    if (problem) return;
    start.mutate({ kind: "zip", file }, { onSuccess: onStarted });
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    submitFile(event.dataTransfer.files[0]);
  };

  return (
    <div className="grid gap-6">
      <form className="grid gap-4" onSubmit={submitGithub} noValidate aria-labelledby={`${id}-github`}>
        <h2 id={`${id}-github`} className="flex items-center gap-2 text-base font-semibold">
          <FolderGitIcon className="size-4" aria-hidden />
          {t("importRepo.form.githubTitle")}
        </h2>
        <Field
          id="import-url"
          label={t("importRepo.form.url")}
          placeholder={t("importRepo.form.urlPlaceholder")}
          value={fields.url}
          error={errors.url}
          onChange={set("url")}
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            id="import-branch"
            label={t("importRepo.form.branch")}
            hint={t("importRepo.form.branchHint")}
            value={fields.branch}
            error={errors.branch}
            onChange={set("branch")}
          />
          <Field
            id="import-subdir"
            label={t("importRepo.form.subdir")}
            hint={t("importRepo.form.subdirHint")}
            value={fields.subdir}
            error={errors.subdir}
            onChange={set("subdir")}
          />
        </div>
        <Button type="submit" className="justify-self-start" disabled={start.isPending}>
          {start.isPending && start.variables?.kind === "github" && (
            <LoaderCircleIcon className="animate-spin" aria-hidden />
          )}
          {t("importRepo.form.importGithub")}
        </Button>
      </form>

      <p className="text-center text-sm text-muted-foreground">{t("importRepo.form.or")}</p>

      <section className="grid gap-3" aria-labelledby={`${id}-zip`}>
        <h2 id={`${id}-zip`} className="flex items-center gap-2 text-base font-semibold">
          <FileArchiveIcon className="size-4" aria-hidden />
          {t("importRepo.form.zipTitle")}
        </h2>
        {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target for the mouse; the button inside is the keyboard's and screen reader's way */}
        <div
          data-testid="import-drop-zone"
          className={cn(
            "grid justify-items-center gap-2 rounded-lg border-2 border-dashed p-6 text-center text-sm text-muted-foreground",
            dragging && "border-primary bg-accent",
          )}
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <p>{t("importRepo.form.dropHint")}</p>
          <Button
            type="button"
            variant="outline"
            disabled={start.isPending}
            onClick={() => fileInput.current?.click()}
            aria-describedby={fileError ? "import-zip-error" : undefined}
          >
            {start.isPending && start.variables?.kind === "zip" && (
              <LoaderCircleIcon className="animate-spin" aria-hidden />
            )}
            {t("importRepo.form.chooseZip")}
          </Button>
          <input
            ref={fileInput}
            type="file"
            accept=".zip,application/zip"
            className="sr-only"
            tabIndex={-1}
            aria-label={t("importRepo.form.zipFile")}
            data-testid="import-zip-input"
            onChange={(event) => {
              const file = event.target.files?.[0];
              event.target.value = "";
              submitFile(file);
            }}
          />
          <p className="text-xs">{t("importRepo.form.zipHint")}</p>
        </div>
        {fileError && (
          <p id="import-zip-error" className="text-sm text-destructive" data-testid="import-zip-error">
            {t(`errors.${fileError}`)}
          </p>
        )}
      </section>

      {start.isError && (
        <Alert variant="destructive" data-testid="import-start-error">
          <AlertDescription>{errorMessage(t, start.error)}</AlertDescription>
        </Alert>
      )}
    </div>
  );
}
