import { LanguagesIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Button } from "@/components/ui/button";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuLabel,
  DropdownMenuRadioGroup,
  DropdownMenuRadioItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";
import { currentLanguage, LANGUAGE_NAMES, LANGUAGES, type Language, setLanguage } from "@/i18n";

/** English / Tiếng Việt, each named in its own language; the choice is remembered. */
export function LanguageSwitch() {
  const { t } = useTranslation();
  const language = currentLanguage();
  const nameOf = (lang: Language) => LANGUAGE_NAMES[lang];
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="sm" aria-label={t("shell.languageCurrent", { language: nameOf(language) })}>
          <LanguagesIcon aria-hidden />
          <span className="hidden sm:inline">{nameOf(language)}</span>
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end">
        <DropdownMenuLabel>{t("shell.language")}</DropdownMenuLabel>
        <DropdownMenuSeparator />
        <DropdownMenuRadioGroup value={language} onValueChange={(value) => void setLanguage(value as Language)}>
          {LANGUAGES.map((lang) => (
            <DropdownMenuRadioItem key={lang} value={lang} lang={lang}>
              {nameOf(lang)}
            </DropdownMenuRadioItem>
          ))}
        </DropdownMenuRadioGroup>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
