import {
  CircleAlertIcon,
  CircleCheckIcon,
  CircleDashedIcon,
  CircleMinusIcon,
  CircleSlashIcon,
  CircleXIcon,
  LoaderCircleIcon,
} from "lucide-react";
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { ScrollBox } from "@/components/scroll-box";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { ApiError, type ImportJob } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";
import { fullDate } from "@/lib/relative-time";
import { cn } from "@/lib/utils";
import { GraphPicker } from "./graph-picker";
import { type StepState, sourceLabel, stepViews } from "./import-job";
import { ImportStatusBadge } from "./import-status-badge";

const STEP_ICON: Record<StepState, { icon: typeof CircleCheckIcon; className: string }> = {
  waiting: { icon: CircleDashedIcon, className: "text-muted-foreground" },
  running: { icon: LoaderCircleIcon, className: "animate-spin text-blue-600 dark:text-blue-400" },
  done: { icon: CircleCheckIcon, className: "text-green-600 dark:text-green-400" },
  failed: { icon: CircleXIcon, className: "text-destructive" },
  skipped: { icon: CircleMinusIcon, className: "text-muted-foreground" },
  stopped: { icon: CircleSlashIcon, className: "text-muted-foreground" },
};

/** Locale keys of the project kinds ("setup.py" has a dot, which i18next reads as nesting). */
const PROJECT_KEY: Record<NonNullable<ImportJob["project"]>["kind"], string> = {
  pyproject: "pyproject",
  "setup.py": "setupPy",
  requirements: "requirements",
  none: "none",
};

/** The server's details that help a person act (the entry of a zip, git's words), as "key: value" lines. */
function detailLines(details: unknown): string[] {
  if (!details || typeof details !== "object" || Array.isArray(details)) return [];
  return Object.entries(details as Record<string, unknown>)
    .filter(([, value]) => typeof value === "string" || typeof value === "number")
    .map(([key, value]) => `${key}: ${String(value)}`);
}

function Steps({ job }: { job: ImportJob }) {
  const { t } = useTranslation();
  return (
    <ol className="grid gap-2" data-testid="import-steps">
      {stepViews(job).map((step) => {
        const { icon: Icon, className } = STEP_ICON[step.state];
        return (
          <li
            key={step.name}
            className="flex items-start gap-3 rounded-md border p-3"
            data-testid={`import-step-${step.name}`}
            data-state={step.state}
          >
            <Icon className={cn("mt-0.5 size-4 shrink-0", className)} aria-hidden />
            <div className="grid min-w-0 gap-0.5">
              <p className="text-sm font-medium">
                {t(`importRepo.steps.${step.name}`)}
                <span className="text-muted-foreground">
                  {" · "}
                  <span data-testid="import-step-state">{t(`importRepo.stepState.${step.state}`)}</span>
                </span>
              </p>
              <p className="text-xs text-muted-foreground">{t(`importRepo.stepHelp.${step.name}`)}</p>
              {/* The step's newest log line, as it comes (the whole log is below). */}
              {step.logs.length > 0 && (
                <p
                  className="truncate font-mono text-xs text-muted-foreground"
                  title={step.logs[step.logs.length - 1]}
                  data-testid="import-step-last-line"
                >
                  {step.logs[step.logs.length - 1]}
                </p>
              )}
            </div>
          </li>
        );
      })}
    </ol>
  );
}

/**
 * The log lines in a log region: screen readers read new lines as they come, without moving the
 * focus. It scrolls, so it takes keyboard focus (ScrollBox).
 */
function LogLines({ job, labelledBy }: { job: ImportJob; labelledBy: string }) {
  const { t } = useTranslation();
  return (
    <ScrollBox
      role="log"
      aria-labelledby={labelledBy}
      className="max-h-72 overflow-auto rounded-md border bg-muted/40 p-3 font-mono text-xs whitespace-pre-wrap break-all"
      data-testid="import-log"
    >
      {job.logs.map((log, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: log lines only grow at the end; two may be equal
        <span key={index} className="flex gap-3">
          {/* The step in the UI's font: monospace fonts often lack Vietnamese letters. */}
          <span className="w-20 shrink-0 font-sans text-muted-foreground">{t(`importRepo.steps.${log.step}`)}</span>
          <span className="min-w-0">{log.line}</span>
        </span>
      ))}
    </ScrollBox>
  );
}

function Log({ job }: { job: ImportJob }) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <section className="grid gap-2" aria-labelledby={id}>
      <h3 id={id} className="text-sm font-semibold">
        {t("importRepo.job.log")}
      </h3>
      {job.logs.length === 0 ? (
        <p className="text-sm text-muted-foreground">{t("importRepo.job.noLog")}</p>
      ) : (
        <LogLines job={job} labelledBy={id} />
      )}
    </section>
  );
}

function Environment({ job }: { job: ImportJob }) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <section className="grid gap-2" aria-labelledby={id}>
      <h3 id={id} className="text-sm font-semibold">
        {t("importRepo.job.envNames")}
      </h3>
      {job.env_names.length === 0 ? (
        <p className="text-sm text-muted-foreground">{t("importRepo.job.noEnvNames")}</p>
      ) : (
        <ul className="flex flex-wrap gap-2" data-testid="import-env-names">
          {job.env_names.map((name) => (
            <li key={name}>
              <code className="rounded bg-muted px-1.5 py-0.5 text-xs">{name}</code>
            </li>
          ))}
        </ul>
      )}
      {job.project && (
        <p className="text-sm text-muted-foreground" data-testid="import-project">
          {t(`importRepo.project.${PROJECT_KEY[job.project.kind]}`)}
        </p>
      )}
    </section>
  );
}

/** One import: its steps, live log, error, the graphs found and the environment names it declares. */
export function ImportJobView({ job }: { job: ImportJob }) {
  const { t, i18n } = useTranslation();
  const id = useId();
  const failure = job.error ? new ApiError(job.error.code, 0, job.error.message, job.error.details) : null;
  return (
    <article className="grid gap-6" aria-labelledby={id} data-testid="import-job">
      <header className="grid gap-1">
        <div className="flex flex-wrap items-center gap-2">
          <h2 id={id} className="text-lg font-semibold break-all" data-testid="import-source">
            {sourceLabel(job.source)}
          </h2>
          <ImportStatusBadge status={job.status} />
        </div>
        <p className="text-xs text-muted-foreground">
          {t("importRepo.job.started", { when: fullDate(job.created_at, i18n.language) })}
        </p>
      </header>

      {/* The job's state said to screen readers as it changes. */}
      <p className="sr-only" aria-live="polite">
        {t(`importRepo.status.${job.status}`)}
      </p>

      {failure && (
        <Alert variant="destructive" data-testid="import-error">
          <CircleAlertIcon aria-hidden />
          <AlertTitle>{t("importRepo.job.failed")}</AlertTitle>
          <AlertDescription>
            <p data-testid="import-error-message">{errorMessage(t, failure)}</p>
            {detailLines(job.error?.details).map((line) => (
              <p key={line} className="font-mono text-xs break-all">
                {line}
              </p>
            ))}
          </AlertDescription>
        </Alert>
      )}

      <Steps job={job} />
      <GraphPicker job={job} />
      {job.status !== "failed" && <Environment job={job} />}
      <Log job={job} />
    </article>
  );
}
