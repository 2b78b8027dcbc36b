/**
 * GENERATED FILE — DO NOT EDIT.
 * Written by `npm run generate` from spec/ (the source of truth); edit spec/ and regenerate.
 */
import type { OperationEntry, OperationHandler, RequestOf, ResponseOf } from '../../server/types.ts';
import type { operations } from './schema.d.ts';

/** The operationIds of Variant 1. */
export type OperationId = "createSession" | "getTransactionStatusBySessionToken" | "verifyTransaction" | "createPartnerTransaction" | "getPartnerTransaction" | "getPartnerTransactionByVendorReference" | "cancelPartnerTransactionByVendorReference" | "sdkGetSession" | "sdkCreatePaymentIntent" | "sdkSimulatePayment" | "sdkCancelPaymentIntent" | "sandboxConfirmTransaction" | "sandboxCancelTransaction" | "sandboxCompleteTransaction" | "sandboxPaySession" | "sandboxGetClock" | "sandboxAdvanceClock" | "sandboxListSms" | "sandboxListWebhookDeliveries" | "sandboxRedeliverWebhook" | "sandboxGetWebhookEndpoint" | "sandboxSetWebhookEndpoint" | "sandboxRotateWebhookSecret" | "sandboxSendTestWebhook" | "sandboxListTransactions" | "sandboxStreamEvents" | "sandboxReset" | "sandboxGetFaultRule" | "sandboxSetFaultRule" | "sandboxGetApiLog" | "sandboxSetApiLog" | "getHealth" | "getReadiness";

/** What the handler of `Id` receives: path parameters, query, declared headers, body. */
export type Request<Id extends OperationId> = RequestOf<operations[Id]>;
/** Every response `Id` declares: `{ status, body, headers }`, discriminated by `status`. */
export type Response<Id extends OperationId> = ResponseOf<operations[Id]>;
/** The handler of `Id`; `Caller` is what the router's `authenticate` returns. */
export type Handler<Id extends OperationId, Caller = unknown> = OperationHandler<operations[Id], Caller>;
/** The operations without a security scheme (`security: []`): their handlers get no caller. */
export type OpenOperationId = "getHealth" | "getReadiness";
/** One handler per operationId of Variant 1; an open operation's handler gets `undefined` as its caller. */
export type Handlers<Caller = unknown> = { [Id in OperationId]: Handler<Id, Id extends OpenOperationId ? undefined : Caller> };

/** The operations of Variant 1, in document order: what the router compiles its routes from. */
export const operationTable = {
  "createSession": {
    "operationId": "createSession",
    "method": "POST",
    "path": "/api/v1/public/sessions",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": "required",
    "sandbox": false,
    "internal": false,
    "rateLimit": {
      "limit": 100,
      "windowSeconds": 900
    },
    "successStatus": 200
  },
  "getTransactionStatusBySessionToken": {
    "operationId": "getTransactionStatusBySessionToken",
    "method": "GET",
    "path": "/api/v1/public/transactions/{transaction_id}/status",
    "pathParams": [
      "transaction_id"
    ],
    "auth": {
      "scheme": "SessionToken",
      "header": "X-Session-Token"
    },
    "requestBody": null,
    "sandbox": false,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "verifyTransaction": {
    "operationId": "verifyTransaction",
    "method": "GET",
    "path": "/api/v1/public/transactions/{transactionId}",
    "pathParams": [
      "transactionId"
    ],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": null,
    "sandbox": false,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "createPartnerTransaction": {
    "operationId": "createPartnerTransaction",
    "method": "POST",
    "path": "/api/v1/public/partner/transactions",
    "pathParams": [],
    "auth": {
      "scheme": "ServiceKey",
      "header": "X-Service-Key"
    },
    "requestBody": "required",
    "sandbox": false,
    "internal": false,
    "rateLimit": null,
    "successStatus": 201
  },
  "getPartnerTransaction": {
    "operationId": "getPartnerTransaction",
    "method": "GET",
    "path": "/api/v1/public/partner/transactions/{transactionId}",
    "pathParams": [
      "transactionId"
    ],
    "auth": {
      "scheme": "PartnerApiKey",
      "header": "X-Api-Key"
    },
    "requestBody": null,
    "sandbox": false,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "getPartnerTransactionByVendorReference": {
    "operationId": "getPartnerTransactionByVendorReference",
    "method": "GET",
    "path": "/api/v1/public/partner/transactions/vendor/{vendorReference}",
    "pathParams": [
      "vendorReference"
    ],
    "auth": {
      "scheme": "PartnerApiKey",
      "header": "X-Api-Key"
    },
    "requestBody": null,
    "sandbox": false,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "cancelPartnerTransactionByVendorReference": {
    "operationId": "cancelPartnerTransactionByVendorReference",
    "method": "PUT",
    "path": "/api/v1/public/partner/transactions/vendor/{vendorReference}/cancel",
    "pathParams": [
      "vendorReference"
    ],
    "auth": {
      "scheme": "PartnerApiKey",
      "header": "X-Api-Key"
    },
    "requestBody": null,
    "sandbox": false,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sdkGetSession": {
    "operationId": "sdkGetSession",
    "method": "GET",
    "path": "/api/v1/public/sdk/session",
    "pathParams": [],
    "auth": {
      "scheme": "SessionToken",
      "header": "X-Session-Token"
    },
    "requestBody": null,
    "sandbox": false,
    "internal": true,
    "rateLimit": null,
    "successStatus": 200
  },
  "sdkCreatePaymentIntent": {
    "operationId": "sdkCreatePaymentIntent",
    "method": "POST",
    "path": "/api/v1/public/sdk/payment-intents",
    "pathParams": [],
    "auth": {
      "scheme": "SessionToken",
      "header": "X-Session-Token"
    },
    "requestBody": "required",
    "sandbox": false,
    "internal": true,
    "rateLimit": null,
    "successStatus": 201
  },
  "sdkSimulatePayment": {
    "operationId": "sdkSimulatePayment",
    "method": "POST",
    "path": "/api/v1/public/sdk/payment-intents/{paymentIntentId}/simulate",
    "pathParams": [
      "paymentIntentId"
    ],
    "auth": {
      "scheme": "SessionToken",
      "header": "X-Session-Token"
    },
    "requestBody": "required",
    "sandbox": true,
    "internal": true,
    "rateLimit": null,
    "successStatus": 200
  },
  "sdkCancelPaymentIntent": {
    "operationId": "sdkCancelPaymentIntent",
    "method": "POST",
    "path": "/api/v1/public/sdk/payment-intents/{paymentIntentId}/cancel",
    "pathParams": [
      "paymentIntentId"
    ],
    "auth": {
      "scheme": "SessionToken",
      "header": "X-Session-Token"
    },
    "requestBody": null,
    "sandbox": false,
    "internal": true,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxConfirmTransaction": {
    "operationId": "sandboxConfirmTransaction",
    "method": "POST",
    "path": "/api/v1/sandbox/transactions/{transactionId}/confirm",
    "pathParams": [
      "transactionId"
    ],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": null,
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxCancelTransaction": {
    "operationId": "sandboxCancelTransaction",
    "method": "POST",
    "path": "/api/v1/sandbox/transactions/{transactionId}/cancel",
    "pathParams": [
      "transactionId"
    ],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": null,
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxCompleteTransaction": {
    "operationId": "sandboxCompleteTransaction",
    "method": "POST",
    "path": "/api/v1/sandbox/transactions/{transactionId}/complete",
    "pathParams": [
      "transactionId"
    ],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": null,
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxPaySession": {
    "operationId": "sandboxPaySession",
    "method": "POST",
    "path": "/api/v1/sandbox/sessions/pay",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": "required",
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxGetClock": {
    "operationId": "sandboxGetClock",
    "method": "GET",
    "path": "/api/v1/sandbox/clock",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": null,
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxAdvanceClock": {
    "operationId": "sandboxAdvanceClock",
    "method": "POST",
    "path": "/api/v1/sandbox/clock/advance",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": "required",
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxListSms": {
    "operationId": "sandboxListSms",
    "method": "GET",
    "path": "/api/v1/sandbox/sms",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": null,
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxListWebhookDeliveries": {
    "operationId": "sandboxListWebhookDeliveries",
    "method": "GET",
    "path": "/api/v1/sandbox/webhook-deliveries",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": null,
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxRedeliverWebhook": {
    "operationId": "sandboxRedeliverWebhook",
    "method": "POST",
    "path": "/api/v1/sandbox/webhook-deliveries/{deliveryId}/redeliver",
    "pathParams": [
      "deliveryId"
    ],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": null,
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxGetWebhookEndpoint": {
    "operationId": "sandboxGetWebhookEndpoint",
    "method": "GET",
    "path": "/api/v1/sandbox/webhook-endpoint",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": null,
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxSetWebhookEndpoint": {
    "operationId": "sandboxSetWebhookEndpoint",
    "method": "PUT",
    "path": "/api/v1/sandbox/webhook-endpoint",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": "required",
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxRotateWebhookSecret": {
    "operationId": "sandboxRotateWebhookSecret",
    "method": "POST",
    "path": "/api/v1/sandbox/webhook-endpoint/rotate-secret",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": "required",
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxSendTestWebhook": {
    "operationId": "sandboxSendTestWebhook",
    "method": "POST",
    "path": "/api/v1/sandbox/webhook-endpoint/test",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": "required",
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxListTransactions": {
    "operationId": "sandboxListTransactions",
    "method": "GET",
    "path": "/api/v1/sandbox/transactions",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": null,
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxStreamEvents": {
    "operationId": "sandboxStreamEvents",
    "method": "GET",
    "path": "/api/v1/sandbox/events",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": null,
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxReset": {
    "operationId": "sandboxReset",
    "method": "POST",
    "path": "/api/v1/sandbox/reset",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": "required",
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxGetFaultRule": {
    "operationId": "sandboxGetFaultRule",
    "method": "GET",
    "path": "/api/v1/sandbox/faults",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": null,
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxSetFaultRule": {
    "operationId": "sandboxSetFaultRule",
    "method": "PUT",
    "path": "/api/v1/sandbox/faults",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": "required",
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxGetApiLog": {
    "operationId": "sandboxGetApiLog",
    "method": "GET",
    "path": "/api/v1/sandbox/api-log",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": null,
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "sandboxSetApiLog": {
    "operationId": "sandboxSetApiLog",
    "method": "PUT",
    "path": "/api/v1/sandbox/api-log",
    "pathParams": [],
    "auth": {
      "scheme": "ApiKey",
      "header": "X-API-Key"
    },
    "requestBody": "required",
    "sandbox": true,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "getHealth": {
    "operationId": "getHealth",
    "method": "GET",
    "path": "/healthz",
    "pathParams": [],
    "auth": null,
    "requestBody": null,
    "sandbox": false,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  },
  "getReadiness": {
    "operationId": "getReadiness",
    "method": "GET",
    "path": "/readyz",
    "pathParams": [],
    "auth": null,
    "requestBody": null,
    "sandbox": false,
    "internal": false,
    "rateLimit": null,
    "successStatus": 200
  }
} as const satisfies Record<OperationId, OperationEntry>;
