/**
 * GENERATED FILE — DO NOT EDIT.
 * Written by `npm run generate` from spec/ (the source of truth); edit spec/ and regenerate.
 */
export interface paths {
    "/api/v1/public/partner/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a partner transaction (B1)
         * @description Creates a transaction for a customer from the merchant's backend, POS or ERP. The
         *     transaction starts `PENDING` with `updatedAt: null`, and the customer receives an
         *     SMS asking to confirm. It becomes `EXPIRED` if not confirmed within the payment
         *     window (`paymentWindow` of the `x-state-machine`, ADR-010).
         *
         *     Validation problems get 400 `VALIDATION_ERROR` (or `AMOUNT_MISMATCH`), business
         *     rules 422, a `vendorReference` already used by this merchant 409 (ADR-002).
         *
         *     In the sandbox, magic customer phones and totals (`x-sandbox-scenarios`, ADR-043)
         *     drive an outcome without extra calls: confirmed or cancelled by the customer after
         *     their `afterSeconds` of sandbox time, left to expire, or each 422 business rule.
         */
        post: operations["createPartnerTransaction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/public/partner/transactions/{transactionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a partner transaction by id (B2)
         * @description Reads a transaction of the merchant of the key. A transaction that does not exist and
         *     one of another merchant get the same 404 body. A `PENDING` transaction whose payment
         *     window has passed is never shown as `PENDING`: it reads as `EXPIRED`.
         */
        get: operations["getPartnerTransaction"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/public/partner/transactions/vendor/{vendorReference}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a partner transaction by vendor reference (B3)
         * @description Reads the merchant's transaction with this `vendorReference`. Answers and errors as
         *     B2.
         */
        get: operations["getPartnerTransactionByVendorReference"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/public/partner/transactions/vendor/{vendorReference}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Cancel a partner transaction by vendor reference (B4)
         * @description Cancels the merchant's transaction with this `vendorReference`. Allowed only while it
         *     is `PENDING`; from any other status (`APPROVED`, `CANCELED`, `EXPIRED`,
         *     `COMPLETED`) the answer is 400 `TRANSACTION_NOT_PENDING` and nothing changes. The
         *     cancellation sends `transaction.cancelled` (ADR-004). No request body. Cancel by
         *     transaction id is not offered (ADR-016).
         */
        put: operations["cancelPartnerTransactionByVendorReference"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/public/sdk/payment-intents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a payment intent (internal)
         * @description Called by the browser SDK when the shopper presses the payment button. Checks
         *     `redirect_url` and `origin` against the merchant's allowed origins (ADR-017) and
         *     returns the hosted checkout page to open (redirect or popup). Not for merchants' own
         *     use.
         */
        post: operations["sdkCreatePaymentIntent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/public/sdk/payment-intents/{paymentIntentId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The shopper leaves the hosted page (internal)
         * @description Called by the hosted checkout page's **Cancel** link in the redirect flow. Answers
         *     where to send the shopper back: the intent's own `redirect_url` (checked against the
         *     merchant's allowed origins when the intent was created, ADR-017) with
         *     `status=CANCELLED` and, when a checkout transaction exists, its `transaction_id`. The
         *     page never trusts an address of its own.
         *
         *     Changes nothing: the session stays payable while its token lives, and a checkout
         *     transaction, if any, keeps its status and its payment window (ADR-019). A session
         *     already paid (APPROVED or COMPLETED) cannot be left as cancelled: 400
         *     `TRANSACTION_NOT_PENDING`. Not for merchants' own use.
         */
        post: operations["sdkCancelPaymentIntent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/public/sdk/payment-intents/{paymentIntentId}/simulate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Simulate the payment of an intent (internal, test mode)
         * @description Called by the hosted checkout page's **Simulate Success** and **Simulate Failed** buttons for a session created with a test key. Same effect as `sandboxPaySession`. Not for merchants' own use.
         */
        post: operations["sdkSimulatePayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/public/sdk/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the session for the payment button (internal)
         * @description Called by the browser SDK with the session token to show the order total and the 2x/3x/4x instalment preview. Not for merchants' own use.
         */
        get: operations["sdkGetSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/public/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a checkout session (A1)
         * @description Creates a checkout session from the merchant backend and returns its token, which the
         *     browser SDK uses to show the payment button. The token lives `x-token-lifetime-seconds`
         *     of the `SessionToken` scheme.
         *
         *     **Variant 2**: `total` is a decimal string; the answer is `{ session_token, expires_in, session_id }`.
         *
         *     Rate limited per API key (`x-rate-limit`, ADR-006): every answer carries the
         *     `RateLimit-*` headers, and the first request over the window's limit gets 429.
         */
        post: operations["createSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/public/transactions/{transaction_id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Verify a transaction by session token (A2)
         * @description Verifies, from the merchant backend, the transaction the shopper's browser reported
         *     (payment callback or redirect). The token must be the one of the session the
         *     transaction was paid in, and within its lifetime (`x-token-lifetime-seconds`); a token of another
         *     session gets 401. Only `APPROVED` means the order may be fulfilled. Dates are
         *     `DD/MM/YY HH:MM:SS` in UTC (ADR-007).
         */
        get: operations["getTransactionStatusBySessionToken"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/api-log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the recorded API calls
         * @description The caller's API calls recorded since recording started (ADR-056), for the go-live check. Test keys only.
         */
        get: operations["sandboxGetApiLog"];
        /**
         * Start or stop recording API calls
         * @description With `recording` true the sandbox forgets the previous recording and records every later
         *     call made with the caller's test key or one of its session tokens (ADR-056): when, which
         *     operation, the status, the transaction the path names and the browser headers (`Origin`,
         *     `Referer`, `Sec-Fetch-Site`), at most `limit` calls. With false it stops and keeps what it
         *     recorded. The log is kept with the merchant's sandbox state, so every instance of a shared
         *     sandbox records into it. Test keys only; not served in production.
         */
        put: operations["sandboxSetApiLog"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/clock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the sandbox clock
         * @description The merchant's sandbox time. Each test merchant has its own clock, so test runs of different merchants do not disturb each other. Test keys only.
         */
        get: operations["sandboxGetClock"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/clock/advance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Advance the sandbox clock
         * @description Moves the merchant's sandbox clock forward, by `seconds` or, to probe a limit finer
         *     than a second, by `milliseconds` (ADR-085). Before the answer, every `PENDING`
         *     transaction whose payment window has passed becomes `EXPIRED` (and
         *     `transaction.expired` is recorded), session tokens past their lifetime stop being
         *     accepted, rate-limit windows reset, and webhook retries fall due on the compressed
         *     sandbox schedule. The clock never moves back, except to real time by a reset
         *     (`POST /api/v1/sandbox/reset`). Test keys only.
         */
        post: operations["sandboxAdvanceClock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream the merchant's events (Server-Sent Events)
         * @description The caller's webhook events as a Server-Sent Events stream (`text/event-stream`), read
         *     from the store, so any instance of a sandbox sharing one store serves the same stream.
         *     Each event has `id:` (the delivery's `webhook-id`), `event:` (the event name) and
         *     `data:` (a JSON `SandboxStreamEvent`). Resume after a disconnect with the standard
         *     `Last-Event-ID` header (or `after`): every event recorded after that one is sent
         *     first, in order (an id that names none of the merchant's events resumes from its
         *     oldest); without either, only events recorded from now on. Such a stream first sends
         *     where it starts: a block with only `id:` (the newest event's id or, when the merchant
         *     has no event yet, one that names none; an `EventSource` keeps it as its last event id
         *     and dispatches nothing), so a client whose stream drops before its first event resumes
         *     from there and loses none recorded meanwhile. A `: keep-alive` comment comes every
         *     `x-keep-alive-seconds` of the operation. This is what `paylater listen` reads to
         *     forward events to a merchant's machine that the sandbox cannot reach. Test keys only.
         */
        get: operations["sandboxStreamEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/faults": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the fault rule
         * @description The caller's fault rule (failures on demand, ADR-052) and how many calls it has answered. Test keys only.
         */
        get: operations["sandboxGetFaultRule"];
        /**
         * Set or remove the fault rule
         * @description Failures on demand without a header (ADR-052): the next `times` calls of the named
         *     operations made with the caller's test key answer `failure` in the operation's
         *     declared shape instead of running, and nothing is stored. The count is kept by the
         *     store, once across every instance. A new rule replaces the previous one and counts from
         *     0; `rule` null removes it. A `Paylater-Simulate` header on a call wins over the rule and
         *     does not count against it. Test keys only; not served in production.
         */
        put: operations["sandboxSetFaultRule"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reset the merchant's sandbox
         * @description Puts the merchant's sandbox clock back to real time (offset 0) and forgets its
         *     rate-limit windows, so a test run that moved the clock or used up A1's limit leaves
         *     nothing behind. With `deleteData: true` it also deletes the merchant's transactions,
         *     checkout sessions (with their payment intents), SMS and webhook deliveries. Only the
         *     caller's own sandbox is touched; webhook endpoint settings are kept. Test keys only.
         */
        post: operations["sandboxReset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/sessions/pay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pay a checkout session (sandbox)
         * @description Does what the shopper does on the hosted checkout page in test mode: creates the
         *     session's checkout transaction (`PENDING`) and, with outcome `success` (Simulate
         *     Success), approves it and sends `transaction.approved`; with outcome `failed`
         *     (Simulate Failed) it stays `PENDING`. Paying again a session whose transaction is
         *     `PENDING` reuses that transaction. Verify the result with A2 (and A3 in Variant 1).
         *     Test keys only.
         */
        post: operations["sandboxPaySession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/sms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the SMS outbox (sandbox)
         * @description The confirmation SMS the sandbox would have sent to customers of this merchant, oldest first, optionally only those of one transaction (`transactionId`), one page at a time (`limit`, `cursor`; ADR-028). Nothing leaves the sandbox. Test keys only.
         */
        get: operations["sandboxListSms"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the merchant's transactions (sandbox)
         * @description The caller's transactions of both families, newest first, as each reads now, optionally filtered by `status` and `vendorReference`, one page at a time (`limit`, `cursor`; ADR-028). For the dashboard and tests. Test keys only.
         */
        get: operations["sandboxListTransactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/transactions/{transactionId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Customer cancels a transaction (sandbox)
         * @description Does what the customer (or the system) does when cancelling the payment:
         *     `PENDING` → `CANCELED`, and `transaction.cancelled` is sent. Refused with 400
         *     `TRANSACTION_NOT_PENDING` from any other status. Test keys only.
         */
        post: operations["sandboxCancelTransaction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/transactions/{transactionId}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Collect every instalment (sandbox)
         * @description Marks every instalment of an `APPROVED` transaction as collected: `APPROVED` →
         *     `COMPLETED` (ADR-009). No webhook is sent. Refused with 400
         *     `TRANSACTION_NOT_APPROVED` from any other status. Test keys only.
         */
        post: operations["sandboxCompleteTransaction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/transactions/{transactionId}/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Customer confirms a transaction (sandbox)
         * @description Does what the customer does when answering the confirmation SMS (or paying a
         *     checkout transaction): `PENDING` → `APPROVED`, and `transaction.approved` is
         *     sent. Refused with 400 `TRANSACTION_NOT_PENDING` from any other status; a
         *     transaction whose payment window has passed is already `EXPIRED`. Test keys only.
         */
        post: operations["sandboxConfirmTransaction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/webhook-deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook deliveries (sandbox)
         * @description Every webhook event of this merchant with each attempt to deliver it (time, status, duration), newest first, optionally only those of one transaction (`transactionId`), one page at a time (`limit`, `cursor`; ADR-028). Test keys only.
         */
        get: operations["sandboxListWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/webhook-deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Redeliver a webhook (sandbox)
         * @description Sends the event again at once with the same `webhook-id` and body (a fresh timestamp and signature), whatever its state, and records the attempt. Re-enables an endpoint disabled by a 410. Test keys only.
         */
        post: operations["sandboxRedeliverWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/webhook-endpoint": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the webhook endpoint
         * @description The caller's webhook URL and signing secret as the sandbox delivers with them now, and the previous secret while a rotation window is open. Test keys only.
         */
        get: operations["sandboxGetWebhookEndpoint"];
        /**
         * Set or replace the webhook endpoint
         * @description Sets the caller's webhook URL (or removes it with `null`) and its signing secret, at
         *     run time, without restarting the server; the merchants file only seeds them. Without
         *     `secret` the current secret is kept, or one is generated when there is none. A URL must
         *     pass the same policy as the merchants file (http or https, no credentials; in production
         *     https to a public address). The endpoint is enabled again if a 410 had disabled it.
         *     Events already parked as `no_endpoint` stay so until redelivered. Test keys only.
         */
        put: operations["sandboxSetWebhookEndpoint"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/webhook-endpoint/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the webhook signing secret
         * @description Generates a new signing secret. For `overlapSeconds` (of the merchant's sandbox time)
         *     every delivery is signed with both secrets: `webhook-signature` carries two
         *     space-separated `v1,<signature>` entries, the new secret's first, as Standard Webhooks
         *     allows, so a receiver verifying with either secret accepts it while it is being
         *     redeployed. After the window only the new secret signs. Test keys only.
         */
        post: operations["sandboxRotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandbox/webhook-endpoint/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event to the webhook endpoint
         * @description Records and sends one event of the chosen type to the caller's webhook endpoint, signed
         *     as every delivery (both secrets during a rotation window), so a receiver can be checked
         *     without moving a transaction. Its payload is valid for the event's schema but describes
         *     a sample transaction that does not exist (`vendorReference` `TEST-WEBHOOK`): never
         *     fulfil on it. It is listed with the other deliveries and can be redelivered. Test keys
         *     only.
         */
        post: operations["sandboxSendTestWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness
         * @description The process is up and answers HTTP. No key needed; it reads nothing, so a stalled store does not fail it (that is `GET /readyz`). For a load balancer's or orchestrator's liveness probe.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness
         * @description The server can serve requests: its store has not failed and every write so far reaches the disk within the probe's wait (`x-readiness-timeout-ms`). No key needed. For a readiness probe; 503 `NOT_READY` takes the instance out of rotation without restarting it.
         */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "transaction.approved": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * transaction.approved
         * @description Sent to the merchant's webhook URL. See the event schema for when. Signed with the
         *     merchant's secret (Standard Webhooks v1, ADR-005): verify `webhook-signature` over
         *     `webhook-id.webhook-timestamp.body` before processing. Answer 2xx at once and
         *     process asynchronously; the same event may arrive more than once with the same
         *     `webhook-id`. Anything else is retried on the schedule of ADR-005
         *     (`x-webhook-delivery` of `WebhookHeaders`); 410 disables the endpoint.
         */
        post: operations["webhookTransactionApproved"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "transaction.cancelled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * transaction.cancelled
         * @description Sent to the merchant's webhook URL. See the event schema for when. Signed with the
         *     merchant's secret (Standard Webhooks v1, ADR-005): verify `webhook-signature` over
         *     `webhook-id.webhook-timestamp.body` before processing. Answer 2xx at once and
         *     process asynchronously; the same event may arrive more than once with the same
         *     `webhook-id`. Anything else is retried on the schedule of ADR-005
         *     (`x-webhook-delivery` of `WebhookHeaders`); 410 disables the endpoint.
         */
        post: operations["webhookTransactionCancelled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "transaction.expired": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * transaction.expired
         * @description Sent to the merchant's webhook URL. See the event schema for when. Signed with the
         *     merchant's secret (Standard Webhooks v1, ADR-005): verify `webhook-signature` over
         *     `webhook-id.webhook-timestamp.body` before processing. Answer 2xx at once and
         *     process asynchronously; the same event may arrive more than once with the same
         *     `webhook-id`. Anything else is retried on the schedule of ADR-005
         *     (`x-webhook-delivery` of `WebhookHeaders`); 410 disables the endpoint.
         */
        post: operations["webhookTransactionExpired"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /**
         * CategoryId
         * Format: int64
         * @description A product category id: a non-negative integer no larger than 2^53 − 1
         *     (9007199254740991), so every JSON reader holds it exactly and no writer prints it
         *     in exponent form (ADR-023). A larger value, or one written with an exponent that
         *     exceeds it, answers 400.
         */
        CategoryId: number;
        /**
         * CheckoutSessionSummary
         * @description What the browser SDK and the hosted page show of a checkout session (internal).
         */
        CheckoutSessionSummary: {
            currency: components["schemas"]["Currency"];
            /**
             * Format: date-time
             * @description When the session token expires.
             */
            expires_at: string;
            /** @description The order lines. */
            items: components["schemas"]["SessionItem"][];
            /** @description Merchant name. */
            merchant_name: string;
            /** @description The session reference. */
            session_id: string;
            /** @description Store name. */
            store_name: string;
            /** @description True for a session created with a test key (the hosted page then offers Simulate Success / Simulate Failed). */
            test_mode: boolean;
            /** @description Order total in MAD. */
            total: components["schemas"]["Money"];
        };
        /**
         * CheckoutStatus
         * @description Status as reported by the session-token verification (A2) and the key verification
         *     (A3). Only `APPROVED` means the payment succeeded and the order may be fulfilled.
         *     A checkout transaction that is `EXPIRED` or `COMPLETED` internally is reported here
         *     as `CANCELED` and `APPROVED` respectively (see ADR-008).
         * @enum {string}
         */
        CheckoutStatus: "APPROVED" | "PENDING" | "CANCELED";
        /**
         * Currency
         * @description ISO 4217 currency code. Only Moroccan dirham (`MAD`) is supported.
         * @example MAD
         * @enum {string}
         */
        Currency: "MAD";
        /**
         * CustomerPhone
         * @description The customer's mobile number in international form without the plus sign: digits
         *     only, beginning with the country code (E.164 without `+`, the lengths its `pattern`
         *     reads, first digit not 0), for example `212612345678` for a Moroccan number. Never normalised: `+212…`,
         *     spaces, dashes and the national form `06…` are refused (ADR-049).
         * @example 212612345678
         */
        CustomerPhone: string;
        /**
         * Error
         * @description The error body of every endpoint: `{ "error": { "code", "message" } }` (ADR-001).
         *     `message` is for humans and may change; `code` is stable and is what clients branch on.
         */
        Error: {
            error: {
                code: components["schemas"]["ErrorCode"];
                /** @description For `VALIDATION_ERROR` and the session codes, one entry per failing field (the first `maxItems` of them, ADR-057). */
                details?: components["schemas"]["ErrorDetail"][];
                /** @description Human-readable explanation. */
                message: string;
                /** @description With `RATE_LIMIT_EXCEEDED` only, the number of seconds to wait before retrying: the seconds until the window of the operation's `x-rate-limit` ends, as in `Retry-After` and `RateLimit-Reset`. */
                retry_after?: number;
            };
        };
        /**
         * ErrorCode
         * @description The catalogue of error codes. Each code has exactly one HTTP status (`x-status`); each
         *     operation's error responses narrow `error.code` to the codes that operation can
         *     answer. The error reference of the docs is generated from this catalogue. A server built on
         *     `paylater-contract/server` answers 501 with the code `NOT_IMPLEMENTED` for an operation it
         *     has no handler for yet (ADR-050): no code of this catalogue, so never a conformant answer,
         *     and `paylater conform` reports it naming the operation.
         */
        ErrorCode: string & ("VALIDATION_ERROR" | "INVALID_AMOUNT" | "INVALID_CURRENCY" | "INVALID_ITEMS" | "AMOUNT_MISMATCH" | "TRANSACTION_NOT_PENDING" | "TRANSACTION_NOT_APPROVED" | "INVALID_REDIRECT_URL" | "INVALID_API_KEY" | "INVALID_SESSION_TOKEN" | "TRANSACTION_NOT_FOUND" | "SESSION_NOT_FOUND" | "DELIVERY_NOT_FOUND" | "ROUTE_NOT_FOUND" | "METHOD_NOT_ALLOWED" | "DUPLICATE_VENDOR_REFERENCE" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "MERCHANT_INACTIVE" | "AMOUNT_OUT_OF_RANGE" | "CREDIT_LIMIT_EXCEEDED" | "TOO_MANY_PAYMENT_INTENTS" | "RATE_LIMIT_EXCEEDED" | "AUTH_THROTTLED" | "STORAGE_UNAVAILABLE" | "INTERNAL_ERROR" | "NOT_READY");
        /**
         * ErrorDetail
         * @description One failing field of a request.
         */
        ErrorDetail: {
            /** @description What is wrong with it. */
            message: string;
            /** @description JSON Pointer of the field in the request (`/items/0/quantity`), or the name of the parameter or header (`header.X-API-Key`). */
            path: string;
        };
        /**
         * HealthStatus
         * @description The answer of a liveness or readiness probe.
         */
        HealthStatus: {
            /**
             * @description `ok` (alive) for `GET /healthz`, `ready` for `GET /readyz`.
             * @enum {string}
             */
            status: "ok" | "ready";
        };
        /**
         * ItemName
         * @description Product name of an order line (A1 and B1, ADR-012).
         */
        ItemName: string;
        /**
         * ItemQuantity
         * @description Quantity of an order line, a whole number of at least one (A1 and B1, ADR-012).
         */
        ItemQuantity: number;
        /**
         * ItemReference
         * @description The merchant's product identifier (SKU) of an order line (A1 `id`, B1 `reference`, ADR-012).
         */
        ItemReference: string;
        /**
         * LocalDateTime
         * @description Date and time in the form `DD/MM/YY HH:MM:SS` (day first, two-digit year, 24-hour
         *     clock), always in UTC. Used by the session-token verification record (A2).
         * @example 20/11/26 14:05:09
         */
        LocalDateTime: string;
        /**
         * Locale
         * @description Language of the payment button and the hosted page (ADR-015). `ar` is laid out right to left.
         * @default en
         * @enum {string}
         */
        Locale: "en" | "fr" | "ar";
        /**
         * Money
         * Format: mad
         * @description An amount in Moroccan dirham (MAD), as a JSON number with at most two decimal places
         *     (centimes). Servers and clients compare and sum amounts in integer centimes, never
         *     with binary floating point. The `mad` format means exactly that: a finite number,
         *     at most two decimal places.
         * @example 1299.5
         */
        Money: number;
        /**
         * OrderReference
         * @description Service-generated order reference, `ORD-` and the characters its `pattern` reads (ADR-011).
         * @example ORD-7K2M9Q4XAB
         */
        OrderReference: string;
        /**
         * PartnerTransaction
         * @description A partner transaction, as returned by create (201), get (200) and cancel (200).
         */
        PartnerTransaction: {
            /**
             * Format: date-time
             * @description Creation time (ISO 8601 UTC).
             */
            createdAt: string;
            currency: components["schemas"]["Currency"];
            customerPhone: components["schemas"]["CustomerPhone"];
            /**
             * Format: uuid
             * @description Transaction id, a UUID; opaque to clients (the reference server makes version 7, ADR-058).
             */
            id: string;
            /** @description Line items, in the order of the request that created the transaction (ADR-048). */
            items: components["schemas"]["PartnerTransactionItem"][];
            /** @description Merchant name. */
            merchantName: string;
            orderReference: components["schemas"]["OrderReference"];
            status: components["schemas"]["TransactionStatus"];
            /** @description Store name. */
            storeName: string;
            /** @description Amount in MAD. */
            totalAmount: components["schemas"]["Money"];
            /**
             * Format: date-time
             * @description Time of the last change (ISO 8601 UTC); null right after creation, set by every change.
             */
            updatedAt: string | null;
            /** @description The merchant's own order id as supplied at creation, or null when none was supplied. */
            vendorReference: components["schemas"]["VendorReference"] | null;
        };
        /**
         * PartnerTransactionCreateRequest
         * @description Request to create a partner transaction (B1). `total` must equal the sum of
         *     `unitPrice × quantity` over `items`, compared in integer centimes (`AMOUNT_MISMATCH`
         *     otherwise). Server-owned fields (`id`, `status`, `orderReference`, `createdAt`, …)
         *     are refused.
         */
        PartnerTransactionCreateRequest: {
            /** @description Must be `MAD`. */
            currency: components["schemas"]["Currency"];
            customerPhone: components["schemas"]["CustomerPhone"];
            /** @description Line items, at least one. */
            items: components["schemas"]["PartnerTransactionItemInput"][];
            /** @description Amount in MAD. Its range (`x-amount-range`) is a business rule (`x-business-rule`, 422 `AMOUNT_OUT_OF_RANGE`), not a validation rule. */
            total: components["schemas"]["Money"];
            vendorReference?: components["schemas"]["VendorReference"];
        };
        /**
         * PartnerTransactionItem
         * @description A line item as stored. The same shape is returned by create, get and cancel
         *     (ADR-013); `reference` and `categoryId` are `null` when they were not supplied.
         */
        PartnerTransactionItem: {
            /** @description Product category id, or null. */
            categoryId: components["schemas"]["CategoryId"] | null;
            /**
             * Format: uuid
             * @description Item id (UUID) given by the service.
             */
            id: string;
            /** @description Product name. */
            name: components["schemas"]["ItemName"];
            /** @description Quantity. */
            quantity: components["schemas"]["ItemQuantity"];
            /** @description Product SKU, or null. */
            reference: components["schemas"]["ItemReference"] | null;
            /** @description Unit price in MAD. */
            unitPrice: components["schemas"]["UnitPrice"];
        };
        /**
         * PartnerTransactionItemInput
         * @description One line item of a partner transaction request.
         */
        PartnerTransactionItemInput: {
            /** @description Product category id. */
            categoryId?: components["schemas"]["CategoryId"];
            /** @description Product name. */
            name: components["schemas"]["ItemName"];
            /** @description Quantity. */
            quantity: components["schemas"]["ItemQuantity"];
            /** @description Product SKU. */
            reference?: components["schemas"]["ItemReference"];
            /** @description Unit price in MAD. */
            unitPrice: components["schemas"]["UnitPrice"];
        };
        /**
         * PaymentIntent
         * @description A payment intent created by the browser SDK (internal).
         */
        PaymentIntent: {
            /** @description The hosted checkout page for this intent (absolute URL), on the server's public base URL, never on the request's Host header (ADR-025). */
            checkout_url: string;
            /**
             * Format: uuid
             * @description The payment intent.
             */
            payment_intent_id: string;
        };
        /**
         * PaymentIntentCancellation
         * @description Where the shopper who left the hosted page is sent back (internal).
         */
        PaymentIntentCancellation: {
            /**
             * Format: uuid
             * @description The payment intent.
             */
            payment_intent_id: string;
            /**
             * @description Always `CANCELLED`.
             * @constant
             */
            redirect_status: "CANCELLED";
            /**
             * Format: uri
             * @description The intent's `redirect_url` with `status=CANCELLED` and `transaction_id` added; absent for an intent without one (popup flow).
             */
            redirect_url?: string;
            /**
             * Format: uuid
             * @description The session's checkout transaction, when one was created (a failed payment creates one).
             */
            transaction_id?: string;
        };
        /**
         * PaymentIntentRequest
         * @description Sent by the browser SDK when the shopper presses the payment button (internal).
         */
        PaymentIntentRequest: {
            /**
             * @description The flow the SDK runs.
             * @default redirect
             * @enum {string}
             */
            flow?: "redirect" | "popup" | "button";
            locale?: components["schemas"]["Locale"];
            /** @description The merchant page's origin, to which the hosted page posts its result in the popup flow. Must be one of the merchant's allowed origins. */
            origin?: string;
            /** @description Where the hosted page sends the shopper back (redirect flow). Must be on one of the merchant's allowed origins. Omitted in the popup flow. */
            redirect_url?: string;
        };
        /**
         * RedirectStatus
         * @description The `status` query parameter added to `redirect_url` when the shopper comes back
         *     (ADR-014): `SUCCESS` (paid, APPROVED), `FAILED` (payment failed, the transaction
         *     stays PENDING), `CANCELLED` (the shopper left the hosted page; `transaction_id` is
         *     absent when no transaction was created). Never proof of payment: verify with A2.
         * @enum {string}
         */
        RedirectStatus: "SUCCESS" | "FAILED" | "CANCELLED";
        /**
         * SandboxApiLog
         * @description The caller's API calls recorded by the sandbox since recording started (ADR-056), oldest
         *     first: at most `limit`, later calls only counted in `dropped`. What the go-live check
         *     (`paylater certify`) judges verification before fulfilment, key hygiene and resilience on.
         */
        SandboxApiLog: {
            /** @description Calls made after the log was full, not kept. */
            dropped: number;
            entries: {
                /**
                 * Format: date-time
                 * @description When the call came (merchant sandbox time, like a transaction's `approvedAt`).
                 */
                at: string;
                /**
                 * @description How the call was authenticated; `apiKey` also when the key was sent to a route that does not take it (the SDK's).
                 * @enum {string}
                 */
                credential: "apiKey" | "sessionToken";
                method: string;
                /** @description The operation the call matched, or null (none of the caller's variant). */
                operationId: string | null;
                /** @description The `Origin` header, as sent (a browser sends it; a backend does not). */
                origin: string | null;
                /** @description The request path, without the query. */
                path: string;
                /** @description The `Referer` header, as sent. */
                referer: string | null;
                /** @description The `Sec-Fetch-Site` header, as sent (browsers only). */
                secFetchSite: string | null;
                /** @description The failure the sandbox answered instead of running the call (ADR-052), or null. */
                simulated: string | null;
                /** @description The status answered, or null when no answer was sent (a simulated timeout, a closed connection). */
                status: number | null;
                /** @description The transaction the path names, if any. */
                transactionId: string | null;
                /** @description The vendorReference the path names, if any. */
                vendorReference: string | null;
            }[];
            /** @description The most entries kept. */
            limit: number;
            recording: boolean;
            /**
             * Format: date-time
             * @description When recording started (merchant sandbox time), or null when it never did.
             */
            startedAt: string | null;
        };
        /**
         * SandboxApiLogRequest
         * @description Starts recording the caller's API calls (forgetting the previous recording) or stops it (ADR-056).
         */
        SandboxApiLogRequest: {
            recording: boolean;
        };
        /**
         * SandboxClock
         * @description The sandbox clock of the merchant of the key.
         */
        SandboxClock: {
            /**
             * Format: date-time
             * @description The merchant's sandbox time (ISO 8601 UTC), real time plus the offset.
             */
            now: string;
            /** @description How far this merchant's clock has been advanced, in milliseconds (exact). */
            offsetMilliseconds: number;
            /** @description How far this merchant's clock has been advanced, in whole seconds (rounded down). */
            offsetSeconds: number;
        };
        /**
         * SandboxClockAdvanceRequest
         * @description Moves the merchant's sandbox clock forward, by whole seconds (`seconds`) or by milliseconds
         *     (`milliseconds`): exactly one of the two. Expiries, token lifetimes, rate-limit windows and
         *     webhook retries that fall due are processed before the answer.
         */
        SandboxClockAdvanceRequest: {
            /**
             * @description Milliseconds to advance (from `minimum` to `maximum`), to put the clock just before or at a limit
             *     (a token's lifetime, the payment window, a rate-limit window, a webhook attempt's due time)
             *     finer than a second.
             */
            milliseconds?: number;
            /** @description Seconds to advance (from `minimum` to `maximum`). */
            seconds?: number;
        };
        /**
         * SandboxFaultRule
         * @description The caller's fault rule (ADR-052) and how many of its calls it has answered, or `rule` null when none is set.
         */
        SandboxFaultRule: {
            rule: {
                /** @enum {string} */
                failure: "500" | "503" | "429" | "timeout";
                /** @description The rule's id; a new rule (another PUT) gets a new id and a count from 0. */
                id: string;
                /** @description The operationIds it applies to; null, every one declaring the header and the status. */
                operations: string[] | null;
                /** @description `times` - `used`: 0 once exhausted (calls then run as usual). */
                remaining: number;
                retryAfterSeconds: number | null;
                /**
                 * Format: date-time
                 * @description When it was set (ISO 8601, real time).
                 */
                setAt: string;
                timeoutSeconds: number | null;
                times: number;
                /** @description Matching calls it has answered so far (at most `times`). */
                used: number;
            } | null;
        };
        /**
         * SandboxFaultRuleRequest
         * @description Sets the caller's fault rule (replacing any, its count starting at 0), or removes it with `rule` null (ADR-052).
         */
        SandboxFaultRuleRequest: {
            /** @description A fault rule to set (ADR-052). The next `times` calls of the named operations, made with this merchant's test key, answer `failure` instead of running; nothing is stored. Counted once across every instance of the sandbox. */
            rule: {
                /**
                 * @description The failure to answer, as the `Paylater-Simulate` header names it (`timeout` takes `timeoutSeconds`).
                 * @enum {string}
                 */
                failure: "500" | "503" | "429" | "timeout";
                /** @description The operationIds the rule applies to (each must declare the `Paylater-Simulate` header, and the failure's status); absent, every operation that declares the header and the status. */
                operations?: ("createSession" | "verifyTransaction" | "createPartnerTransaction" | "getPartnerTransaction" | "getPartnerTransactionByVendorReference" | "cancelPartnerTransactionByVendorReference")[];
                /** @description With `failure` `429`, the wait the answer gives (`retry_after`, `Retry-After`, `RateLimit-Reset`); absent, `retryAfterSeconds` of the header's `x-simulate`. Refused with another failure. */
                retryAfterSeconds?: number;
                /** @description With `failure` `timeout`, how long the call gets no answer before its connection is closed (the bounds of the header's `x-simulate`). Required with `timeout`, refused otherwise. */
                timeoutSeconds?: number;
                /** @description How many matching calls answer the failure; later calls run as usual. */
                times: number;
            } | null;
        };
        /**
         * SandboxResetRequest
         * @description What a sandbox reset does besides putting the clock back and clearing the rate-limit windows.
         */
        SandboxResetRequest: {
            /** @description Also delete the merchant's transactions, sessions, payment intents, SMS and webhook deliveries (default false). */
            deleteData?: boolean;
        };
        /**
         * SandboxResetResult
         * @description The merchant's sandbox after a reset.
         */
        SandboxResetResult: {
            /** @description How many records of each kind were deleted (all 0 without `deleteData`). */
            deleted: {
                deliveries: number;
                sessions: number;
                sms: number;
                transactions: number;
            };
            /**
             * Format: date-time
             * @description The merchant's sandbox time, real time again.
             */
            now: string;
            /**
             * @description Always 0 after a reset (ADR-085).
             * @constant
             */
            offsetMilliseconds: 0;
            /**
             * @description Always 0 after a reset.
             * @constant
             */
            offsetSeconds: 0;
        };
        /**
         * SandboxTransactionList
         * @description The merchant's transactions, newest first by their `createdAt` (the instant the merchant's clock gave each; ADR-081), one page at a time (`limit`, `cursor`).
         */
        SandboxTransactionList: {
            data: components["schemas"]["PartnerTransaction"][];
            /** @description The `cursor` of the next page, or null on the last page (ADR-028). */
            nextCursor: string | null;
        };
        /**
         * SessionCurrency
         * @description Currency of the session. Only `MAD` is supported; anything else is `INVALID_CURRENCY`.
         */
        SessionCurrency: components["schemas"]["Currency"];
        /**
         * SessionItem
         * @description One order line of a checkout session.
         */
        SessionItem: {
            /** @description Unique product identifier in the merchant's catalogue. */
            id: components["schemas"]["ItemReference"];
            /** @description Product name. */
            name: components["schemas"]["ItemName"];
            /** @description Unit price in MAD. */
            price: components["schemas"]["UnitPrice"];
            /** @description Quantity. */
            quantity: components["schemas"]["ItemQuantity"];
        };
        /**
         * SessionItems
         * @description Order items (at least one). Any problem with the array or one of its items is
         *     reported as `INVALID_ITEMS`.
         */
        SessionItems: components["schemas"]["SessionItem"][];
        /**
         * SessionPaymentRequest
         * @description What the shopper does on the hosted checkout page in test mode: **Simulate Success**
         *     (`success`, the transaction becomes APPROVED) or **Simulate Failed** (`failed`, the
         *     transaction stays PENDING).
         */
        SessionPaymentRequest: {
            customerPhone?: components["schemas"]["TestShopperPhone"];
            /**
             * @description The simulated outcome.
             * @enum {string}
             */
            outcome: "success" | "failed";
            /** @description The token of the session to pay (`token` in Variant 1, `session_token` in Variant 2). */
            session_token: string;
        };
        /**
         * SessionPaymentResult
         * @description The checkout transaction after a simulated payment, and where the shopper is sent back to.
         */
        SessionPaymentResult: {
            /**
             * Format: uuid
             * @description The payment intent.
             */
            payment_intent_id: string;
            redirect_status: components["schemas"]["RedirectStatus"];
            /**
             * Format: uri
             * @description The merchant's `redirect_url` with `status` and `transaction_id` added, when the intent has one.
             */
            redirect_url?: string;
            status: components["schemas"]["CheckoutStatus"];
            /**
             * Format: uuid
             * @description The checkout transaction (verify it with A2 or A3).
             */
            transaction_id: string;
        };
        /**
         * SessionRequestV2
         * @description Checkout session request, Variant 2: `total` is a decimal string. The total must lie
         *     in the amount range (`x-amount-range`) and equal the sum of `price × quantity` over
         *     `items`, compared in integer centimes (`AMOUNT_MISMATCH` otherwise).
         */
        SessionRequestV2: {
            currency: components["schemas"]["SessionCurrency"];
            items: components["schemas"]["SessionItems"];
            /**
             * @description Total order amount in MAD as a decimal string: digits, optionally a point and one
             *     or two decimals. The pattern checks only that form; the value must also lie within
             *     `x-amount-range`, which the server checks after schema validation. Either failure
             *     is 400 `INVALID_AMOUNT`.
             * @example 1299.50
             */
            total: string;
        };
        /**
         * SessionResponseV2
         * @description Session created (Variant 2).
         */
        SessionResponseV2: {
            /**
             * @description Lifetime of the token in seconds: always `x-token-lifetime-seconds` of the
             *     `SessionToken` scheme, which this `const` copies for typed clients (derived:
             *     `npm run lint -- --fix` writes it).
             * @constant
             */
            expires_in: 3600;
            /** @description Reference of the session, for the merchant's records and for support. */
            session_id: string;
            /** @description The session token, passed to the frontend (`Service.Payments.init({ session_token })`) and sent as `X-Session-Token` to A2. */
            session_token: string;
        };
        /**
         * SimulatePaymentRequest
         * @description The button the shopper pressed on the hosted page in test mode.
         */
        SimulatePaymentRequest: {
            customerPhone?: components["schemas"]["TestShopperPhone"];
            /**
             * @description `success` for Simulate Success, `failed` for Simulate Failed.
             * @enum {string}
             */
            outcome: "success" | "failed";
        };
        /**
         * SmsMessage
         * @description A text message recorded in the sandbox SMS outbox.
         */
        SmsMessage: {
            /** @description The text sent, with the confirmation link. */
            body: string;
            /**
             * Format: uuid
             * @description Message id.
             */
            id: string;
            /**
             * Format: date-time
             * @description When it was sent (sandbox clock, ISO 8601 UTC).
             */
            sentAt: string;
            to: components["schemas"]["CustomerPhone"];
            /**
             * Format: uuid
             * @description The transaction the customer is asked to confirm.
             */
            transactionId: string;
        };
        /**
         * SmsOutbox
         * @description The merchant's sandbox SMS outbox, oldest first (in the order the messages were made, whatever the instants they carry; ADR-081), one page at a time (`limit`, `cursor`).
         */
        SmsOutbox: {
            data: components["schemas"]["SmsMessage"][];
            /** @description The `cursor` of the next page, or null on the last page (ADR-028). */
            nextCursor: string | null;
        };
        /**
         * TestShopperPhone
         * @description The shopper's phone in a payment simulated in test mode; without it, the sandbox's test number, `default`.
         * @default 212600000000
         */
        TestShopperPhone: components["schemas"]["CustomerPhone"];
        /**
         * TransactionApprovedEvent
         * @description Sent when a transaction becomes APPROVED: the customer confirmed a partner transaction
         *     or paid a checkout session (ADR-003). Carries `data.approvedAt`.
         * @example {
         *       "event": "transaction.approved",
         *       "timestamp": "2026-11-20T14:35:09.123Z",
         *       "data": {
         *         "id": "3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10",
         *         "vendorReference": "ORDER-2026-000123",
         *         "orderReference": "ORD-7K2M9Q4XAB",
         *         "status": "APPROVED",
         *         "amount": 1299.5,
         *         "currency": "MAD",
         *         "customerPhone": "212612345678",
         *         "merchantName": "Atlas Electronics",
         *         "storeName": "Atlas Casablanca",
         *         "createdAt": "2026-11-20T14:05:09.000Z",
         *         "approvedAt": "2026-11-20T14:35:09.000Z"
         *       }
         *     }
         */
        TransactionApprovedEvent: {
            data: components["schemas"]["WebhookTransactionData"] & {
                expiredAt?: never;
                /** @constant */
                status?: "APPROVED";
            };
            /**
             * @description The event name.
             * @constant
             */
            event: "transaction.approved";
            /**
             * Format: date-time
             * @description When the webhook was sent (ISO 8601 UTC with milliseconds). Stays the same across retries of one event.
             */
            timestamp: string;
        };
        /**
         * TransactionCancelledEvent
         * @description Sent when a transaction becomes CANCELED: the customer (or the system) cancelled it,
         *     or the merchant cancelled it with B4 (ADR-004).
         * @example {
         *       "event": "transaction.cancelled",
         *       "timestamp": "2026-11-20T14:35:09.123Z",
         *       "data": {
         *         "id": "3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10",
         *         "vendorReference": "ORDER-2026-000123",
         *         "orderReference": "ORD-7K2M9Q4XAB",
         *         "status": "CANCELED",
         *         "amount": 1299.5,
         *         "currency": "MAD",
         *         "customerPhone": "212612345678",
         *         "merchantName": "Atlas Electronics",
         *         "storeName": "Atlas Casablanca",
         *         "createdAt": "2026-11-20T14:05:09.000Z"
         *       }
         *     }
         */
        TransactionCancelledEvent: {
            data: components["schemas"]["WebhookTransactionData"] & {
                approvedAt?: never;
                expiredAt?: never;
                /** @constant */
                status: "CANCELED";
            };
            /**
             * @description The event name.
             * @constant
             */
            event: "transaction.cancelled";
            /**
             * Format: date-time
             * @description When the webhook was sent (ISO 8601 UTC with milliseconds). Stays the same across retries of one event.
             */
            timestamp: string;
        };
        /**
         * TransactionExpiredEvent
         * @description Sent when the payment window of a PENDING transaction passes (`paymentWindow` of the `x-state-machine`).
         *     Carries `data.expiredAt`.
         * @example {
         *       "event": "transaction.expired",
         *       "timestamp": "2026-11-20T14:35:09.123Z",
         *       "data": {
         *         "id": "3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10",
         *         "vendorReference": "ORDER-2026-000123",
         *         "orderReference": "ORD-7K2M9Q4XAB",
         *         "status": "EXPIRED",
         *         "amount": 1299.5,
         *         "currency": "MAD",
         *         "customerPhone": "212612345678",
         *         "merchantName": "Atlas Electronics",
         *         "storeName": "Atlas Casablanca",
         *         "createdAt": "2026-11-20T14:05:09.000Z",
         *         "expiredAt": "2026-11-20T14:35:09.000Z"
         *       }
         *     }
         */
        TransactionExpiredEvent: {
            data: components["schemas"]["WebhookTransactionData"] & {
                approvedAt?: never;
                /** @constant */
                status?: "EXPIRED";
            };
            /**
             * @description The event name.
             * @constant
             */
            event: "transaction.expired";
            /**
             * Format: date-time
             * @description When the webhook was sent (ISO 8601 UTC with milliseconds). Stays the same across retries of one event.
             */
            timestamp: string;
        };
        /**
         * TransactionStatus
         * @description Status of a transaction. The life cycle is given machine-readably by `x-state-machine`:
         *     the reference server and the conformance suite both read it from here.
         *
         *     - `PENDING`: created, waiting for the customer (SMS confirmation or checkout payment).
         *     - `APPROVED`: the customer confirmed or paid; the only status in which an order may be fulfilled.
         *     - `CANCELED`: cancelled by the merchant (B4), the customer or the system.
         *     - `EXPIRED`: the payment window passed without confirmation.
         *     - `COMPLETED`: every instalment of an approved transaction has been collected.
         * @enum {string}
         */
        TransactionStatus: "PENDING" | "APPROVED" | "CANCELED" | "EXPIRED" | "COMPLETED";
        /**
         * TransactionStatusRecord
         * @description Transaction status as returned by the session-token verification (A2).
         */
        TransactionStatusRecord: {
            /** @description Transaction amount in MAD. */
            amount: components["schemas"]["Money"];
            created_at: components["schemas"]["LocalDateTime"];
            currency: components["schemas"]["Currency"];
            customer_phone: components["schemas"]["CustomerPhone"];
            /** @description Merchant name. */
            merchant_name: string;
            /**
             * Format: uuid
             * @description Payment intent identifier.
             */
            payment_intent_id: string;
            status: components["schemas"]["CheckoutStatus"];
            /** @description Store name. */
            store_name: string;
            /**
             * Format: uuid
             * @description Transaction identifier.
             */
            transaction_id: string;
            updated_at: components["schemas"]["LocalDateTime"];
        };
        /**
         * UnitPrice
         * @description Unit price of an order line in MAD, at least one centime (A1 `price`, B1 `unitPrice`, ADR-012).
         */
        UnitPrice: components["schemas"]["Money"];
        /**
         * VendorReference
         * @description The merchant's own order id. Unique per merchant (another merchant may use the same
         *     value), returned in webhooks for matching. It appears as a path segment of B3 and B4,
         *     so it is limited to URL-safe characters and must start with a letter or digit.
         * @example ORDER-2026-000123
         */
        VendorReference: string;
        /**
         * @description Unique id of the event (`msg_…`); the same across every retry and redelivery. De-duplicate on it.
         * @example msg_2KWPBgLlAfxdpx2AI54pPJ85f4W
         */
        "webhook-id": string;
        /**
         * @description Space-separated list of `v1,<base64 signature>`: the HMAC-SHA256, keyed with the
         *     base64-decoded part of the secret after `whsec_`, of
         *     `<webhook-id>.<webhook-timestamp>.<raw body>`. Several appear while a secret is
         *     rotated; one matching is enough.
         * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
         */
        "webhook-signature": string;
        /**
         * @description Unix time in seconds at which this attempt was signed. Reject a request further from your clock than the signature's `toleranceSeconds` (`x-webhook-delivery`).
         * @example 1795271709
         */
        "webhook-timestamp": string;
        /**
         * WebhookDelivery
         * @description One webhook event for the merchant, with every attempt to deliver it.
         */
        WebhookDelivery: {
            attempts: components["schemas"]["WebhookDeliveryAttempt"][];
            /**
             * Format: date-time
             * @description When the event was recorded.
             */
            createdAt: string;
            /**
             * @description The event name.
             * @enum {string}
             */
            event: "transaction.approved" | "transaction.cancelled" | "transaction.expired";
            /** @description The `webhook-id` (`msg_…`), the same across every attempt and redelivery. */
            id: string;
            /**
             * Format: date-time
             * @description When the next attempt is due, or null.
             */
            nextAttemptAt: string | null;
            /** @description The exact body sent. */
            payload: components["schemas"]["TransactionApprovedEvent"] | components["schemas"]["TransactionCancelledEvent"] | components["schemas"]["TransactionExpiredEvent"];
            /**
             * @description `pending`: waiting for its next attempt; `delivered`: a 2xx answer was received;
             *     `failed`: every attempt of the schedule failed; `disabled`: the endpoint answered
             *     410 and was disabled; `no_endpoint`: the merchant has no webhook URL.
             * @enum {string}
             */
            state: "pending" | "delivered" | "failed" | "disabled" | "no_endpoint";
            /**
             * Format: uuid
             * @description The transaction the event is about.
             */
            transactionId: string;
            /** @description The webhook URL at the time of the event, or null. */
            url: string | null;
        };
        /**
         * WebhookDeliveryAttempt
         * @description One attempt to deliver a webhook.
         */
        WebhookDeliveryAttempt: {
            /**
             * Format: date-time
             * @description When the attempt started (sandbox clock).
             */
            at: string;
            /** @description 1 for the first attempt. */
            attempt: number;
            /** @description How long the attempt took, in milliseconds. */
            durationMs: number;
            /** @description Why the attempt failed without an HTTP answer (`ECONNREFUSED`, `timeout`, …), or null. */
            error: string | null;
            /** @description The signed headers sent with this attempt (each attempt is signed afresh; `webhook-id` stays the same). */
            headers: components["schemas"]["WebhookHeaders"];
            /** @description The receiver's HTTP status, or null when no answer came (refused, timeout). */
            status: number | null;
        };
        /**
         * WebhookDeliveryList
         * @description The merchant's webhook deliveries, newest first (in the order the events were made, whatever the instants they carry; ADR-081), one page at a time (`limit`, `cursor`).
         */
        WebhookDeliveryList: {
            data: components["schemas"]["WebhookDelivery"][];
            /** @description The `cursor` of the next page, or null on the last page (ADR-028). */
            nextCursor: string | null;
        };
        /**
         * WebhookEndpoint
         * @description Where and how the sandbox delivers the merchant's webhooks.
         */
        WebhookEndpoint: {
            /** @description False once the endpoint answered 410 Gone, until a redelivery or a new URL. */
            enabled: boolean;
            /** @description During a rotation window, the previous secret, which still signs every delivery beside the new one; null otherwise. */
            previousSecret: components["schemas"]["WebhookSecret"] | null;
            /**
             * Format: date-time
             * @description When the previous secret stops signing (merchant's sandbox time), or null.
             */
            previousSecretExpiresAt: string | null;
            /** @description The signing secret, or null when none is set. */
            secret: components["schemas"]["WebhookSecret"] | null;
            /**
             * Format: uri
             * @description The webhook URL, or null (events are recorded as `no_endpoint`).
             */
            url: string | null;
        };
        /**
         * WebhookEndpointRequest
         * @description The webhook URL to deliver to, and optionally the secret to sign with.
         */
        WebhookEndpointRequest: {
            /** @description The signing secret to use; without it the current one is kept, or one is generated. */
            secret?: components["schemas"]["WebhookSecret"];
            /** @description An absolute http or https URL (at most `maxLength` characters), or null to stop delivering. */
            url: string | null;
        };
        /**
         * WebhookHeaders
         * @description The headers of every webhook request (Standard Webhooks v1, ADR-005). Shared by the
         *     OpenAPI `webhooks` and the AsyncAPI messages. `x-webhook-delivery` gives the signing
         *     rule and the retry schedule that the reference server follows.
         */
        WebhookHeaders: {
            /**
             * @description Unique id of the event (`msg_…`); the same across every retry and redelivery. De-duplicate on it.
             * @example msg_2KWPBgLlAfxdpx2AI54pPJ85f4W
             */
            "webhook-id": string;
            /**
             * @description Space-separated list of `v1,<base64 signature>`: the HMAC-SHA256, keyed with the
             *     base64-decoded part of the secret after `whsec_`, of
             *     `<webhook-id>.<webhook-timestamp>.<raw body>`. Several appear while a secret is
             *     rotated; one matching is enough.
             * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
             */
            "webhook-signature": string;
            /**
             * @description Unix time in seconds at which this attempt was signed. Reject a request further from your clock than the signature's `toleranceSeconds` (`x-webhook-delivery`).
             * @example 1795271709
             */
            "webhook-timestamp": string;
        };
        /**
         * WebhookSecret
         * @description A Standard Webhooks signing secret, `whsec_` followed by the base64 of the key.
         */
        WebhookSecret: string;
        /**
         * WebhookSecretRotationRequest
         * @description How long the previous secret keeps signing beside the new one.
         */
        WebhookSecretRotationRequest: {
            /**
             * @description Seconds of the merchant's sandbox time during which both secrets sign (`default` when left out; 0 drops the previous secret at once).
             * @default 86400
             */
            overlapSeconds?: number;
        };
        /**
         * WebhookTestRequest
         * @description Which event to send as a test.
         */
        WebhookTestRequest: {
            /**
             * @description The event type (default `transaction.approved`).
             * @enum {string}
             */
            event?: "transaction.approved" | "transaction.cancelled" | "transaction.expired";
        };
        /**
         * WebhookTransactionData
         * @description The transaction as carried by every webhook event (`data`). Shared by the OpenAPI
         *     `webhooks` and the AsyncAPI messages: both documents reference this one file.
         */
        WebhookTransactionData: {
            /** @description Amount in MAD (at most two decimals). */
            amount: number;
            /**
             * Format: date-time
             * @description When the transaction was approved. Present only in `transaction.approved`.
             */
            approvedAt?: string;
            /**
             * Format: date-time
             * @description Creation time of the transaction (ISO 8601 UTC).
             */
            createdAt: string;
            currency: components["schemas"]["Currency"];
            customerPhone: components["schemas"]["CustomerPhone"];
            /**
             * Format: date-time
             * @description When the payment window passed. Present only in `transaction.expired`.
             */
            expiredAt?: string;
            /**
             * Format: uuid
             * @description Transaction id.
             */
            id: string;
            /** @description Merchant name. */
            merchantName: string;
            /** @description Order reference given by the service. */
            orderReference: string;
            /**
             * @description The status the transaction has just entered.
             * @enum {string}
             */
            status: "APPROVED" | "CANCELED" | "EXPIRED";
            /** @description Store name. */
            storeName: string;
            /** @description The merchant's reference (null for a transaction created without one, and for checkout transactions). */
            vendorReference: components["schemas"]["VendorReference"] | null;
        };
    };
    responses: {
        /** @description Too many failed authentications from this client address: over `x-auth-failure-limit` of the security scheme in the current window (ADR-027). `retry_after` and `Retry-After` give the seconds left in the window. */
        AuthThrottled: {
            headers: {
                /** @description Seconds to wait before retrying (RFC 9110), the same value as `error.retry_after`. */
                "Retry-After": number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "AUTH_THROTTLED";
                        retry_after: number;
                    };
                };
            };
        };
        /** @description A parameter or the body fails validation, or the request carries a query parameter the operation does not declare (ADR-022). */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "VALIDATION_ERROR";
                    };
                };
            };
        };
        /** @description The webhook delivery does not exist or belongs to another merchant. */
        DeliveryNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "DELIVERY_NOT_FOUND";
                    };
                };
            };
        };
        /** @description An unexpected server problem; nothing was changed and the request may be retried. */
        InternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "INTERNAL_ERROR";
                    };
                };
            };
        };
        /** @description The session token is missing, invalid, expired or not for this transaction. */
        InvalidSessionToken: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "INVALID_SESSION_TOKEN";
                    };
                };
            };
        };
        /** @description The transaction exists but is not in APPROVED status (or a parameter is invalid). */
        NotApproved: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "TRANSACTION_NOT_APPROVED" | "VALIDATION_ERROR";
                    };
                };
            };
        };
        /** @description The transaction exists but is not in PENDING status (or a parameter is invalid). */
        NotPending: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "TRANSACTION_NOT_PENDING" | "VALIDATION_ERROR";
                    };
                };
            };
        };
        /** @description The store is not reachable: it failed, or a write did not reach the disk within the probe's wait. */
        NotReady: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "NOT_READY";
                    };
                };
            };
        };
        /** @description The transaction request fails validation (missing field, invalid phone format, …). */
        PartnerCreateBadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "VALIDATION_ERROR" | "AMOUNT_MISMATCH";
                    };
                };
            };
        };
        /** @description The merchant already used this vendorReference. */
        PartnerCreateConflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "DUPLICATE_VENDOR_REFERENCE";
                    };
                };
            };
        };
        /** @description A business rule forbids the transaction. */
        PartnerCreateUnprocessable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "MERCHANT_INACTIVE" | "AMOUNT_OUT_OF_RANGE" | "CREDIT_LIMIT_EXCEEDED";
                    };
                };
            };
        };
        /** @description The request body is larger than `x-max-body-bytes` (the example shows it in kB; `npm run lint -- --fix` writes it). */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "PAYLOAD_TOO_LARGE";
                    };
                };
            };
        };
        /** @description The payment intent request is invalid. */
        PaymentIntentBadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "INVALID_REDIRECT_URL" | "VALIDATION_ERROR";
                    };
                };
            };
        };
        /** @description The session already holds `x-max-payment-intents` payment intents (ADR-029). */
        PaymentIntentUnprocessable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "TOO_MANY_PAYMENT_INTENTS";
                    };
                };
            };
        };
        /** @description Too many requests: over the limit of the operation's `x-rate-limit` in the current window for this API key. `error.retry_after`, `Retry-After` and `RateLimit-Reset` give the same wait, the seconds until the window ends (ADR-006); the examples show one wait within the window (`npm run lint` checks it, `--fix` brings it into the window). `AUTH_THROTTLED`: too many failed authentications from this client address (`x-auth-failure-limit`, ADR-027); its `retry_after` and `Retry-After` are the seconds until that window ends, with no `RateLimit-*` headers, as no API key was accepted. */
        RateLimited: {
            headers: {
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "RATE_LIMIT_EXCEEDED" | "AUTH_THROTTLED";
                        retry_after: number;
                    };
                };
            };
        };
        /** @description The session request is invalid. */
        SessionBadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "INVALID_AMOUNT" | "INVALID_CURRENCY" | "INVALID_ITEMS" | "AMOUNT_MISMATCH" | "VALIDATION_ERROR";
                    };
                };
            };
        };
        /** @description The checkout session or payment intent does not exist or belongs to another merchant. */
        SessionNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "SESSION_NOT_FOUND";
                    };
                };
            };
        };
        /** @description The server could not reach or write to its storage (disk full, I/O error, database out of reach). A write is answered only once it is durable (ADR-047); this one was not, and nothing of it was kept. On the embedded store (SQLite, ADR-046) reads keep answering; writing resumes once storage works again (ADR-026). Retry after `Retry-After` seconds. */
        StorageUnavailable: {
            headers: {
                /** @description Seconds to wait before retrying (RFC 9110), the same value as `error.retry_after`. The one statement of how long the server refuses writes after a failed one. */
                "Retry-After": 5;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "STORAGE_UNAVAILABLE";
                        retry_after: number;
                    };
                };
            };
        };
        /** @description The transaction does not exist or belongs to another merchant; both cases get this identical body. */
        TransactionNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "TRANSACTION_NOT_FOUND";
                    };
                };
            };
        };
        /** @description The API key is missing, unknown or of the wrong mode. */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "INVALID_API_KEY";
                    };
                };
            };
        };
        /** @description The API key is missing, unknown or of the wrong mode, or the session token is invalid or expired. */
        UnauthorizedKeyOrToken: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "INVALID_API_KEY" | "INVALID_SESSION_TOKEN";
                    };
                };
            };
        };
        /** @description The request body is not application/json. */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "UNSUPPORTED_MEDIA_TYPE";
                    };
                };
            };
        };
    };
    parameters: {
        /**
         * @description Where the page starts, the `nextCursor` of the previous page (opaque). Without it, the first page. An unknown cursor answers 400 `VALIDATION_ERROR` naming `query.cursor`.
         * @example eyJhIjoiNWQxZTJmM2EifQ
         */
        cursor: string;
        /**
         * @description The delivery id, which is the `webhook-id` of the event.
         * @example msg_2KWPBgLlAfxdpx2AI54pPJ85f4W
         */
        deliveryId: string;
        /**
         * @description How many items one page holds at most (ADR-028). The server's default and the largest value accepted are this schema's `default` and `maximum`.
         * @example 50
         */
        limit: number;
        /**
         * @description Sandbox only, test keys only (ADR-052): asks the sandbox to answer this call with a failure
         *     instead of running it, so that a merchant can rehearse the API's failures. Nothing is
         *     stored and nothing changes. `500` answers `INTERNAL_ERROR`; `503` answers
         *     `STORAGE_UNAVAILABLE` with its `Retry-After`; `429` answers `RATE_LIMIT_EXCEEDED` with
         *     `retry_after` of `retryAfterSeconds` (only on an operation with `x-rate-limit`, A1);
         *     `timeout=SECONDS` (within `timeoutSeconds`) sends no answer and closes the connection
         *     after that many seconds. An operation that
         *     does not declare the status asked for answers 400 `VALIDATION_ERROR`. Production refuses
         *     any request carrying this header with 400 `VALIDATION_ERROR`.
         * @example 503
         */
        "Paylater-Simulate": string;
        /**
         * @description The payment intent id.
         * @example 0b6a1b7e-52a4-4d2e-9d7f-1c0f5b2d8e61
         */
        paymentIntentId: string;
        /**
         * @description The transaction id received from the payment callback or the redirect (`transaction_id`).
         * @example 3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10
         */
        transaction_id: string;
        /**
         * @description The transaction id (UUID).
         * @example 3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10
         */
        transactionId: string;
        /**
         * @description The merchant's own order id given at creation, exactly as written then (letter case included, ADR-049).
         * @example ORDER-2026-000123
         */
        vendorReference: components["schemas"]["VendorReference"];
    };
    requestBodies: never;
    headers: {
        /**
         * @description Requests allowed in the window for this API key (IETF draft-ietf-httpapi-ratelimit-headers): `limit` of the operation's `x-rate-limit`.
         * @example 100
         */
        "RateLimit-Limit": number;
        /**
         * @description The quota policy, `<limit>;w=<windowSeconds>` of the operation's `x-rate-limit` (this `const` and the example copy it; `npm run lint -- --fix` writes them).
         * @example 100;w=900
         */
        "RateLimit-Policy": "100;w=900";
        /**
         * @description Requests left in the current window, this request counted.
         * @example 0
         */
        "RateLimit-Remaining": number;
        /**
         * @description Seconds until the current window ends and the count starts again.
         * @example 412
         */
        "RateLimit-Reset": number;
        /**
         * @description Seconds to wait before retrying (RFC 9110), the same value as `error.retry_after` and `RateLimit-Reset`: the seconds until the window of the operation's `x-rate-limit` ends.
         * @example 412
         */
        "Retry-After": number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    createPartnerTransaction: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Sandbox only, test keys only (ADR-052): asks the sandbox to answer this call with a failure
                 *     instead of running it, so that a merchant can rehearse the API's failures. Nothing is
                 *     stored and nothing changes. `500` answers `INTERNAL_ERROR`; `503` answers
                 *     `STORAGE_UNAVAILABLE` with its `Retry-After`; `429` answers `RATE_LIMIT_EXCEEDED` with
                 *     `retry_after` of `retryAfterSeconds` (only on an operation with `x-rate-limit`, A1);
                 *     `timeout=SECONDS` (within `timeoutSeconds`) sends no answer and closes the connection
                 *     after that many seconds. An operation that
                 *     does not declare the status asked for answers 400 `VALIDATION_ERROR`. Production refuses
                 *     any request carrying this header with 400 `VALIDATION_ERROR`.
                 * @example 503
                 */
                "Paylater-Simulate"?: components["parameters"]["Paylater-Simulate"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PartnerTransactionCreateRequest"];
            };
        };
        responses: {
            /** @description Created, `PENDING`, `updatedAt` null; the confirmation SMS is on its way. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartnerTransaction"];
                };
            };
            400: components["responses"]["PartnerCreateBadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["PartnerCreateConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["PartnerCreateUnprocessable"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    getPartnerTransaction: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Sandbox only, test keys only (ADR-052): asks the sandbox to answer this call with a failure
                 *     instead of running it, so that a merchant can rehearse the API's failures. Nothing is
                 *     stored and nothing changes. `500` answers `INTERNAL_ERROR`; `503` answers
                 *     `STORAGE_UNAVAILABLE` with its `Retry-After`; `429` answers `RATE_LIMIT_EXCEEDED` with
                 *     `retry_after` of `retryAfterSeconds` (only on an operation with `x-rate-limit`, A1);
                 *     `timeout=SECONDS` (within `timeoutSeconds`) sends no answer and closes the connection
                 *     after that many seconds. An operation that
                 *     does not declare the status asked for answers 400 `VALIDATION_ERROR`. Production refuses
                 *     any request carrying this header with 400 `VALIDATION_ERROR`.
                 * @example 503
                 */
                "Paylater-Simulate"?: components["parameters"]["Paylater-Simulate"];
            };
            path: {
                /**
                 * @description The transaction id (UUID).
                 * @example 3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10
                 */
                transactionId: components["parameters"]["transactionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transaction. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartnerTransaction"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["TransactionNotFound"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    getPartnerTransactionByVendorReference: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Sandbox only, test keys only (ADR-052): asks the sandbox to answer this call with a failure
                 *     instead of running it, so that a merchant can rehearse the API's failures. Nothing is
                 *     stored and nothing changes. `500` answers `INTERNAL_ERROR`; `503` answers
                 *     `STORAGE_UNAVAILABLE` with its `Retry-After`; `429` answers `RATE_LIMIT_EXCEEDED` with
                 *     `retry_after` of `retryAfterSeconds` (only on an operation with `x-rate-limit`, A1);
                 *     `timeout=SECONDS` (within `timeoutSeconds`) sends no answer and closes the connection
                 *     after that many seconds. An operation that
                 *     does not declare the status asked for answers 400 `VALIDATION_ERROR`. Production refuses
                 *     any request carrying this header with 400 `VALIDATION_ERROR`.
                 * @example 503
                 */
                "Paylater-Simulate"?: components["parameters"]["Paylater-Simulate"];
            };
            path: {
                /**
                 * @description The merchant's own order id given at creation, exactly as written then (letter case included, ADR-049).
                 * @example ORDER-2026-000123
                 */
                vendorReference: components["parameters"]["vendorReference"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transaction. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartnerTransaction"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["TransactionNotFound"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    cancelPartnerTransactionByVendorReference: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Sandbox only, test keys only (ADR-052): asks the sandbox to answer this call with a failure
                 *     instead of running it, so that a merchant can rehearse the API's failures. Nothing is
                 *     stored and nothing changes. `500` answers `INTERNAL_ERROR`; `503` answers
                 *     `STORAGE_UNAVAILABLE` with its `Retry-After`; `429` answers `RATE_LIMIT_EXCEEDED` with
                 *     `retry_after` of `retryAfterSeconds` (only on an operation with `x-rate-limit`, A1);
                 *     `timeout=SECONDS` (within `timeoutSeconds`) sends no answer and closes the connection
                 *     after that many seconds. An operation that
                 *     does not declare the status asked for answers 400 `VALIDATION_ERROR`. Production refuses
                 *     any request carrying this header with 400 `VALIDATION_ERROR`.
                 * @example 503
                 */
                "Paylater-Simulate"?: components["parameters"]["Paylater-Simulate"];
            };
            path: {
                /**
                 * @description The merchant's own order id given at creation, exactly as written then (letter case included, ADR-049).
                 * @example ORDER-2026-000123
                 */
                vendorReference: components["parameters"]["vendorReference"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartnerTransaction"];
                };
            };
            400: components["responses"]["NotPending"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["TransactionNotFound"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sdkCreatePaymentIntent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PaymentIntentRequest"];
            };
        };
        responses: {
            /** @description The payment intent. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentIntent"];
                };
            };
            400: components["responses"]["PaymentIntentBadRequest"];
            401: components["responses"]["InvalidSessionToken"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["PaymentIntentUnprocessable"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sdkCancelPaymentIntent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The payment intent id.
                 * @example 0b6a1b7e-52a4-4d2e-9d7f-1c0f5b2d8e61
                 */
                paymentIntentId: components["parameters"]["paymentIntentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Where to send the shopper back. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentIntentCancellation"];
                };
            };
            400: components["responses"]["NotPending"];
            401: components["responses"]["InvalidSessionToken"];
            404: components["responses"]["SessionNotFound"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sdkSimulatePayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The payment intent id.
                 * @example 0b6a1b7e-52a4-4d2e-9d7f-1c0f5b2d8e61
                 */
                paymentIntentId: components["parameters"]["paymentIntentId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SimulatePaymentRequest"];
            };
        };
        responses: {
            /** @description The checkout transaction after the simulated payment, with the redirect back to the merchant. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionPaymentResult"];
                };
            };
            400: components["responses"]["NotPending"];
            401: components["responses"]["InvalidSessionToken"];
            404: components["responses"]["SessionNotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sdkGetSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session summary. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckoutSessionSummary"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["InvalidSessionToken"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Sandbox only, test keys only (ADR-052): asks the sandbox to answer this call with a failure
                 *     instead of running it, so that a merchant can rehearse the API's failures. Nothing is
                 *     stored and nothing changes. `500` answers `INTERNAL_ERROR`; `503` answers
                 *     `STORAGE_UNAVAILABLE` with its `Retry-After`; `429` answers `RATE_LIMIT_EXCEEDED` with
                 *     `retry_after` of `retryAfterSeconds` (only on an operation with `x-rate-limit`, A1);
                 *     `timeout=SECONDS` (within `timeoutSeconds`) sends no answer and closes the connection
                 *     after that many seconds. An operation that
                 *     does not declare the status asked for answers 400 `VALIDATION_ERROR`. Production refuses
                 *     any request carrying this header with 400 `VALIDATION_ERROR`.
                 * @example 503
                 */
                "Paylater-Simulate"?: components["parameters"]["Paylater-Simulate"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SessionRequestV2"];
            };
        };
        responses: {
            /** @description Session created. */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionResponseV2"];
                };
            };
            400: components["responses"]["SessionBadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    getTransactionStatusBySessionToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The transaction id received from the payment callback or the redirect (`transaction_id`).
                 * @example 3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10
                 */
                transaction_id: components["parameters"]["transaction_id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transaction status. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransactionStatusRecord"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["InvalidSessionToken"];
            404: components["responses"]["TransactionNotFound"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sandboxGetApiLog: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The log. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SandboxApiLog"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sandboxSetApiLog: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SandboxApiLogRequest"];
            };
        };
        responses: {
            /** @description The log after the change. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SandboxApiLog"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sandboxGetClock: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The clock. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SandboxClock"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sandboxAdvanceClock: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SandboxClockAdvanceRequest"];
            };
        };
        responses: {
            /** @description The clock after the move. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SandboxClock"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sandboxStreamEvents: {
        parameters: {
            query?: {
                /** @description The same as `Last-Event-ID`, for clients that cannot set headers. */
                after?: string;
            };
            header?: {
                /** @description The `id` of the last event received; the stream resumes after it. */
                "Last-Event-ID"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream (never ends on its own). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example id: msg_2qKJ8hQ0X7b3T5mW9sLdPa
                     *     event: transaction.approved
                     *     data: {"id":"msg_2qKJ8hQ0X7b3T5mW9sLdPa","event":"transaction.approved","transactionId":"3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10","createdAt":"2026-11-20T14:06:09.000Z","payload":{}}
                     */
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
        };
    };
    sandboxGetFaultRule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rule, or `rule` null. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SandboxFaultRule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sandboxSetFaultRule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SandboxFaultRuleRequest"];
            };
        };
        responses: {
            /** @description The rule after the change. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SandboxFaultRule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sandboxReset: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SandboxResetRequest"];
            };
        };
        responses: {
            /** @description The sandbox after the reset. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SandboxResetResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
        };
    };
    sandboxPaySession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SessionPaymentRequest"];
            };
        };
        responses: {
            /** @description The checkout transaction after the simulated payment. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionPaymentResult"];
                };
            };
            400: components["responses"]["NotPending"];
            401: components["responses"]["UnauthorizedKeyOrToken"];
            404: components["responses"]["SessionNotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sandboxListSms: {
        parameters: {
            query?: {
                /**
                 * @description Where the page starts, the `nextCursor` of the previous page (opaque). Without it, the first page. An unknown cursor answers 400 `VALIDATION_ERROR` naming `query.cursor`.
                 * @example eyJhIjoiNWQxZTJmM2EifQ
                 */
                cursor?: components["parameters"]["cursor"];
                /**
                 * @description How many items one page holds at most (ADR-028). The server's default and the largest value accepted are this schema's `default` and `maximum`.
                 * @example 50
                 */
                limit?: components["parameters"]["limit"];
                /** @description Only the SMS sent for this transaction (ADR-028). */
                transactionId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The outbox. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SmsOutbox"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sandboxListTransactions: {
        parameters: {
            query?: {
                /**
                 * @description Where the page starts, the `nextCursor` of the previous page (opaque). Without it, the first page. An unknown cursor answers 400 `VALIDATION_ERROR` naming `query.cursor`.
                 * @example eyJhIjoiNWQxZTJmM2EifQ
                 */
                cursor?: components["parameters"]["cursor"];
                /**
                 * @description How many items one page holds at most (ADR-028). The server's default and the largest value accepted are this schema's `default` and `maximum`.
                 * @example 50
                 */
                limit?: components["parameters"]["limit"];
                /** @description Only transactions in this status. */
                status?: components["schemas"]["TransactionStatus"];
                /** @description Only the transaction with this `vendorReference`. */
                vendorReference?: components["schemas"]["VendorReference"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transactions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SandboxTransactionList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
        };
    };
    sandboxCancelTransaction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The transaction id (UUID).
                 * @example 3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10
                 */
                transactionId: components["parameters"]["transactionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transaction after the change. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartnerTransaction"];
                };
            };
            400: components["responses"]["NotPending"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["TransactionNotFound"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sandboxCompleteTransaction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The transaction id (UUID).
                 * @example 3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10
                 */
                transactionId: components["parameters"]["transactionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transaction after the change. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartnerTransaction"];
                };
            };
            400: components["responses"]["NotApproved"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["TransactionNotFound"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sandboxConfirmTransaction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The transaction id (UUID).
                 * @example 3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10
                 */
                transactionId: components["parameters"]["transactionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transaction after the change. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartnerTransaction"];
                };
            };
            400: components["responses"]["NotPending"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["TransactionNotFound"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sandboxListWebhookDeliveries: {
        parameters: {
            query?: {
                /**
                 * @description Where the page starts, the `nextCursor` of the previous page (opaque). Without it, the first page. An unknown cursor answers 400 `VALIDATION_ERROR` naming `query.cursor`.
                 * @example eyJhIjoiNWQxZTJmM2EifQ
                 */
                cursor?: components["parameters"]["cursor"];
                /**
                 * @description How many items one page holds at most (ADR-028). The server's default and the largest value accepted are this schema's `default` and `maximum`.
                 * @example 50
                 */
                limit?: components["parameters"]["limit"];
                /** @description Only the events of this transaction (ADR-028). */
                transactionId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The deliveries. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sandboxRedeliverWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The delivery id, which is the `webhook-id` of the event.
                 * @example msg_2KWPBgLlAfxdpx2AI54pPJ85f4W
                 */
                deliveryId: components["parameters"]["deliveryId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery with the new attempt queued. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["DeliveryNotFound"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["StorageUnavailable"];
        };
    };
    sandboxGetWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
        };
    };
    sandboxSetWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEndpointRequest"];
            };
        };
        responses: {
            /** @description The endpoint after the change. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
        };
    };
    sandboxRotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookSecretRotationRequest"];
            };
        };
        responses: {
            /** @description The endpoint with its new secret. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
        };
    };
    sandboxSendTestWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookTestRequest"];
            };
        };
        responses: {
            /** @description The delivery, queued (or `no_endpoint` without a URL). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AuthThrottled"];
            500: components["responses"]["InternalError"];
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HealthStatus"];
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HealthStatus"];
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["NotReady"];
        };
    };
    webhookTransactionApproved: {
        parameters: {
            query?: never;
            header: {
                "webhook-id": components["schemas"]["webhook-id"];
                "webhook-signature": components["schemas"]["webhook-signature"];
                "webhook-timestamp": components["schemas"]["webhook-timestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TransactionApprovedEvent"];
            };
        };
        responses: {
            /** @description Received. Any 2xx counts as delivered. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The endpoint is gone; the service disables it and stops sending. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookTransactionCancelled: {
        parameters: {
            query?: never;
            header: {
                "webhook-id": components["schemas"]["webhook-id"];
                "webhook-signature": components["schemas"]["webhook-signature"];
                "webhook-timestamp": components["schemas"]["webhook-timestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TransactionCancelledEvent"];
            };
        };
        responses: {
            /** @description Received. Any 2xx counts as delivered. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The endpoint is gone; the service disables it and stops sending. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookTransactionExpired: {
        parameters: {
            query?: never;
            header: {
                "webhook-id": components["schemas"]["webhook-id"];
                "webhook-signature": components["schemas"]["webhook-signature"];
                "webhook-timestamp": components["schemas"]["webhook-timestamp"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TransactionExpiredEvent"];
            };
        };
        responses: {
            /** @description Received. Any 2xx counts as delivered. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The endpoint is gone; the service disables it and stops sending. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
