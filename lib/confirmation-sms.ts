/**
 * The text of the SMS that asks a customer to confirm a partner transaction (B1), one template for
 * the server that sends it and the lint that holds the spec's examples of it to the payment window
 * (`paymentWindow` of `x-state-machine`).
 */

/** The payment window as the SMS says it: whole minutes when it is some, else seconds. */
export function paymentWindowPhrase(seconds: number): string {
  return seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} seconds`;
}

export interface ConfirmationSms {
  merchantName: string;
  /** The total, `1299.50`. */
  amount: string;
  orderReference: string;
  windowSeconds: number;
}

/** The confirmation SMS of a transaction. */
export function confirmationSmsText(s: ConfirmationSms): string {
  return `${s.merchantName}: confirm your payment of ${s.amount} MAD (${s.orderReference}) within ${paymentWindowPhrase(s.windowSeconds)}.`;
}

const SMS = /^(.+): confirm your payment of (\d+\.\d{2}) MAD \(([^)]+)\) within (\d+) (minutes|seconds)\.$/;

/** The merchant, amount and order reference of a confirmation SMS text; null for any other text. */
export function confirmationSmsValues(text: string): Omit<ConfirmationSms, 'windowSeconds'> | null {
  const m = SMS.exec(text);
  return m ? { merchantName: m[1]!, amount: m[2]!, orderReference: m[3]! } : null;
}
