import { LIBRARY_SORTS, type LibrarySort } from "@kikitori/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, Navigate, useSearchParams } from "react-router";
import { useAuth } from "../auth/AuthProvider.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { errorText } from "../i18n/errorText.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { listLibrary } from "./api.ts";
import { LibraryItem } from "./LibraryItem.tsx";

export const PAGE_SIZE = 20;
const SEARCH_DELAY_MS = 300;

/**
 * The library (/{lang}/transcriptions): every job of the user with its title, date, duration,
 * language, status and speakers; search across titles and texts, sort, pages; rename, delete and
 * retry in place. Search, sort and page live in the address, so Back and a shared link keep them.
 */
export function LibraryPage() {
  const { user } = useAuth();
  const lang = useLang();
  usePageMeta("library");
  if (!user) return <Navigate to={localePath(lang, ROUTES.login)} replace />;
  return <Library key={user.uid} uid={user.uid} />;
}

/** Previous and next page of the library, and which page of how many. */
function LibraryPager({ page, pages, onPage }: { page: number; pages: number; onPage: (page: number) => void }) {
  const { t } = useTranslation();
  return (
    <nav className="lib-pages" aria-label={t("library.pagination")}>
      <button
        type="button"
        className="btn btn-secondary btn-small"
        data-testid="lib-prev"
        disabled={page <= 1}
        onClick={() => onPage(page - 1)}
      >
        {t("library.previous")}
      </button>
      <span data-testid="lib-page">{t("library.pageOf", { page, pages })}</span>
      <button
        type="button"
        className="btn btn-secondary btn-small"
        data-testid="lib-next"
        disabled={page >= pages}
        onClick={() => onPage(page + 1)}
      >
        {t("library.next")}
      </button>
    </nav>
  );
}

function Library({ uid }: { uid: string }) {
  const { t } = useTranslation();
  const lang = useLang();
  const [params, setParams] = useSearchParams();
  const q = params.get("q") ?? "";
  const sortParam = params.get("sort") ?? "";
  const sort = (LIBRARY_SORTS as readonly string[]).includes(sortParam) ? (sortParam as LibrarySort) : "";
  const page = Math.max(1, Number.parseInt(params.get("page") ?? "1", 10) || 1);
  const [typed, setTyped] = useState(q);

  const update = (next: Record<string, string>) => {
    const p = new URLSearchParams(params);
    for (const [k, v] of Object.entries(next)) {
      if (v) p.set(k, v);
      else p.delete(k);
    }
    setParams(p, { replace: true });
  };

  // Typing searches after a short pause (from page 1).
  // biome-ignore lint/correctness/useExhaustiveDependencies: only the typed text triggers a search
  useEffect(() => {
    if (typed === q) return;
    const timer = setTimeout(() => update({ q: typed.trim() ? typed : "", page: "" }), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [typed]);

  const list = useQuery({
    queryKey: ["library", uid, q, sort, page],
    queryFn: ({ signal }) => listLibrary({ q, sort, page, limit: PAGE_SIZE }, signal),
    placeholderData: keepPreviousData,
  });
  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));

  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    update({ q: typed.trim() ? typed : "", page: "" });
  };

  return (
    <section className="page lib-page">
      <PageHeader title={t("library.title")} lead={t("library.lead")} />
      <div className="card lib-card">
        <form className="lib-controls" onSubmit={onSearch}>
          <div className="field lib-search">
            <label htmlFor="lib-q">{t("library.search")}</label>
            <input
              id="lib-q"
              type="search"
              data-testid="lib-search"
              value={typed}
              maxLength={200}
              dir="auto"
              placeholder={t("library.searchPlaceholder")}
              onChange={(e) => setTyped(e.target.value)}
            />
          </div>
          <div className="field lib-sort">
            <label htmlFor="lib-sort">{t("library.sort")}</label>
            <select
              id="lib-sort"
              data-testid="lib-sort"
              value={sort || (q ? "relevance" : "newest")}
              onChange={(e) => update({ sort: e.target.value, page: "" })}
            >
              {LIBRARY_SORTS.filter((s) => s !== "relevance" || q).map((s) => (
                <option key={s} value={s}>
                  {t(`library.sorts.${s}`)}
                </option>
              ))}
            </select>
          </div>
        </form>

        <p className="muted lib-count" role="status" data-testid="lib-count" data-total={total}>
          {list.isPending ? t("job.loading") : t("library.count", { count: total })}
        </p>

        {list.isError ? (
          <p className="alert alert-error" role="alert">
            {errorText(t, list.error)}
          </p>
        ) : list.data && list.data.jobs.length === 0 ? (
          <p className="lib-empty" data-testid="lib-empty">
            {q ? (
              t("library.noMatch", { q })
            ) : (
              <>
                {t("library.empty")} <Link to={localePath(lang, ROUTES.transcription)}>{t("library.startOne")}</Link>
              </>
            )}
          </p>
        ) : list.data ? (
          <ul className="lib-list" data-testid="lib-list" aria-busy={list.isFetching}>
            {list.data.jobs.map((job) => (
              <LibraryItem key={job.jobId} job={job} uid={uid} query={q} />
            ))}
          </ul>
        ) : null}

        {pages > 1 ? (
          <LibraryPager page={page} pages={pages} onPage={(n) => update({ page: n > 1 ? String(n) : "" })} />
        ) : null}
      </div>
    </section>
  );
}
