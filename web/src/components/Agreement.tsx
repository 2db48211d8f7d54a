import { Trans } from "react-i18next";
import { useAppConfig } from "../config/appConfig.ts";
import { ExternalLink } from "./ExternalLink.tsx";

/** "By logging in (registering) you agree to the terms of use and privacy policy", with links. */
export function Agreement({ kind }: { kind: "login" | "register" }) {
  const config = useAppConfig();
  return (
    <p className="agreement">
      <Trans
        i18nKey={kind === "login" ? "auth.agreementLogin" : "auth.agreementRegister"}
        components={{
          terms: <ExternalLink href={config.termsUrl} />,
          privacy: <ExternalLink href={config.privacyUrl} />,
        }}
      />
    </p>
  );
}
