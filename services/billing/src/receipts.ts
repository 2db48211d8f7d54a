// PDF receipts (docs/decisions/0027-finished-summaries-steered-titles-billing-trust.md): one per paid
// payment, laid out with pdf-lib: an invoice number, the seller's and the buyer's details, what was
// bought for which period, the tax lines (prices include tax at BILLING_TAX_RATE) and the card. The
// numbers come from the payment row, so a receipt can be fetched again at any time and reads the same.
import { AppError, PLAN_CATALOGUE } from "@kikitori/shared";
import type { Payment } from "@kikitori/shared/db";
import { PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from "pdf-lib";
import type { BillingDeps, SellerDetails } from "./context.ts";
import { toMajor } from "./pricing.ts";

/** Stable and unique per payment: the day it was paid (or made) and the start of its id. */
export function invoiceNumber(p: Pick<Payment, "id" | "createdAt" | "appliedAt">): string {
  const d = (p.appliedAt ?? p.createdAt).toISOString().slice(0, 10).replaceAll("-", "");
  return `KIK-${d}-${p.id.slice(0, 8).toUpperCase()}`;
}

/** Net and tax of a tax-inclusive total, in minor units (the tax is the rest, so the lines add up). */
export function taxLines(totalMinor: number, ratePercent: number): { netMinor: number; taxMinor: number } {
  if (ratePercent <= 0) return { netMinor: totalMinor, taxMinor: 0 };
  const netMinor = Math.round(totalMinor / (1 + ratePercent / 100));
  return { netMinor, taxMinor: totalMinor - netMinor };
}

function money(minor: number, currency: string): string {
  const major = toMajor(minor, currency);
  const digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits;
  return `${currency} ${new Intl.NumberFormat("en", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(major)}`;
}

function day(d: Date): string {
  return new Intl.DateTimeFormat("en", { dateStyle: "long", timeZone: "UTC" }).format(d);
}

function planLabel(plan: string): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}

export function receiptFileName(p: Pick<Payment, "id" | "createdAt" | "appliedAt">): string {
  return `receipt-${invoiceNumber(p)}.pdf`;
}

/** The receipt of one of the user's paid payments, as PDF bytes. */
export async function receiptPdf(
  deps: BillingDeps,
  uid: string,
  paymentId: string,
  seller: SellerDetails,
): Promise<{ bytes: Uint8Array; fileName: string }> {
  const p = await deps.db.payment.findUnique({ where: { id: paymentId }, include: { user: true } });
  // Another user's payment is "not found" too: its existence is not anyone else's business.
  if (!p || p.userId !== uid || !["succeeded", "refunded"].includes(p.status)) {
    throw new AppError("PAYMENT_NOT_FOUND", "There is no paid payment with this id on your account.");
  }
  return { bytes: await renderReceipt(p, p.user.email, seller), fileName: receiptFileName(p) };
}

/** Lays the receipt out on one A4 page. */
async function renderReceipt(p: Payment, buyerEmail: string, seller: SellerDetails): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const number = invoiceNumber(p);
  doc.setTitle(`${seller.name} receipt ${number}`);
  doc.setAuthor(seller.name);
  doc.setSubject(`Receipt ${number}`);
  doc.setCreator(seller.name);
  doc.setProducer(`${seller.name} billing (pdf-lib)`);
  doc.setCreationDate(p.appliedAt ?? p.createdAt);
  doc.setModificationDate(p.appliedAt ?? p.createdAt);

  const page = doc.addPage([595.28, 841.89]);
  const left = 56;
  const right = 595.28 - 56;
  const ink = rgb(0.12, 0.14, 0.17);
  const muted = rgb(0.38, 0.42, 0.48);
  // The standard fonts write WinAnsi only: anything else (a name in another script) becomes "?".
  const charset = new Set(regular.getCharacterSet());
  const safe = (s: string) => [...s].map((c) => (charset.has(c.codePointAt(0) ?? 0) ? c : "?")).join("");
  const text = (
    s: string,
    x: number,
    y: number,
    o: { font?: PDFFont; size?: number; color?: ReturnType<typeof rgb>; alignRight?: boolean } = {},
  ) => {
    const font = o.font ?? regular;
    const size = o.size ?? 10;
    const str = safe(s);
    const at = o.alignRight ? x - font.widthOfTextAtSize(str, size) : x;
    page.drawText(str, { x: at, y, size, font, color: o.color ?? ink });
  };
  const rule = (pg: PDFPage, y: number) =>
    pg.drawLine({ start: { x: left, y }, end: { x: right, y }, thickness: 0.6, color: rgb(0.8, 0.82, 0.85) });

  // Seller (left) and the receipt's identity (right).
  let y = 785;
  text(seller.name, left, y, { font: bold, size: 16 });
  text("RECEIPT", right, y, { font: bold, size: 16, alignRight: true });
  y -= 18;
  const sellerLines = [...seller.address, seller.email, ...(seller.taxId ? [`Tax ID: ${seller.taxId}`] : [])];
  const idLines: Array<[string, string]> = [
    ["Invoice number", number],
    ["Date paid", day(p.appliedAt ?? p.createdAt)],
    ["Payment ID", p.id],
  ];
  for (let i = 0; i < Math.max(sellerLines.length, idLines.length); i++) {
    if (sellerLines[i]) text(sellerLines[i], left, y, { color: muted });
    const id = idLines[i];
    if (id) {
      text(id[1], right, y, { alignRight: true });
      text(`${id[0]}:`, right - 190, y, { color: muted });
    }
    y -= 14;
  }

  // Buyer.
  y -= 16;
  text("Billed to", left, y, { font: bold, size: 11 });
  y -= 15;
  text(buyerEmail, left, y);
  y -= 14;
  text(`Account ID: ${p.userId}`, left, y, { color: muted });

  // What was bought.
  y -= 34;
  text("Description", left, y, { font: bold });
  text("Amount", right, y, { font: bold, alignRight: true });
  y -= 8;
  rule(page, y);
  y -= 18;
  const description =
    p.kind === "upgrade"
      ? `Upgrade from ${planLabel(p.fromPlan)} to ${planLabel(p.plan)} plan (prorated for the rest of the period)`
      : `${planLabel(p.plan)} plan, monthly renewal`;
  text(description, left, y);
  text(money(p.amount, p.currency), right, y, { alignRight: true });
  y -= 14;
  // An upgrade pays for the days from the upgrade to the end of the period; a renewal for the whole period.
  const from = p.kind === "upgrade" ? (p.appliedAt ?? p.createdAt) : p.periodStart;
  text(`Service period: ${day(from)} to ${day(p.periodEnd)}`, left, y, { color: muted, size: 9 });
  const quota = PLAN_CATALOGUE.isPaid(p.plan) ? `${planLabel(p.plan)} plan` : "";
  if (quota) {
    y -= 12;
    text(`${quota}, billed monthly; renews automatically until switched to Free.`, left, y, { color: muted, size: 9 });
  }
  y -= 14;
  rule(page, y);

  // Totals with the tax lines.
  const { netMinor, taxMinor } = taxLines(p.amount, seller.taxRate);
  const totals: Array<[string, string, boolean]> = [
    ["Subtotal (excluding tax)", money(netMinor, p.currency), false],
    [`${seller.taxName} (${seller.taxRate}%)`, money(taxMinor, p.currency), false],
    ["Total paid", money(p.amount, p.currency), true],
  ];
  y -= 20;
  for (const [label, value, strong] of totals) {
    text(label, right - 190, y, { font: strong ? bold : regular });
    text(value, right, y, { font: strong ? bold : regular, alignRight: true });
    y -= 16;
  }
  if (seller.taxRate <= 0) {
    text(`No ${seller.taxName.toLowerCase()} was charged on this payment.`, right - 190, y, { color: muted, size: 9 });
    y -= 14;
  }
  y -= 10;
  const card = p.cardLast4 ? `${planLabel(p.cardBrand ?? "Card")} ending in ${p.cardLast4}` : "card";
  text(`Paid with ${card}.`, left, y);
  if (p.status === "refunded") {
    y -= 16;
    text("This payment was refunded in full.", left, y, { font: bold });
  }

  text(`Questions about this receipt: ${seller.email}`, left, 60, { color: muted, size: 9 });
  return doc.save();
}
