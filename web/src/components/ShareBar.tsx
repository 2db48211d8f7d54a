import { useTranslation } from "react-i18next";
import { useLocation } from "react-router";
import { useAppConfig } from "../config/appConfig.ts";
import { NETWORK_NAMES, popupFeatures, SHARE_NETWORKS, type ShareNetwork, shareUrl } from "./shareLinks.ts";

const ICONS: Record<ShareNetwork, string> = {
  facebook:
    "M24 12.07C24 5.41 18.63 0 12 0S0 5.4 0 12.07C0 18.1 4.39 23.1 10.13 24v-8.44H7.08v-3.49h3.04V9.41c0-3.02 1.8-4.7 4.54-4.7 1.31 0 2.68.24 2.68.24v2.97h-1.5c-1.5 0-1.96.93-1.96 1.89v2.26h3.32l-.53 3.5h-2.8V24C19.62 23.1 24 18.1 24 12.07",
  x: "M18.9 1.15h3.68l-8.04 9.19L24 22.85h-7.4l-5.8-7.58-6.64 7.58H.48l8.6-9.83L0 1.15h7.59l5.24 6.93zm-1.29 19.5h2.04L6.48 3.24H4.3z",
  line: "M19.37 9.86c.39 0 .7.31.7.7s-.31.7-.7.7h-1.95v1.25h1.95c.39 0 .7.31.7.7s-.31.7-.7.7h-2.65a.7.7 0 0 1-.7-.7V8.16c0-.38.32-.7.7-.7h2.65c.39 0 .7.32.7.7s-.31.7-.7.7h-1.95v1.2zm-4.28 3.35a.7.7 0 0 1-.7.7.69.69 0 0 1-.57-.28l-2.71-3.68v3.26a.7.7 0 0 1-1.4 0V8.16a.7.7 0 0 1 .7-.7c.21 0 .42.11.55.28l2.73 3.7V8.16c0-.38.31-.7.7-.7.38 0 .7.32.7.7zm-6.38 0a.7.7 0 0 1-1.4 0V8.16c0-.38.32-.7.7-.7.39 0 .7.32.7.7zm-2.74.7H3.32a.7.7 0 0 1-.7-.7V8.16c0-.38.32-.7.7-.7.39 0 .7.32.7.7v4.35h1.95c.39 0 .7.31.7.7s-.31.7-.7.7M24 10.31C24 4.94 18.62.57 12 .57S0 4.94 0 10.31c0 4.81 4.27 8.85 10.03 9.61.39.08.92.26 1.06.59.12.3.08.78.04 1.09l-.17 1.02c-.05.3-.24 1.19 1.05.65 1.29-.54 6.92-4.08 9.44-6.98C23.19 14.39 24 12.46 24 10.31",
  linkedin:
    "M20.45 20.45h-3.56v-5.57c0-1.33-.02-3.04-1.85-3.04-1.85 0-2.14 1.45-2.14 2.94v5.67H9.35V9h3.41v1.56h.05c.48-.9 1.64-1.85 3.37-1.85 3.6 0 4.27 2.37 4.27 5.46zM5.34 7.43a2.06 2.06 0 1 1 0-4.13 2.06 2.06 0 0 1 0 4.13M7.12 20.45H3.56V9h3.56zM22.22 0H1.77C.79 0 0 .77 0 1.73v20.54C0 23.23.79 24 1.77 24h20.45c.98 0 1.78-.77 1.78-1.73V1.73C24 .77 23.2 0 22.22 0",
};

/** A row of share buttons; each opens the network's share page in a popup window. */
export function ShareBar() {
  const { t } = useTranslation();
  const { appName } = useAppConfig();
  const { pathname } = useLocation();

  const open = (network: ShareNetwork) => {
    const url = shareUrl(network, {
      url: window.location.origin + pathname,
      title: t("share.title", { appName }),
      description: t("share.description"),
      hashtags: t("share.hashtags"),
    });
    const popup = window.open(url, `share-${network}`, popupFeatures(window.screen.width, window.screen.height));
    if (popup)
      popup.opener = null; // the share page must not be able to navigate this tab
    else window.open(url, "_blank", "noopener"); // popup blocked: a normal tab instead
  };

  return (
    <nav className="share-bar" aria-label={t("share.label")} data-testid="share-bar">
      <span className="share-label">{t("share.label")}</span>
      <ul className="share-list">
        {SHARE_NETWORKS.map((network) => (
          <li key={network}>
            <button
              type="button"
              className={`share-button share-${network}`}
              data-testid={`share-${network}`}
              aria-label={t("share.on", { network: NETWORK_NAMES[network] })}
              title={t("share.on", { network: NETWORK_NAMES[network] })}
              onClick={() => open(network)}
            >
              <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
                <path d={ICONS[network]} fill="currentColor" />
              </svg>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
