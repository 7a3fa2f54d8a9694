// Route loaders that decide, before a page renders, where a person belongs: the first-run setup,
// the login page, or the studio (with a session the server still accepts).
import { type LoaderFunction, type LoaderFunctionArgs, redirect } from "react-router";
import { meQuery } from "@/features/auth/auth-queries";
import { api, isSessionEnded } from "@/lib/api";
import { HOME_PATH, loginPath, safeNextPath } from "@/lib/next-path";
import { getSession } from "@/lib/session";
import { queryClient } from "./query-client";

function pathOf(request: Request): string {
  const url = new URL(request.url);
  return `${url.pathname}${url.search}${url.hash}`;
}

// The loaders of a navigation run at the same time (the shell's and its page's) and receive the
// same Request: the session is checked once per navigation, and no page asks the API for its data
// before that check has passed (a request without a token would hide why the session ended).
const sessionChecks = new WeakMap<Request, Promise<void>>();

function checkSession(request: Request): Promise<void> {
  let check = sessionChecks.get(request);
  if (!check) {
    check = (async () => {
      if (!getSession()) {
        const status = await api.authStatus();
        throw redirect(status.setup_required ? "/setup" : loginPath(pathOf(request)));
      }
      await queryClient.ensureQueryData(meQuery);
    })();
    sessionChecks.set(request, check);
  }
  return check;
}

/** A loader of a signed-in page: runs once the session is known good; a session the server refuses sends to login and back. */
export function withSession<T>(loader: (args: LoaderFunctionArgs) => Promise<T>): LoaderFunction {
  return async (args) => {
    try {
      await checkSession(args.request);
      return await loader(args);
    } catch (error) {
      if (isSessionEnded(error)) throw redirect(loginPath(pathOf(args.request), error.code));
      throw error;
    }
  };
}

export const shellLoader: LoaderFunction = withSession(async () => null);

export const setupLoader: LoaderFunction = async () => {
  const status = await api.authStatus();
  if (!status.setup_required) throw redirect(getSession() ? HOME_PATH : "/login");
  return null;
};

export const loginLoader: LoaderFunction = async ({ request }) => {
  const status = await api.authStatus();
  if (status.setup_required) throw redirect("/setup");
  if (getSession()) throw redirect(safeNextPath(new URL(request.url).searchParams.get("next")));
  return null;
};
