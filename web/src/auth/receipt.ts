/** A payment's receipt as a plain-text file (pure, unit-tested): labelled lines in the UI language. */
import type { PaymentRow } from "./accountApi.ts";

export interface ReceiptTexts {
  title: string;
  appName: string;
  labels: {
    paymentId: string;
    date: string;
    description: string;
    period: string;
    card: string;
    amount: string;
    status: string;
  };
  description: string;
  status: string;
  date: (iso: string) => string;
  amount: (row: PaymentRow) => string;
}

export function receiptText(row: PaymentRow, x: ReceiptTexts): string {
  const lines: Array<[string, string]> = [
    [x.labels.paymentId, row.id],
    [x.labels.date, x.date(row.date)],
    [x.labels.description, x.description],
    [x.labels.period, `${x.date(row.periodStart)} – ${x.date(row.periodEnd)}`],
    ...(row.card ? ([[x.labels.card, row.card]] as Array<[string, string]>) : []),
    [x.labels.amount, x.amount(row)],
    [x.labels.status, x.status],
  ];
  return [`${x.appName} — ${x.title}`, "", ...lines.map(([k, v]) => `${k}: ${v}`), ""].join("\n");
}

export function receiptFileName(row: PaymentRow): string {
  return `receipt-${row.date.slice(0, 10)}-${row.id.slice(0, 8)}.txt`;
}
