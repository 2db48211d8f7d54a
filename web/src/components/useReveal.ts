import { type RefObject, useEffect } from "react";

/** Input by which the user takes over the scrolling (a correction must not fight it). */
const USER_SCROLL = ["wheel", "touchstart", "keydown", "pointerdown"] as const;

/**
 * Brings a result into view when it arrives (`key` turns from null to a value, or changes): scrolled
 * to only when its top is not already on screen, smoothly unless the user asked for reduced motion.
 * A smooth scroll runs to where the result was when it started; when the page above it changes size
 * meanwhile (the progress area settling as the job completes), it lands off (seen: 295 px past the
 * result's top). So once the scroll has ended, the result's top is put right again, unless the user
 * has scrolled or typed since.
 */
export function useReveal(ref: RefObject<HTMLElement | null>, key: unknown): void {
  useEffect(() => {
    if (key === null || key === undefined || key === false) return;
    const el = ref.current;
    if (!el) return;
    const off = () => {
      const top = el.getBoundingClientRect().top;
      return !(top > -1 && top < window.innerHeight * 0.75);
    };
    if (!off()) return;
    const reduced = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
    el.scrollIntoView({ behavior: reduced ? "auto" : "smooth", block: "start" });
    if (reduced) return;
    // Ends the watch (once the scroll has ended, the user took over, or the effect is cleaned up): with
    // its listeners and timer gone, settle cannot run again.
    const stop = () => {
      window.removeEventListener("scrollend", settle);
      for (const type of USER_SCROLL) window.removeEventListener(type, stop, true);
      clearTimeout(timer);
    };
    function settle() {
      stop();
      if (off()) el?.scrollIntoView({ behavior: "auto", block: "start" });
    }
    // `scrollend` where the browser has it; else (Safari) once a smooth scroll is surely over.
    window.addEventListener("scrollend", settle);
    for (const type of USER_SCROLL) window.addEventListener(type, stop, true);
    const timer = setTimeout(settle, 1500);
    return stop;
  }, [ref, key]);
}
