import { WorkflowIcon } from "lucide-react";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { Link, NavLink, Outlet, useNavigate, useNavigation } from "react-router";
import { HOME_PATH } from "@/lib/next-path";
import { subscribeSession } from "@/lib/session";
import { cn } from "@/lib/utils";
import { LanguageSwitch } from "./language-switch";
import { queryClient } from "./query-client";
import { ThemeSwitch } from "./theme-switch";
import { UserMenu } from "./user-menu";

/** The signed-in frame: a header with navigation, language, theme and account; the page below. */
export function Shell() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const navigation = useNavigation();

  // Signing out in another tab signs out this one too.
  useEffect(
    () =>
      subscribeSession((session, fromOtherTab) => {
        if (session || !fromOtherTab) return;
        void Promise.resolve(navigate("/login", { replace: true })).then(() => queryClient.clear());
      }),
    [navigate],
  );

  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:rounded-md focus:bg-background focus:px-3 focus:py-2 focus:ring-[3px] focus:ring-ring/60"
      >
        {t("shell.skipToContent")}
      </a>
      <header className="sticky top-0 z-40 border-b bg-background/95 backdrop-blur supports-[backdrop-filter]:bg-background/80">
        <div className="mx-auto flex h-14 w-full max-w-6xl items-center gap-4 px-4">
          <Link
            to={HOME_PATH}
            className="flex items-center gap-2 rounded-md font-semibold outline-none focus-visible:ring-[3px] focus-visible:ring-ring/60"
          >
            <WorkflowIcon className="size-5" aria-hidden />
            {t("app.title")}
          </Link>
          <nav aria-label={t("shell.mainNavigation")} className="flex items-center gap-1">
            <NavLink
              to="/workflows"
              end={false}
              className={({ isActive }) =>
                cn(
                  "rounded-md px-3 py-1.5 text-sm font-medium text-muted-foreground outline-none transition-colors hover:text-foreground focus-visible:ring-[3px] focus-visible:ring-ring/60",
                  isActive && "bg-accent text-accent-foreground",
                )
              }
            >
              {t("shell.workflows")}
            </NavLink>
            <NavLink
              to="/runs"
              className={({ isActive }) =>
                cn(
                  "rounded-md px-3 py-1.5 text-sm font-medium text-muted-foreground outline-none transition-colors hover:text-foreground focus-visible:ring-[3px] focus-visible:ring-ring/60",
                  isActive && "bg-accent text-accent-foreground",
                )
              }
            >
              {t("shell.runs")}
            </NavLink>
            <NavLink
              to="/api-keys"
              className={({ isActive }) =>
                cn(
                  "rounded-md px-3 py-1.5 text-sm font-medium text-muted-foreground outline-none transition-colors hover:text-foreground focus-visible:ring-[3px] focus-visible:ring-ring/60",
                  isActive && "bg-accent text-accent-foreground",
                )
              }
            >
              {t("shell.apiKeys")}
            </NavLink>
          </nav>
          <div className="ml-auto flex items-center gap-1">
            <LanguageSwitch />
            <ThemeSwitch />
            <UserMenu />
          </div>
        </div>
        {navigation.state === "loading" && (
          <div className="h-0.5 w-full animate-pulse bg-ring" role="progressbar" aria-label={t("common.loading")} />
        )}
      </header>
      <main id="main" tabIndex={-1} className="flex w-full flex-1 flex-col outline-none">
        <Outlet />
      </main>
    </div>
  );
}
