import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { PageTitle } from "@/components/page-title";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { errorMessage } from "@/lib/error-message";
import { HOME_PATH } from "@/lib/next-path";
import { ImportForm } from "./import-form";
import { isJobActive } from "./import-job";
import { ImportJobList } from "./import-job-list";
import { ImportJobView } from "./import-job-view";
import { importJobQuery, importsQuery } from "./import-queries";

/** The job named in the address (?job=…), followed live while it runs. */
function SelectedJob({ jobId }: { jobId: string }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const job = useQuery(importJobQuery(jobId));
  const ended = job.data !== undefined && !isJobActive(job.data);
  // Once the job ends, the list's badge for it is refreshed too.
  useEffect(() => {
    if (ended) void queryClient.invalidateQueries({ queryKey: importsQuery.queryKey, exact: true });
  }, [ended, queryClient]);
  if (job.isPending) return <Skeleton className="h-64 w-full" />;
  if (job.isError)
    return (
      <Alert variant="destructive">
        <AlertDescription>{errorMessage(t, job.error)}</AlertDescription>
      </Alert>
    );
  return <ImportJobView job={job.data} />;
}

/** Import a LangGraph Python repository: the source form, the job being followed, earlier jobs. */
export function ImportRepoPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const jobId = params.get("job");
  return (
    <div className="mx-auto grid w-full max-w-6xl gap-6 px-4 py-8">
      <PageTitle title={t("importRepo.title")} />
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="grid gap-1">
          <h1 className="text-2xl font-semibold tracking-tight">{t("importRepo.title")}</h1>
          <p className="max-w-3xl text-sm text-muted-foreground">{t("importRepo.description")}</p>
        </div>
        <Button variant="outline" asChild>
          <Link to={HOME_PATH}>{t("common.backToWorkflows")}</Link>
        </Button>
      </div>
      <Alert>
        <AlertDescription data-testid="import-experimental">{t("importRepo.experimental")}</AlertDescription>
      </Alert>
      <div className="grid items-start gap-6 lg:grid-cols-[minmax(0,5fr)_minmax(0,7fr)]">
        <div className="grid gap-6">
          <Card>
            <CardContent>
              <ImportForm onStarted={(job) => setParams({ job: job.id })} />
            </CardContent>
          </Card>
          <Card>
            <CardContent>
              <ImportJobList selected={jobId} />
            </CardContent>
          </Card>
        </div>
        <Card>
          <CardContent>
            {jobId ? (
              <SelectedJob key={jobId} jobId={jobId} />
            ) : (
              <p className="text-sm text-muted-foreground">{t("importRepo.job.none")}</p>
            )}
          </CardContent>
        </Card>
      </div>
    </div>
  );
}
