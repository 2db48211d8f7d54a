// The card on file (docs/decisions/0027-finished-summaries-steered-titles-billing-trust.md): replaced
// from the account page without a plan change. The provider attaches the new card to the user's
// customer first; only a card it accepted is stored, and the next upgrade or renewal uses it.
import { AppError } from "@kikitori/shared";
import { type BillingDeps, currencyOf, loadUser } from "./context.ts";
import { ProviderError } from "./providers/port.ts";

export async function replaceCard(
  deps: BillingDeps,
  uid: string,
  paymentMethodId: string,
): Promise<{ paymentMethod: { brand: string; last4: string } }> {
  const user = await loadUser(deps, uid, deps.now());
  const { provider, db } = deps;
  try {
    const customerId = await provider.ensureCustomer(user, user.subscription?.customerId ?? null);
    const card = await provider.attachPaymentMethod(customerId, paymentMethodId);
    const stored = { paymentMethodId: card.id, cardBrand: card.brand, cardLast4: card.last4.slice(-4) };
    await db.subscription.upsert({
      where: { userId: uid },
      create: {
        userId: uid,
        provider: provider.name,
        currency: currencyOf(deps, user, undefined),
        customerId,
        ...stored,
      },
      update: { customerId, provider: provider.name, ...stored },
    });
    deps.logger.info({ uid, brand: card.brand }, "card on file replaced");
    return { paymentMethod: { brand: card.brand, last4: stored.cardLast4 } };
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    if (err.kind === "unavailable") {
      throw new AppError("PAYMENT_PROVIDER_ERROR", "The payment service could not be reached. Please try again.");
    }
    if (err.kind === "card") {
      throw new AppError("PAYMENT_DECLINED", err.message, { details: { reason: err.declineCode ?? err.code } });
    }
    throw new AppError("PAYMENT_METHOD_INVALID", "This card could not be used.", { details: { reason: err.code } });
  }
}
