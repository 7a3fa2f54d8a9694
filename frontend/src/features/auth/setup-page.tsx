import { CircleAlertIcon, LoaderCircleIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { FormField } from "@/components/form-field";
import { PageTitle } from "@/components/page-title";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ApiError, api } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";
import { HOME_PATH } from "@/lib/next-path";
import { AuthLayout } from "./auth-layout";
import { useAccountForm } from "./use-account-form";

/** First run: the person who opens a new studio creates the owner account. */
export function SetupPage() {
  const { t } = useTranslation();
  const { values, update, submit, fieldErrors, mutation } = useAccountForm(
    "setup",
    ({ name, email, password }) => api.setup({ email, password, ...(name ? { name } : {}) }),
    () => HOME_PATH,
  );
  const fieldError = (key?: string) => (key ? t(key) : null);
  const error = mutation.error;
  return (
    <AuthLayout title={t("auth.setup.title")} description={t("auth.setup.description")}>
      <PageTitle title={t("auth.setup.title")} />
      <form onSubmit={submit} noValidate className="grid gap-4" aria-describedby={error ? "setup-error" : undefined}>
        {error && (
          <Alert variant="destructive" id="setup-error">
            <CircleAlertIcon aria-hidden />
            <AlertDescription>
              <p>{errorMessage(t, error)}</p>
              {error instanceof ApiError && error.code === "SETUP_ALREADY_DONE" && (
                <Link to="/login" className="underline underline-offset-4">
                  {t("auth.login.submit")}
                </Link>
              )}
            </AlertDescription>
          </Alert>
        )}
        <FormField
          id="setup-name"
          label={t("auth.fields.nameOptional")}
          autoComplete="name"
          value={values.name}
          onChange={update("name")}
          error={fieldError(fieldErrors.name)}
        />
        <FormField
          id="setup-email"
          label={t("auth.fields.email")}
          type="email"
          autoComplete="email"
          required
          value={values.email}
          onChange={update("email")}
          error={fieldError(fieldErrors.email)}
        />
        <FormField
          id="setup-password"
          label={t("auth.fields.password")}
          type="password"
          autoComplete="new-password"
          required
          value={values.password}
          onChange={update("password")}
          hint={t("auth.fields.passwordHint")}
          error={fieldError(fieldErrors.password)}
        />
        <FormField
          id="setup-confirm"
          label={t("auth.fields.confirmPassword")}
          type="password"
          autoComplete="new-password"
          required
          value={values.confirm}
          onChange={update("confirm")}
          error={fieldError(fieldErrors.confirm)}
        />
        <Button type="submit" disabled={mutation.isPending}>
          {mutation.isPending && <LoaderCircleIcon className="animate-spin" aria-hidden />}
          {t("auth.setup.submit")}
        </Button>
      </form>
    </AuthLayout>
  );
}
