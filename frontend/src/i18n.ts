// Translations: each language is a chunk of its own, loaded before the first render (only the one
// in use), so the first page does not carry every language the studio speaks.
import i18n from "i18next";
import { initReactI18next } from "react-i18next";

export const LANGUAGES = ["en", "vi"] as const;
export type Language = (typeof LANGUAGES)[number];
export const LANGUAGE_KEY = "superstep.lang";

/** Each language's name in that language (what the language switch shows, whatever the UI language). */
export const LANGUAGE_NAMES: Record<Language, string> = { en: "English", vi: "Tiếng Việt" };

const bundles: Record<Language, () => Promise<{ default: Record<string, unknown> }>> = {
  en: () => import("./locales/en.json"),
  vi: () => import("./locales/vi.json"),
};

function savedLanguage(): Language {
  const saved = typeof localStorage !== "undefined" ? localStorage.getItem(LANGUAGE_KEY) : null;
  return saved === "vi" ? "vi" : "en";
}

async function ensureLanguage(lang: Language): Promise<void> {
  if (i18n.hasResourceBundle(lang, "translation")) return;
  i18n.addResourceBundle(lang, "translation", (await bundles[lang]()).default);
}

// Screen readers pick their voice from <html lang>; index.html sets it before the first paint too.
function syncDocumentLanguage(lang: string): void {
  if (typeof document !== "undefined") document.documentElement.lang = lang;
}

/** Resolves once the saved language's texts are loaded: render after it. */
export const i18nReady: Promise<void> = (async () => {
  const lang = savedLanguage();
  const bundle = await bundles[lang]();
  await i18n.use(initReactI18next).init({
    resources: { [lang]: { translation: bundle.default } },
    lng: lang,
    fallbackLng: "en",
    partialBundledLanguages: true,
    interpolation: { escapeValue: false },
  });
  syncDocumentLanguage(i18n.language);
  i18n.on("languageChanged", syncDocumentLanguage);
})();

export async function setLanguage(lang: Language): Promise<void> {
  await ensureLanguage(lang);
  localStorage.setItem(LANGUAGE_KEY, lang);
  await i18n.changeLanguage(lang);
}

export function currentLanguage(): Language {
  return i18n.language === "vi" ? "vi" : "en";
}

export default i18n;
