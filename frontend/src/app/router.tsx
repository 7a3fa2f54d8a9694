// Every page is its own chunk (route `lazy`), so the first page downloads only what it shows; every
// route is under an error boundary that shows the translated error with a retry, never a blank
// screen. The boundaries sit on parent routes on purpose: a lazy route's own errorElement cannot
// show the failure of its own lazy() (React Router then renders nothing; a browser test checks it).
import { createBrowserRouter, redirect } from "react-router";
import { workflowQuery, workflowsQuery } from "@/features/workflows/workflow-queries";
import { setSessionEndedListener } from "@/lib/api";
import { loginPath } from "@/lib/next-path";
import { loginLoader, setupLoader, shellLoader, withSession } from "./auth-loaders";
import { NotFoundPage } from "./not-found-page";
import { PageLoading } from "./page-loading";
import { queryClient } from "./query-client";
import { RootError, RouteError } from "./route-error";
import { Shell } from "./shell";

export const router = createBrowserRouter([
  {
    id: "root",
    errorElement: <RootError />,
    HydrateFallback: PageLoading,
    children: [
      {
        path: "/setup",
        loader: setupLoader,
        lazy: async () => ({ Component: (await import("@/features/auth/setup-page")).SetupPage }),
      },
      {
        path: "/login",
        loader: loginLoader,
        lazy: async () => ({ Component: (await import("@/features/auth/login-page")).LoginPage }),
      },
      {
        id: "shell",
        loader: shellLoader,
        Component: Shell,
        errorElement: <RootError />,
        children: [
          {
            errorElement: <RouteError />,
            children: [
              { index: true, loader: () => redirect("/workflows") },
              {
                path: "workflows",
                loader: withSession(async () => {
                  await queryClient.ensureQueryData(workflowsQuery);
                  return null;
                }),
                lazy: async () => ({
                  Component: (await import("@/features/workflows/workflows-page")).WorkflowsPage,
                }),
              },
              {
                path: "workflows/:id",
                loader: withSession(async ({ params }) => {
                  await queryClient.ensureQueryData(workflowQuery(params.id ?? ""));
                  return null;
                }),
                // The editor's page: its own chunk, loaded only when a workflow is opened.
                lazy: async () => ({ Component: (await import("@/features/editor/workflow-page")).WorkflowPage }),
              },
              {
                path: "runs",
                lazy: async () => ({ Component: (await import("@/features/runs/runs-page")).RunsPage }),
              },
              {
                path: "api-keys",
                lazy: async () => ({ Component: (await import("@/features/triggers/api-keys-page")).ApiKeysPage }),
              },
              {
                path: "import-repo",
                lazy: async () => ({
                  Component: (await import("@/features/imports/import-repo-page")).ImportRepoPage,
                }),
              },
              { path: "*", Component: NotFoundPage },
            ],
          },
        ],
      },
    ],
  },
]);

// A signed-in call (a query, a save) that finds the session over sends the person to login and
// back. While a loader runs it is left to the loader, which redirects the same way (withSession).
setSessionEndedListener((error) => {
  const { state } = router;
  if (!state.initialized || state.navigation.state !== "idle") return;
  const { pathname, search, hash } = state.location;
  if (pathname === "/login" || pathname === "/setup") return;
  void router
    .navigate(loginPath(`${pathname}${search}${hash}`, error.code), { replace: true })
    .then(() => queryClient.clear());
});
