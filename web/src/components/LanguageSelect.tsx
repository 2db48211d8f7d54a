import { type Language, SUPPORTED_LANGUAGES } from "@kikitori/shared";
import { useTranslation } from "react-i18next";
import { useLocation, useNavigate } from "react-router";
import { NATIVE_LANGUAGE_NAMES } from "../i18n/languages.ts";
import { switchLanguagePath } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";

/** The language menu: all 24 interface languages, each named in itself (and tagged with its own lang). */
export function LanguageSelect() {
  const { t } = useTranslation();
  const lang = useLang();
  const location = useLocation();
  const navigate = useNavigate();

  return (
    <div className="language-select">
      <label htmlFor="language-select" className="visually-hidden">
        {t("nav.language")}
      </label>
      <svg className="language-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
        <circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" strokeWidth="1.6" />
        <path
          d="M3 12h18M12 3c2.5 2.6 3.8 5.6 3.8 9s-1.3 6.4-3.8 9c-2.5-2.6-3.8-5.6-3.8-9S9.5 5.6 12 3z"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.6"
        />
      </svg>
      <select
        id="language-select"
        data-testid="language-select"
        value={lang}
        onChange={(e) =>
          navigate(switchLanguagePath(location.pathname, e.target.value as Language, location.search, location.hash))
        }
      >
        {SUPPORTED_LANGUAGES.map((code) => (
          <option key={code} value={code} lang={code} dir="auto">
            {NATIVE_LANGUAGE_NAMES[code]}
          </option>
        ))}
      </select>
    </div>
  );
}
