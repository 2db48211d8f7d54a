import { DEFAULT_LANGUAGE, isSupportedLanguage, type Language } from "@kikitori/shared";
import { useParams } from "react-router";

/** The /{lang} prefix of the current route. */
export function useLang(): Language {
  const { lang } = useParams();
  return isSupportedLanguage(lang) ? lang : DEFAULT_LANGUAGE;
}
