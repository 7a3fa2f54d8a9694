import { useTranslation } from "react-i18next";

/** The browser tab's title for a page ("Workflows · Superstep"); React 19 moves it into <head>. */
export function PageTitle({ title }: { title: string }) {
  const { t } = useTranslation();
  return <title>{t("app.pageTitle", { page: title })}</title>;
}
