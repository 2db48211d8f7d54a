import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, Outlet, useLocation, useNavigate } from "react-router";
import { useAuth } from "../auth/AuthProvider.tsx";
import { LoginPromptProvider } from "../auth/LoginPromptDialog.tsx";
import { useAppConfig } from "../config/appConfig.ts";
import { localePath, ROUTES, showsFeatureTabs, showsShareBar } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { ExternalLink } from "./ExternalLink.tsx";
import { FeatureTabs } from "./FeatureTabs.tsx";
import { LanguageSelect } from "./LanguageSelect.tsx";
import { Logo } from "./Logo.tsx";
import { ScrollTopButton } from "./ScrollTopButton.tsx";
import { ShareBar } from "./ShareBar.tsx";

/** The menu's links: the library (logged in), the plan, how to use and contact (when configured). */
function MenuLinks() {
  const { t } = useTranslation();
  const lang = useLang();
  const config = useAppConfig();
  const { user } = useAuth();
  return (
    <ul className="menu-links">
      {user ? (
        <li>
          <Link to={localePath(lang, ROUTES.library)} className="menu-link" data-testid="nav-library">
            {t("nav.library")}
          </Link>
        </li>
      ) : null}
      <li>
        <Link to={localePath(lang, ROUTES.upgradePlan)} className="menu-link">
          {t("nav.plan")}
        </Link>
      </li>
      {config.howToUseUrl ? (
        <li>
          <ExternalLink href={config.howToUseUrl} className="menu-link">
            {t("nav.howToUse")}
          </ExternalLink>
        </li>
      ) : null}
      {config.contactUrl ? (
        <li>
          <ExternalLink href={config.contactUrl} className="menu-link">
            {t("nav.contact")}
          </ExternalLink>
        </li>
      ) : null}
    </ul>
  );
}

/** The menu's language and account: the account logged in and logging out, or logging in. */
function MenuAccount() {
  const { t } = useTranslation();
  const lang = useLang();
  const { user, logout } = useAuth();
  const navigate = useNavigate();
  const onLogout = async () => {
    await logout();
    navigate(localePath(lang, ROUTES.login));
  };
  return (
    <div className="menu-actions">
      <LanguageSelect />
      {user ? (
        <>
          {/* Which account is logged in; its page holds password, e-mail, payments, data and deletion. */}
          <Link
            to={localePath(lang, ROUTES.account)}
            className="btn btn-ghost nav-account"
            data-testid="nav-account"
            title={user.email}
          >
            <span className="nav-account-label">{t("nav.account")}</span>
            <span className="nav-account-email" dir="ltr">
              {user.email}
            </span>
          </Link>
          <button type="button" className="btn btn-secondary" data-testid="nav-logout" onClick={onLogout}>
            {t("nav.logout")}
          </button>
        </>
      ) : (
        <Link to={localePath(lang, ROUTES.login)} className="btn btn-primary" data-testid="nav-login">
          {t("nav.login")}
        </Link>
      )}
    </div>
  );
}

/** The copyright line and the terms and privacy links (when configured). */
function SiteFooter() {
  const { t } = useTranslation();
  const config = useAppConfig();
  const year = new Date().getFullYear();
  return (
    <footer className="site-footer">
      <div className="container footer-inner">
        <span>{t("footer.copyright", { year, appName: config.appName })}</span>
        <span className="footer-links">
          {config.termsUrl ? <ExternalLink href={config.termsUrl}>{t("footer.terms")}</ExternalLink> : null}
          {config.privacyUrl ? <ExternalLink href={config.privacyUrl}>{t("footer.privacy")}</ExternalLink> : null}
        </span>
      </div>
    </footer>
  );
}

export function Layout() {
  const { t } = useTranslation();
  const lang = useLang();
  const config = useAppConfig();
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);

  // Close the mobile menu whenever the page changes.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on navigation on purpose
  useEffect(() => setMenuOpen(false), [location.pathname]);

  // Escape closes the open mobile menu and puts the focus back on its toggle.
  const menuToggle = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || e.defaultPrevented) return;
      setMenuOpen(false);
      menuToggle.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [menuOpen]);

  return (
    <div className="app-shell">
      <a className="skip-link" href="#main">
        {t("app.skipToContent")}
      </a>
      <header className="site-header">
        <div className="container header-inner">
          <Link
            to={localePath(lang, ROUTES.transcription)}
            className="brand"
            aria-label={t("nav.home", { appName: config.appName })}
          >
            <Logo />
            <span className="brand-name">{config.appName}</span>
          </Link>
          <button
            ref={menuToggle}
            type="button"
            className="menu-toggle"
            data-testid="menu-toggle"
            aria-expanded={menuOpen}
            aria-controls="site-menu"
            aria-label={menuOpen ? t("nav.closeMenu") : t("nav.openMenu")}
            onClick={() => setMenuOpen((o) => !o)}
          >
            <span className="menu-bars" aria-hidden="true" />
          </button>
          <nav id="site-menu" className={menuOpen ? "site-menu open" : "site-menu"} aria-label={t("nav.mainLabel")}>
            <MenuLinks />
            <MenuAccount />
          </nav>
        </div>
      </header>
      {showsFeatureTabs(location.pathname) ? <FeatureTabs /> : null}
      <main id="main" className="site-main" tabIndex={-1}>
        <div className="container">
          <LoginPromptProvider>
            <Outlet />
          </LoginPromptProvider>
          {showsShareBar(location.pathname) ? <ShareBar /> : null}
        </div>
      </main>
      <SiteFooter />
      <ScrollTopButton />
    </div>
  );
}
