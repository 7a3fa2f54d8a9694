import { CircleAlertIcon, InfoIcon, LoaderCircleIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { useSearchParams } from "react-router";
import { FormField } from "@/components/form-field";
import { PageTitle } from "@/components/page-title";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { api, SESSION_ENDED_CODES } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";
import { safeNextPath } from "@/lib/next-path";
import { AuthLayout } from "./auth-layout";
import { useAccountForm } from "./use-account-form";

export function LoginPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const reason = params.get("reason");
  const { values, update, submit, fieldErrors, mutation } = useAccountForm(
    "login",
    ({ email, password }) => api.login({ email, password }),
    () => safeNextPath(params.get("next")),
  );
  const fieldError = (key?: string) => (key ? t(key) : null);
  return (
    <AuthLayout title={t("auth.login.title")} description={t("auth.login.description")}>
      <PageTitle title={t("auth.login.title")} />
      <form onSubmit={submit} noValidate className="grid gap-4">
        {mutation.error ? (
          <Alert variant="destructive">
            <CircleAlertIcon aria-hidden />
            <AlertDescription data-testid="login-error">{errorMessage(t, mutation.error)}</AlertDescription>
          </Alert>
        ) : (
          reason &&
          SESSION_ENDED_CODES.has(reason) && (
            <Alert>
              <InfoIcon aria-hidden />
              <AlertDescription data-testid="login-reason">{t(`errors.${reason}`)}</AlertDescription>
            </Alert>
          )
        )}
        <FormField
          id="login-email"
          label={t("auth.fields.email")}
          type="email"
          autoComplete="username"
          required
          value={values.email}
          onChange={update("email")}
          error={fieldError(fieldErrors.email)}
        />
        <FormField
          id="login-password"
          label={t("auth.fields.password")}
          type="password"
          autoComplete="current-password"
          required
          value={values.password}
          onChange={update("password")}
          error={fieldError(fieldErrors.password)}
        />
        <Button type="submit" disabled={mutation.isPending}>
          {mutation.isPending && <LoaderCircleIcon className="animate-spin" aria-hidden />}
          {t("auth.login.submit")}
        </Button>
      </form>
    </AuthLayout>
  );
}
