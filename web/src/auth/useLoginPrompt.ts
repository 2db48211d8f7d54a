import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";

/** A tool used while logged out: "Login required. Do you want to log in?"; OK goes to the login page. */
export function useLoginPrompt(): () => void {
  const { t } = useTranslation();
  const lang = useLang();
  const navigate = useNavigate();
  return () => {
    if (window.confirm(t("auth.loginRequired"))) navigate(localePath(lang, ROUTES.login));
  };
}
