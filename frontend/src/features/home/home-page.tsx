import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { setLanguage } from "../../i18n";
import { ApiError, type AuthStatus, api, type Health } from "../../lib/api";

type Loaded = { health: Health; auth: AuthStatus };

export function HomePage() {
  const { t, i18n } = useTranslation();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [errorCode, setErrorCode] = useState<string | null>(null);

  useEffect(() => {
    Promise.all([api.health(), api.authStatus()])
      .then(([health, auth]) => setLoaded({ health, auth }))
      .catch((error: unknown) => setErrorCode(error instanceof ApiError ? error.code : "INTERNAL"));
  }, []);

  return (
    <main className="page">
      <header className="header">
        <h1>{t("app.title")}</h1>
        <label>
          {t("home.language")}{" "}
          <select
            aria-label={t("home.language")}
            value={i18n.language}
            onChange={(event) => setLanguage(event.target.value === "vi" ? "vi" : "en")}
          >
            <option value="en">English</option>
            <option value="vi">Tiếng Việt</option>
          </select>
        </label>
      </header>
      <p className="tagline">{t("app.tagline")}</p>
      <section className="card" aria-labelledby="status-title">
        <h2 id="status-title">{t("home.status")}</h2>
        {errorCode && (
          <p role="alert" className="error">
            {t(`errors.${errorCode}`, { defaultValue: t("errors.INTERNAL") })}
          </p>
        )}
        {!errorCode && !loaded && <p>{t("home.loading")}</p>}
        {loaded && (
          <>
            <dl data-testid="health">
              <dt>{t("home.version")}</dt>
              <dd>{loaded.health.version}</dd>
              <dt>{t("home.database")}</dt>
              <dd data-testid="health-db">{loaded.health.db}</dd>
              <dt>{t("home.queue")}</dt>
              <dd>{loaded.health.queue}</dd>
              <dt>{t("home.import")}</dt>
              <dd>{loaded.health.import_enabled ? t("home.enabled") : t("home.disabled")}</dd>
            </dl>
            <p data-testid="setup-state">{loaded.auth.setup_required ? t("home.setupRequired") : t("home.ready")}</p>
          </>
        )}
        <a href="/api/docs">{t("home.apiDocs")}</a>
      </section>
    </main>
  );
}
