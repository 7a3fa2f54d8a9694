import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { PageTitle } from "@/components/page-title";
import { Button } from "@/components/ui/button";
import { HOME_PATH } from "@/lib/next-path";

export function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <section className="mx-auto flex max-w-xl flex-col items-center gap-4 px-6 py-16 text-center">
      <PageTitle title={t("notFound.title")} />
      <h1 className="text-xl font-semibold">{t("notFound.title")}</h1>
      <p className="text-muted-foreground">{t("errors.NOT_FOUND")}</p>
      <Button variant="outline" asChild>
        <Link to={HOME_PATH}>{t("common.backToWorkflows")}</Link>
      </Button>
    </section>
  );
}
