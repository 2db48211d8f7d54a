import { useTranslation } from "react-i18next";
import { NavLink } from "react-router";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";

const TABS = [
  { route: ROUTES.transcription, key: "tabs.transcription", testId: "tab-transcription" },
  { route: ROUTES.summary, key: "tabs.summary", testId: "tab-summary" },
  { route: ROUTES.titles, key: "tabs.titles", testId: "tab-title" },
] as const;

/** The three tool tabs. */
export function FeatureTabs() {
  const { t } = useTranslation();
  const lang = useLang();
  return (
    <nav className="feature-tabs" aria-label={t("tabs.label")}>
      <div className="container feature-tabs-inner">
        {TABS.map((tab) => (
          <NavLink
            key={tab.route}
            to={localePath(lang, tab.route)}
            className={({ isActive }) => (isActive ? "tab active" : "tab")}
            data-testid={tab.testId}
          >
            {t(tab.key)}
          </NavLink>
        ))}
      </div>
    </nav>
  );
}
