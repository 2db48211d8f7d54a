/** Where an error's link leads, so it can be named for it (pure, unit-tested). */
import { ROUTES, stripLanguage } from "../routing/paths.ts";

export type ErrorLinkKind = "plan" | "support";

/**
 * A server error's optional link: the plan page (QUOTA_EXCEEDED points there, under the server's
 * public URL, which may name this app by another host) is "plan", anything else a support page.
 * `sameOrigin` says whether it can be opened in this app without a page load.
 */
export function errorLinkKind(href: string, origin: string): { kind: ErrorLinkKind; sameOrigin: boolean } {
  let url: URL;
  try {
    url = new URL(href, origin);
  } catch {
    return { kind: "support", sameOrigin: false };
  }
  const sameOrigin = url.origin === new URL(origin).origin;
  const segments = url.pathname.split("/").filter(Boolean);
  const rest = stripLanguage(url.pathname).replace(/^\/+|\/+$/g, "");
  const plan = segments.length === 2 && rest === ROUTES.upgradePlan;
  return { kind: plan ? "plan" : "support", sameOrigin };
}
