import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";

/** One click onward: the summary and title tools, opened with the interview text filled in. */
const ONWARD = [
  { tool: "summary", label: "transcription.onwardSummary" },
  { tool: "titles", label: "transcription.onwardTitles" },
] as const;

export function OnwardLinks({ text }: { text: string }) {
  const { t } = useTranslation();
  const lang = useLang();
  return (
    <p className="tx-onward">
      {ONWARD.map(({ tool, label }) => (
        <Link
          key={tool}
          className="btn btn-secondary"
          data-testid={`tx-onward-${tool}`}
          to={localePath(lang, ROUTES[tool])}
          state={{ text }}
        >
          {t(label)}
        </Link>
      ))}
    </p>
  );
}
