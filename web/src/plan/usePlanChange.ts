import { FREE_PLAN, type PlanName } from "@kikitori/shared";
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useRef, useState } from "react";
import { refetchAfterWrite } from "../api/refetch.ts";
import { useAuth } from "../auth/AuthProvider.tsx";
import { useLang } from "../routing/useLang.ts";
import {
  createOrUpdateSubscription,
  fetchQuote,
  subscriptionKeyPrefix,
  useCurrentSubscription,
  usePlans,
} from "./api.ts";
import {
  applyPlanChange,
  type ChangeBody,
  keepCurrentPlan,
  type PlanChangeOutcome,
  preparePayment,
  resumePayment,
} from "./flow.ts";
import { formatDate } from "./format.ts";
import type { CardFieldHandle } from "./LocalCardForm.tsx";
import { noticeFromError } from "./notice.ts";
import type { PlanReview } from "./PlanConfirm.tsx";
import { parseSubscriptionResult, type SubscriptionState } from "./parse.ts";
import { isPaidPlan, planChange, priceDifference } from "./pricing.ts";
import { usePaymentProvider } from "./usePaymentProvider.ts";
import { useUsage } from "./useUsage.ts";

/** What the plan screen shows, worked out from the subscription, the usage, the plans and the choice. */
function planFacts(
  sub: SubscriptionState | undefined,
  usage: ReturnType<typeof useUsage>["data"],
  plans: ReturnType<typeof usePlans>["data"],
  chosen: PlanName | null,
  lang: string,
) {
  const currentPlan: PlanName = sub?.plan ?? usage?.plan ?? FREE_PLAN;
  const selected: PlanName = chosen ?? currentPlan;
  const billingDate = (isPaidPlan(currentPlan) ? sub?.nextBillingDate : null) ?? usage?.resetDate ?? null;
  return {
    currentPlan,
    selected,
    change: planChange(currentPlan, selected),
    pending: sub ? sub.pendingPlan : (usage?.pendingPlan ?? null),
    billingDate,
    dateText: billingDate ? formatDate(billingDate, lang) : "",
    currency: plans?.currency ?? "USD",
    diff: plans ? priceDifference(plans.plans, currentPlan, selected) : null,
  };
}

/** The usage, the plans and the subscription, and what the screen shows from them for the choice. */
function usePlanData(uid: string, chosen: PlanName | null) {
  const lang = useLang();
  const usage = useUsage(uid);
  const plans = usePlans(uid, lang);
  const current = useCurrentSubscription(uid, lang);
  const sub = current.data;
  return { usage, plans, current, sub, ...planFacts(sub, usage.data, plans.data, chosen, lang) };
}

/**
 * Sends a plan change, keeping what the payment is for: its plan, and the amount the server says is
 * charged (both shown in the 3-D Secure dialog; a payment left waiting sets them when it is resumed).
 */
function useChargeSubmit() {
  const lang = useLang();
  /** What the payment awaiting the bank's confirmation is for (shown in the 3-D Secure dialog). */
  const [authCharge, setAuthCharge] = useState<{ amount: number; currency: string } | null>(null);
  /** The plan that payment is for: the one being bought, also when a payment left waiting is resumed. */
  const [authPlan, setAuthPlan] = useState<PlanName | null>(null);
  const submit = async (body: ChangeBody) => {
    setAuthPlan(body.selectedPlan);
    const raw = await createOrUpdateSubscription({ ...body, lang });
    setAuthCharge(parseSubscriptionResult(raw).charged ?? null);
    return raw;
  };
  return { authCharge, setAuthCharge, authPlan, setAuthPlan, submit };
}

/**
 * Runs one plan action at a time with the processing state, shows its outcome (then `onDone`) and
 * refreshes plan and usage.
 */
function usePlanRun(uid: string, onDone: (outcome: PlanChangeOutcome) => void) {
  const queryClient = useQueryClient();
  const [processing, setProcessing] = useState(false);
  const [result, setResult] = useState<PlanChangeOutcome | null>(null);
  const run = async (action: () => Promise<PlanChangeOutcome>) => {
    if (processing) return;
    setProcessing(true);
    setResult(null);
    const outcome = await action();
    setResult(outcome.kind === "noop" ? null : outcome);
    setProcessing(false);
    onDone(outcome);
    if (outcome.kind !== "noop") {
      void refetchAfterWrite(queryClient, ["usage"]);
      void refetchAfterWrite(queryClient, subscriptionKeyPrefix(uid));
    }
  };
  return { processing, setProcessing, result, setResult, run };
}

/**
 * The plan screen's state and actions: the plan chosen, a new card or the saved one, the upgrade's
 * review before anything is charged, the payment (with the bank's confirmation) and its outcome.
 */
export function usePlanChange(uid: string) {
  const lang = useLang();
  const { user } = useAuth();

  const [chosen, setChosen] = useState<PlanName | null>(null);
  const [newCard, setNewCard] = useState(false);
  /** The confirmation step of an upgrade: amount and card, shown before anything is charged. */
  const [review, setReview] = useState<PlanReview | null>(null);
  const { authCharge, setAuthCharge, authPlan, setAuthPlan, submit } = useChargeSubmit();
  const { processing, setProcessing, result, setResult, run } = usePlanRun(uid, (outcome) => {
    setReview(null);
    if (outcome.kind === "success") {
      setChosen(null);
      setNewCard(false);
    }
  });
  const cardRef = useRef<CardFieldHandle>(null);
  const data = usePlanData(uid, chosen);
  const { sub, plans, currentPlan, selected, change, currency } = data;
  const { makeProvider, authRequest } = usePaymentProvider(sub, cardRef);
  const useSavedCard = !!sub?.paymentMethod && !newCard;
  const ready = !!sub && !!plans.data;
  const canSubmit = ready && change !== "none" && !processing;

  /** An upgrade charges: first the card that would be used and the server's quote, nothing charged yet. */
  const startReview = async () => {
    setProcessing(true);
    setResult(null);
    const saved = sub?.paymentMethod;
    const prepared = await preparePayment(
      { useSavedCard, savedCard: saved ? { brand: saved.brand ?? "", last4: saved.last4 } : null },
      makeProvider(),
    );
    if ("error" in prepared) {
      setResult({ kind: "error", notice: prepared.error });
      setProcessing(false);
      return;
    }
    try {
      const quote = await fetchQuote(selected, lang);
      setReview({ quote, paymentMethodId: prepared.paymentMethodId, card: prepared.card ?? quote.card });
    } catch (err) {
      setResult({ kind: "error", notice: noticeFromError(err, "payment.genericError") });
    }
    setProcessing(false);
  };

  const pay = () => {
    if (!review || processing) return;
    const { paymentMethodId } = review;
    void run(() =>
      applyPlanChange(
        {
          loggedIn: !!user,
          currentPlan,
          selectedPlan: review.quote.plan,
          useSavedCard,
          prepared: { paymentMethodId },
          confirmedAmount: review.quote.amountNow,
        },
        { provider: makeProvider(), submit },
      ),
    );
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!canSubmit || review) return;
    if (change === "upgrade") {
      void startReview();
      return;
    }
    void run(() =>
      applyPlanChange(
        { loggedIn: !!user, currentPlan, selectedPlan: selected, useSavedCard },
        { provider: makeProvider(), submit },
      ),
    );
  };
  const keepPlan = () => void run(() => keepCurrentPlan({ loggedIn: !!user, currentPlan }, { provider: null, submit }));
  const resume = (clientSecret: string, amount: number | null, plan: PlanName) => {
    setAuthCharge(amount !== null ? { amount, currency } : null);
    setAuthPlan(plan);
    void run(() => resumePayment(clientSecret, makeProvider()));
  };

  const choose = (p: PlanName) => {
    setChosen(p);
    setResult(null);
    setReview(null);
  };

  return {
    ...data,
    needsCard: isPaidPlan(selected) && change !== "none",
    ready,
    canSubmit,
    newCard,
    processing,
    result,
    review,
    cardRef,
    authRequest,
    authCharge,
    authPlan,
    setNewCard,
    setReview,
    setResult,
    onSubmit,
    pay,
    keepPlan,
    resume,
    choose,
  };
}

/** The plan screen's state and actions, as usePlanChange gives them. */
export type PlanChangeFlow = ReturnType<typeof usePlanChange>;
