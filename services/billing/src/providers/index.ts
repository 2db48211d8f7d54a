import type { BillingConfig } from "../config.ts";
import { LocalCardProvider } from "./local.ts";
import type { CardProvider } from "./port.ts";
import { StripeCardProvider } from "./stripe.ts";

export function createProvider(cfg: BillingConfig): CardProvider {
  if (cfg.PAYMENT_PROVIDER === "stripe") return new StripeCardProvider(cfg.stripe);
  return new LocalCardProvider(cfg.localPaymentKey);
}
