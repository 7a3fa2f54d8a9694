import i18n from "i18next";
import { initReactI18next } from "react-i18next";
import en from "./locales/en.json";
import vi from "./locales/vi.json";

const saved = typeof localStorage !== "undefined" ? localStorage.getItem("superstep.lang") : null;

void i18n.use(initReactI18next).init({
  resources: { en: { translation: en }, vi: { translation: vi } },
  lng: saved === "vi" ? "vi" : "en",
  fallbackLng: "en",
  interpolation: { escapeValue: false },
});

export function setLanguage(lang: "en" | "vi"): void {
  localStorage.setItem("superstep.lang", lang);
  void i18n.changeLanguage(lang);
}

export default i18n;
