import { createBrowserRouter, type LoaderFunctionArgs, redirect } from "react-router";
import { Layout } from "../components/Layout.tsx";
import { browserSources, detectLanguage } from "../i18n/detect.ts";
import { setLanguage } from "../i18n/index.ts";
import { AccountPage } from "../pages/AccountPage.tsx";
import { JobPage } from "../pages/JobPage.tsx";
import { LibraryPage } from "../pages/LibraryPage.tsx";
import { LoginPage } from "../pages/LoginPage.tsx";
import { NotFoundPage } from "../pages/NotFoundPage.tsx";
import { PasswordResetConfirmPage } from "../pages/PasswordResetConfirmPage.tsx";
import { PasswordResetPage } from "../pages/PasswordResetPage.tsx";
import { RegisterPage } from "../pages/RegisterPage.tsx";
import { RouteErrorPage } from "../pages/RouteErrorPage.tsx";
import { SummaryPage } from "../pages/SummaryPage.tsx";
import { TitlesPage } from "../pages/TitlesPage.tsx";
import { TranscriptionPage } from "../pages/TranscriptionPage.tsx";
import { UpgradePlanPage } from "../pages/UpgradePlanPage.tsx";
import { VerifyEmailPage } from "../pages/VerifyEmailPage.tsx";
import { SharedJobPage } from "../shared-view/SharedJobPage.tsx";
import { ROUTES, resolveLocation } from "./paths.ts";

/** Enforces the /{lang} prefix rules and switches the interface language to the prefix. */
async function languageLoader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const resolution = resolveLocation(url.pathname, url.search, url.hash, detectLanguage(browserSources(url.search)));
  if (resolution.kind === "redirect") throw redirect(resolution.to);
  await setLanguage(resolution.lang);
  return null;
}

export const router = createBrowserRouter([
  {
    errorElement: <RouteErrorPage />,
    hydrateFallbackElement: <div className="boot" />,
    children: [
      { path: "/", loader: languageLoader },
      {
        path: "/:lang",
        loader: languageLoader,
        element: <Layout />,
        children: [
          { path: ROUTES.transcription, element: <TranscriptionPage /> },
          { path: ROUTES.summary, element: <SummaryPage /> },
          { path: ROUTES.titles, element: <TitlesPage /> },
          { path: ROUTES.login, element: <LoginPage /> },
          { path: ROUTES.register, element: <RegisterPage /> },
          { path: ROUTES.passwordReset, element: <PasswordResetPage /> },
          { path: ROUTES.passwordResetConfirm, element: <PasswordResetConfirmPage /> },
          { path: ROUTES.verifyEmail, element: <VerifyEmailPage /> },
          { path: ROUTES.upgradePlan, element: <UpgradePlanPage /> },
          { path: ROUTES.account, element: <AccountPage /> },
          { path: ROUTES.library, element: <LibraryPage /> },
          { path: ROUTES.job, element: <JobPage /> },
          { path: ROUTES.shared, element: <SharedJobPage /> },
          { path: "*", element: <NotFoundPage /> },
        ],
      },
    ],
  },
]);
