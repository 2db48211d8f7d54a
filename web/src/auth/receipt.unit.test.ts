import { describe, expect, it } from "@jest/globals";
import type { PaymentRow } from "./accountApi.ts";
import { receiptFileName, receiptText } from "./receipt.ts";

const row: PaymentRow = {
  id: "0f8b1c2d-aaaa-bbbb-cccc-000000000000",
  date: "2026-11-25T10:00:00.000Z",
  kind: "upgrade",
  fromPlan: "free",
  plan: "standard",
  amount: 15,
  currency: "USD",
  status: "succeeded",
  card: "visa •••• 4242",
  periodStart: "2026-11-25T00:00:00.000Z",
  periodEnd: "2026-12-25T00:00:00.000Z",
};

const texts = {
  title: "Receipt",
  appName: "Kikitori",
  labels: {
    paymentId: "Payment ID",
    date: "Date",
    description: "Description",
    period: "Period",
    card: "Card",
    amount: "Amount",
    status: "Status",
  },
  description: "Upgrade to Standard",
  status: "Paid",
  date: (iso: string) => iso.slice(0, 10),
  amount: (r: PaymentRow) => `$${r.amount}`,
};

describe("receipt", () => {
  it("lists the payment's facts, one labelled line each", () => {
    expect(receiptText(row, texts)).toBe(
      [
        "Kikitori — Receipt",
        "",
        "Payment ID: 0f8b1c2d-aaaa-bbbb-cccc-000000000000",
        "Date: 2026-11-25",
        "Description: Upgrade to Standard",
        "Period: 2026-11-25 – 2026-12-25",
        "Card: visa •••• 4242",
        "Amount: $15",
        "Status: Paid",
        "",
      ].join("\n"),
    );
  });
  it("leaves the card out when none is known, and names the file by date and id", () => {
    expect(receiptText({ ...row, card: null }, texts)).not.toContain("Card:");
    expect(receiptFileName(row)).toBe("receipt-2026-11-25-0f8b1c2d.txt");
  });
});
