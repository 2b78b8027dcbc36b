/**
 * Hand edits of a store's schema that the store must refuse at start (ADR-080), the same SQL on
 * SQLite and PostgreSQL, each with the difference the refusal must name.
 */
export const SCHEMA_TAMPERINGS: ReadonlyArray<[what: string, sql: string, refusal: RegExp]> = [
  ['a dropped column', 'ALTER TABLE transactions DROP COLUMN customer_phone', /: table transactions: column customer_phone missing\./],
  ['a renamed table', 'ALTER TABLE transactions RENAME TO transactions_old', /: table transactions missing\./],
  [
    'a missing unique index',
    'DROP INDEX transactions_vendor_reference',
    /: table transactions: index transactions_vendor_reference missing\./,
  ],
];
