import { LoaderCircleIcon } from "lucide-react";
import { useTranslation } from "react-i18next";

/** What shows while a page's code or data arrives: never a blank screen. */
export function PageLoading() {
  const { t } = useTranslation();
  return (
    <div role="status" className="flex min-h-40 flex-1 items-center justify-center gap-2 text-muted-foreground">
      <LoaderCircleIcon className="size-5 animate-spin" aria-hidden />
      <span>{t("common.loading")}</span>
    </div>
  );
}
