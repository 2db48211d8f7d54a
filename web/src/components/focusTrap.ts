/** Keeping the keyboard focus inside a modal dialog. */

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * Keeps Tab and Shift+Tab inside `container`: from the last focusable element to the first and back.
 * (A modal <dialog> makes the page inert, but Chromium still lets Tab leave it for the browser's own
 * controls once; this closes that gap.) Returns whether it moved the focus.
 */
export function trapTab(
  container: HTMLElement,
  e: { key: string; shiftKey: boolean; preventDefault: () => void },
): boolean {
  if (e.key !== "Tab") return false;
  const items = Array.from(container.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (el) => el.getClientRects().length > 0,
  );
  if (items.length === 0) return false;
  const first = items[0];
  const last = items[items.length - 1];
  const active = document.activeElement;
  const inside = active instanceof HTMLElement && container.contains(active);
  if (e.shiftKey && (active === first || !inside)) {
    e.preventDefault();
    last.focus();
    return true;
  }
  if (!e.shiftKey && (active === last || !inside)) {
    e.preventDefault();
    first.focus();
    return true;
  }
  return false;
}
