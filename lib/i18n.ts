/**
 * Texts of the payment button, the overlay and the hosted page, shared by the browser SDK and
 * the hosted checkout page. The locales are the spec's `Locale` enum (ADR-015): `TEXTS` is keyed
 * by the generated type, so a locale added to or removed from the spec fails the type check
 * until this file follows.
 */
import type { V2 } from '../generated/index.ts';

export type Locale = V2.components['schemas']['Locale'];

export function isLocale(v: unknown): v is Locale {
  return typeof v === 'string' && Object.prototype.hasOwnProperty.call(TEXTS, v);
}

export function directionOf(locale: Locale): 'ltr' | 'rtl' {
  return locale === 'ar' ? 'rtl' : 'ltr';
}

const en = {
  pay: 'Pay with PayLater',
  loading: 'Loading…',
  orPayIn: 'Split your payment, no fees:',
  planTitle: (n: number) => `${n} instalments`,
  sessionError: 'The payment option is unavailable. Please refresh the page.',
  overlayText: 'Complete your payment in the PayLater window.',
  overlayFocus: 'Show the payment window',
  overlayClose: 'Cancel payment',
  orderSummary: 'Order summary',
  total: 'Total',
  quantity: 'Qty',
  choosePlan: 'Your instalment plans',
  today: 'today',
  then: 'then',
  simulateSuccess: 'Simulate Success',
  simulateFailed: 'Simulate Failed',
  testMode: 'Test mode: no real payment is made.',
  liveUnavailable: 'Live card payment is not available on this reference server.',
  cancel: 'Cancel and return to the merchant',
  missingToken: 'This checkout link is incomplete or has expired. Please start again from the merchant site.',
  paid: 'Payment approved. You can close this window.',
  failed: 'Payment failed. You can close this window.',
  working: 'Processing…',
};
export type Texts = typeof en;

const fr: Texts = {
  pay: 'Payer avec PayLater',
  loading: 'Chargement…',
  orPayIn: 'Payez en plusieurs fois, sans frais :',
  planTitle: (n: number) => `${n} fois`,
  sessionError: 'Le paiement est indisponible. Veuillez actualiser la page.',
  overlayText: 'Terminez votre paiement dans la fenêtre PayLater.',
  overlayFocus: 'Afficher la fenêtre de paiement',
  overlayClose: 'Annuler le paiement',
  orderSummary: 'Récapitulatif de la commande',
  total: 'Total',
  quantity: 'Qté',
  choosePlan: 'Vos échéanciers',
  today: "aujourd'hui",
  then: 'puis',
  simulateSuccess: 'Simuler un succès',
  simulateFailed: 'Simuler un échec',
  testMode: 'Mode test : aucun paiement réel.',
  liveUnavailable: "Le paiement réel par carte n'est pas disponible sur ce serveur de référence.",
  cancel: 'Annuler et revenir chez le marchand',
  missingToken: 'Ce lien de paiement est incomplet ou a expiré. Recommencez depuis le site du marchand.',
  paid: 'Paiement approuvé. Vous pouvez fermer cette fenêtre.',
  failed: 'Paiement échoué. Vous pouvez fermer cette fenêtre.',
  working: 'Traitement…',
};

const ar: Texts = {
  pay: 'ادفع مع PayLater',
  loading: 'جارٍ التحميل…',
  orPayIn: 'قسّم دفعتك بدون رسوم:',
  planTitle: (n: number) => `${n} أقساط`,
  sessionError: 'خيار الدفع غير متاح. يرجى تحديث الصفحة.',
  overlayText: 'أكمل الدفع في نافذة PayLater.',
  overlayFocus: 'إظهار نافذة الدفع',
  overlayClose: 'إلغاء الدفع',
  orderSummary: 'ملخص الطلب',
  total: 'المجموع',
  quantity: 'الكمية',
  choosePlan: 'خطط التقسيط',
  today: 'اليوم',
  then: 'ثم',
  simulateSuccess: 'محاكاة النجاح',
  simulateFailed: 'محاكاة الفشل',
  testMode: 'وضع الاختبار: لا يتم أي دفع حقيقي.',
  liveUnavailable: 'الدفع الحقيقي بالبطاقة غير متاح على هذا الخادم المرجعي.',
  cancel: 'إلغاء والعودة إلى التاجر',
  missingToken: 'رابط الدفع هذا غير مكتمل أو منتهي الصلاحية. يرجى البدء من جديد من موقع التاجر.',
  paid: 'تمت الموافقة على الدفع. يمكنك إغلاق هذه النافذة.',
  failed: 'فشل الدفع. يمكنك إغلاق هذه النافذة.',
  working: 'جارٍ المعالجة…',
};

export const TEXTS: Record<Locale, Texts> = { en, fr, ar };
