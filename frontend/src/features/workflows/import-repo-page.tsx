import { FolderGitIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { PageTitle } from "@/components/page-title";
import { Button } from "@/components/ui/button";
import { HOME_PATH } from "@/lib/next-path";

/** Where "Import repo" leads while importing LangGraph repositories is not in the UI yet. */
export function ImportRepoPage() {
  const { t } = useTranslation();
  return (
    <section className="mx-auto flex max-w-xl flex-col items-center gap-4 px-6 py-16 text-center">
      <PageTitle title={t("importRepo.title")} />
      <FolderGitIcon className="size-10 text-muted-foreground" aria-hidden />
      <h1 className="text-xl font-semibold">{t("importRepo.title")}</h1>
      <p className="text-muted-foreground">{t("importRepo.later")}</p>
      <Button variant="outline" asChild>
        <Link to={HOME_PATH}>{t("common.backToWorkflows")}</Link>
      </Button>
    </section>
  );
}
