import { type RefObject, useEffect } from "react";

/**
 * Brings a result into view when it arrives (`key` turns from null to a value, or changes): scrolled
 * to only when its top is not already on screen, smoothly unless the user asked for reduced motion.
 */
export function useReveal(ref: RefObject<HTMLElement | null>, key: unknown): void {
  useEffect(() => {
    if (key === null || key === undefined || key === false) return;
    const el = ref.current;
    if (!el) return;
    const top = el.getBoundingClientRect().top;
    if (top >= 0 && top < window.innerHeight * 0.75) return;
    const reduced = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
    el.scrollIntoView({ behavior: reduced ? "auto" : "smooth", block: "start" });
  }, [ref, key]);
}
