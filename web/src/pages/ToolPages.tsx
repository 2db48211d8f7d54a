import { useTranslation } from "react-i18next";
import { usePageTitle } from "../components/usePageTitle.ts";

type Tool = "transcription" | "summary" | "titles";

/** The tool screens' shell: heading and one-line description. The tools themselves come later. */
function ToolIntro({ tool }: { tool: Tool }) {
  const { t } = useTranslation();
  usePageTitle(t(`tools.${tool}.title`));
  return (
    <section className="page">
      <header className="page-header">
        <h1 data-testid="page-title">{t(`tools.${tool}.title`)}</h1>
        <p className="lead">{t(`tools.${tool}.description`)}</p>
      </header>
    </section>
  );
}

export const SummaryPage = () => <ToolIntro tool="summary" />;
export const TitleHeaderGeneratorPage = () => <ToolIntro tool="titles" />;
