// The numbers on a PDF receipt: tax lines that add up to the total, and a stable invoice number.
import { invoiceNumber, receiptFileName, taxLines } from "../src/receipts.ts";

describe("receipt numbers", () => {
  it("splits a tax-inclusive total into net and tax that add up to it", () => {
    expect(taxLines(1000, 19)).toEqual({ netMinor: 840, taxMinor: 160 });
    expect(taxLines(1500, 20)).toEqual({ netMinor: 1250, taxMinor: 250 });
    expect(taxLines(3980, 10)).toEqual({ netMinor: 3618, taxMinor: 362 });
    expect(taxLines(1000, 0)).toEqual({ netMinor: 1000, taxMinor: 0 });
    for (const total of [1, 7, 333, 1999, 123457]) {
      for (const rate of [5, 7.7, 19, 21, 25]) {
        const { netMinor, taxMinor } = taxLines(total, rate);
        expect(netMinor + taxMinor).toBe(total);
        expect(taxMinor).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it("numbers an invoice by the day it was paid and its payment id, the same every time", () => {
    const p = {
      id: "0f8b1c2d-1111-4222-8333-444455556666",
      createdAt: new Date("2027-04-10T23:59:00Z"),
      appliedAt: new Date("2027-04-11T00:01:00Z"),
    };
    expect(invoiceNumber(p)).toBe("KIK-20270411-0F8B1C2D");
    expect(invoiceNumber({ ...p, appliedAt: null })).toBe("KIK-20270410-0F8B1C2D");
    expect(receiptFileName(p)).toBe("receipt-KIK-20270411-0F8B1C2D.pdf");
  });
});
