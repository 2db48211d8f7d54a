import { createBrowserRouter, type LoaderFunctionArgs, redirect } from "react-router";
import { AccountPage } from "../account/AccountPage.tsx";
import { LoginPage } from "../auth/LoginPage.tsx";
import { PasswordResetConfirmPage } from "../auth/PasswordResetConfirmPage.tsx";
import { PasswordResetPage } from "../auth/PasswordResetPage.tsx";
import { RegisterPage } from "../auth/RegisterPage.tsx";
import { VerifyEmailPage } from "../auth/VerifyEmailPage.tsx";
import { Layout } from "../components/Layout.tsx";
import { browserSources, detectLanguage } from "../i18n/detect.ts";
import { setLanguage } from "../i18n/index.ts";
import { UpgradePlanPage } from "../plan/UpgradePlanPage.tsx";
import { SharedJobPage } from "../shared-view/SharedJobPage.tsx";
import { SummaryPage } from "../text-tools/SummaryPage.tsx";
import { TitlesPage } from "../text-tools/TitlesPage.tsx";
import { TranscriptionPage } from "../transcription/TranscriptionPage.tsx";
import { JobPage } from "../workspace/JobPage.tsx";
import { LibraryPage } from "../workspace/LibraryPage.tsx";
import { NotFoundPage } from "./NotFoundPage.tsx";
import { ROUTES, resolveLocation } from "./paths.ts";
import { RouteErrorPage } from "./RouteErrorPage.tsx";

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
