import { useTranslation } from "react-i18next";

/** The transcript's search field, the count of lines found and the previous/next buttons. */
export function FindBar({
  query,
  onQuery,
  at,
  total,
  onStep,
}: {
  query: string;
  onQuery: (query: string) => void;
  /** The match shown (-1: none yet). */
  at: number;
  total: number;
  onStep: (direction: 1 | -1) => void;
}) {
  const { t } = useTranslation();
  return (
    <div className="ws-find">
      <label htmlFor="ws-find">{t("job.find.label")}</label>
      <input
        id="ws-find"
        type="search"
        data-testid="ws-find"
        value={query}
        dir="auto"
        onChange={(e) => onQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            onStep(e.shiftKey ? -1 : 1);
          }
        }}
      />
      <span className="muted" role="status" data-testid="ws-find-count" data-count={total}>
        {query.trim()
          ? total
            ? t("job.find.count", { current: Math.max(at, 0) + 1, total })
            : t("job.find.none")
          : ""}
      </span>
      <button
        type="button"
        className="btn btn-secondary btn-small"
        disabled={!total}
        aria-label={t("job.find.previous")}
        onClick={() => onStep(-1)}
      >
        ↑
      </button>
      <button
        type="button"
        className="btn btn-secondary btn-small"
        data-testid="ws-find-next"
        disabled={!total}
        aria-label={t("job.find.next")}
        onClick={() => onStep(1)}
      >
        ↓
      </button>
    </div>
  );
}
