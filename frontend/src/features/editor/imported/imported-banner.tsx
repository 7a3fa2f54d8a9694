// The strip under the editor's header of an imported workflow: where it came from (the import's
// source when this user can read the job, else the graph's spec), the graph, "read-only", and the
// environment names the repository declares.
import { useQuery } from "@tanstack/react-query";
import { LockIcon } from "lucide-react";
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { sourceLabel } from "@/features/imports/import-job";
import { importJobQuery } from "@/features/imports/import-queries";
import { useDocument } from "../document";
import { type ImportedGraphInfo, importedOf } from "./imported-workflow";

export function ImportedBanner() {
  const imported = useDocument((s) => importedOf(s.content.document));
  return imported ? <Banner imported={imported} /> : null;
}

function Banner({ imported }: { imported: ImportedGraphInfo }) {
  const { t } = useTranslation();
  const id = useId();
  // The job names the source (a repository, a zip); an old or another user's job is not there.
  const job = useQuery({ ...importJobQuery(imported.job_id), refetchInterval: false });
  const source = job.data ? sourceLabel(job.data.source) : imported.spec;
  return (
    <section
      aria-labelledby={id}
      className="flex flex-wrap items-center gap-x-3 gap-y-1 border-t bg-violet-50 px-3 py-1.5 text-sm text-violet-950 dark:bg-violet-950/40 dark:text-violet-100"
      data-testid="imported-banner"
    >
      <LockIcon className="size-4 shrink-0" aria-hidden />
      <h2 id={id} className="font-medium" data-testid="imported-banner-title">
        {t("editor.imported.banner", { source, graph: imported.graph_id })}
      </h2>
      <span className="text-xs opacity-80">{t("editor.imported.readOnlyHint")}</span>
      <span className="flex flex-wrap items-center gap-1.5 text-xs">
        {imported.env_names.length === 0 ? (
          t("editor.imported.noEnvNames")
        ) : (
          <>
            {t("editor.imported.envNames")}
            {imported.env_names.map((name) => (
              <code
                key={name}
                className="rounded bg-violet-100 px-1.5 py-0.5 dark:bg-violet-900/60"
                data-testid="imported-env-name"
              >
                {name}
              </code>
            ))}
          </>
        )}
      </span>
      {job.data && (
        <Link
          to={`/import-repo?job=${encodeURIComponent(imported.job_id)}`}
          className="ml-auto text-xs underline underline-offset-4 outline-none focus-visible:ring-[3px] focus-visible:ring-ring/60"
        >
          {t("editor.imported.openImport")}
        </Link>
      )}
    </section>
  );
}
