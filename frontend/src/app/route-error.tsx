import { CircleAlertIcon, RefreshCwIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { isRouteErrorResponse, Link, useRevalidator, useRouteError } from "react-router";
import { PageTitle } from "@/components/page-title";
import { Button } from "@/components/ui/button";
import { errorMessage, isChunkLoadError } from "@/lib/error-message";
import { HOME_PATH } from "@/lib/next-path";

/** A route's error boundary: the translated message of what went wrong and a way to try again. */
export function RouteError() {
  const error = useRouteError();
  const { t } = useTranslation();
  const revalidator = useRevalidator();
  const message = isRouteErrorResponse(error)
    ? t(error.status === 404 ? "errors.NOT_FOUND" : "errors.INTERNAL")
    : errorMessage(t, error);
  const retry = () => {
    // A page whose code failed to load needs the page itself again (the studio may have been updated).
    if (isChunkLoadError(error)) window.location.reload();
    else void revalidator.revalidate();
  };
  return (
    <section
      aria-labelledby="route-error-title"
      className="mx-auto flex w-full max-w-xl flex-col items-center gap-4 px-6 py-16 text-center"
    >
      <CircleAlertIcon className="size-10 text-destructive" aria-hidden />
      <PageTitle title={t("common.errorTitle")} />
      <h1 id="route-error-title" className="text-xl font-semibold">
        {t("common.errorTitle")}
      </h1>
      <p role="alert" data-testid="route-error-message" className="text-muted-foreground">
        {message}
      </p>
      <div className="flex gap-2">
        <Button onClick={retry} disabled={revalidator.state === "loading"}>
          <RefreshCwIcon aria-hidden />
          {t("common.retry")}
        </Button>
        <Button variant="outline" asChild>
          <Link to={HOME_PATH}>{t("common.backToWorkflows")}</Link>
        </Button>
      </div>
    </section>
  );
}

/** The outermost boundary: no shell around it, so it brings its own main landmark. */
export function RootError() {
  return (
    <main className="min-h-screen bg-background">
      <RouteError />
    </main>
  );
}
