import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";

export const SCROLL_TOP_THRESHOLD_PX = 300;

/** Narrow screens, where the button would sit on the text being read. */
const NARROW = "(max-width: 767.98px)";

/**
 * Whether the button shows: after 300 px of scroll; on a narrow screen only while the reader scrolls
 * back up (heading for the top), so it never covers the lines being read on the way down. Pure.
 */
export function scrollTopVisible(y: number, previousY: number, narrow: boolean, wasVisible: boolean): boolean {
  if (y <= SCROLL_TOP_THRESHOLD_PX) return false;
  if (!narrow) return true;
  if (y < previousY) return true;
  if (y > previousY) return false;
  return wasVisible;
}

/** Appears after 300 px of scroll (on narrow screens when scrolling up); scrolls back to the top. */
export function ScrollTopButton() {
  const { t } = useTranslation();
  const [visible, setVisible] = useState(false);

  useEffect(() => {
    let last = window.scrollY;
    const narrow = window.matchMedia?.(NARROW);
    const onScroll = () => {
      const y = window.scrollY;
      setVisible((was) => scrollTopVisible(y, last, !!narrow?.matches, was));
      last = y;
    };
    onScroll();
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => window.removeEventListener("scroll", onScroll);
  }, []);

  if (!visible) return null;
  return (
    <button
      type="button"
      className="scroll-top"
      data-testid="scroll-top"
      aria-label={t("scrollTop")}
      title={t("scrollTop")}
      onClick={() => {
        const reduce = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
        window.scrollTo({ top: 0, behavior: reduce ? "auto" : "smooth" });
      }}
    >
      <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
        <path
          d="M12 19V5M5 12l7-7 7 7"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
    </button>
  );
}
