import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useAppConfig } from "../config/appConfig.ts";

/** Sets document.title to "<page> | <app name>". */
export function usePageTitle(page: string): void {
  const { t } = useTranslation();
  const { appName } = useAppConfig();
  useEffect(() => {
    document.title = page ? t("meta.title", { page, appName }) : appName;
  }, [page, appName, t]);
}
