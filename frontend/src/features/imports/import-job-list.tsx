import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Skeleton } from "@/components/ui/skeleton";
import { errorMessage } from "@/lib/error-message";
import { fullDate, relativeTime } from "@/lib/relative-time";
import { cn } from "@/lib/utils";
import { sourceLabel } from "./import-job";
import { importsQuery } from "./import-queries";
import { ImportStatusBadge } from "./import-status-badge";

/** The person's earlier imports, newest first; each opens its job view. */
export function ImportJobList({ selected }: { selected: string | null }) {
  const { t, i18n } = useTranslation();
  const id = useId();
  const jobs = useQuery(importsQuery);
  const now = Date.now();
  return (
    <nav className="grid gap-2" aria-labelledby={id}>
      <h2 id={id} className="text-base font-semibold">
        {t("importRepo.list.title")}
      </h2>
      {jobs.isPending && <Skeleton className="h-10 w-full" />}
      {jobs.isError && <p className="text-sm text-destructive">{errorMessage(t, jobs.error)}</p>}
      {jobs.data?.length === 0 && <p className="text-sm text-muted-foreground">{t("importRepo.list.empty")}</p>}
      {jobs.data && jobs.data.length > 0 && (
        <ul className="grid gap-1" data-testid="import-job-list">
          {jobs.data.map((job) => (
            <li key={job.id}>
              <Link
                to={`?job=${encodeURIComponent(job.id)}`}
                aria-current={job.id === selected ? "page" : undefined}
                className={cn(
                  "flex items-center justify-between gap-2 rounded-md px-2 py-1.5 text-sm hover:bg-accent focus-visible:ring-[3px] focus-visible:ring-ring/50 focus-visible:outline-none",
                  job.id === selected && "bg-accent",
                )}
                data-testid="import-job-link"
              >
                <span className="grid min-w-0">
                  <span className="truncate font-medium">{sourceLabel(job.source)}</span>
                  <time
                    className="text-xs text-muted-foreground"
                    dateTime={job.created_at}
                    title={fullDate(job.created_at, i18n.language)}
                  >
                    {relativeTime(job.created_at, now, i18n.language)}
                  </time>
                </span>
                <ImportStatusBadge status={job.status} />
              </Link>
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}
