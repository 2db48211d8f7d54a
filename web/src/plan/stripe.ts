/**
 * Loads Stripe.js only when the server's provider is "stripe". The `pure` entry does not inject the
 * js.stripe.com script on import, and the dynamic import keeps it out of the app bundle, so the local
 * provider (the default) never touches the network beyond the app's own API.
 */
import type { Stripe } from "@stripe/stripe-js";

const loaded = new Map<string, Promise<Stripe | null>>();

export function getStripe(publishableKey: string): Promise<Stripe | null> {
  let p = loaded.get(publishableKey);
  if (!p) {
    p = import("@stripe/stripe-js/pure")
      .then((m) => m.loadStripe(publishableKey))
      .catch((e: unknown) => {
        loaded.delete(publishableKey); // let a later attempt retry
        throw e;
      });
    loaded.set(publishableKey, p);
  }
  return p;
}
