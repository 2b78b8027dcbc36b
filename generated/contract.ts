/**
 * GENERATED FILE — DO NOT EDIT.
 * Written by `npm run generate` from spec/ (the source of truth); edit spec/ and regenerate.
 */

/** The transaction state machine: `x-state-machine` of `TransactionStatus`. */
export const stateMachine = {
  "initial": "PENDING",
  "paymentWindow": {
    "defaultSeconds": 1800,
    "configurable": true,
    "maxSeconds": 2592000,
    "decision": "ADR-010"
  },
  "states": {
    "PENDING": {
      "terminal": false,
      "description": "Waiting for the customer; the payment window runs from `createdAt`."
    },
    "APPROVED": {
      "terminal": false,
      "description": "Confirmed or paid by the customer; the order may be fulfilled."
    },
    "CANCELED": {
      "terminal": true,
      "description": "Cancelled by the merchant, the customer or the system."
    },
    "EXPIRED": {
      "terminal": true,
      "description": "The payment window passed without confirmation."
    },
    "COMPLETED": {
      "terminal": true,
      "description": "All instalments collected."
    }
  },
  "transitions": [
    {
      "id": "create",
      "from": null,
      "to": "PENDING",
      "trigger": {
        "kind": "merchant",
        "operationId": "createPartnerTransaction"
      },
      "guard": "the request is valid and no business rule is violated",
      "emits": null,
      "effects": [
        "an SMS asking the customer to confirm is sent to `customerPhone`"
      ]
    },
    {
      "id": "checkout-pay",
      "from": null,
      "to": "PENDING",
      "trigger": {
        "kind": "customer",
        "operationId": "sandboxPaySession"
      },
      "guard": "the checkout session exists and its token has not expired",
      "emits": null,
      "effects": [
        "a checkout transaction is created for the session (outcome `failed` leaves it PENDING)"
      ]
    },
    {
      "id": "confirm",
      "from": [
        "PENDING"
      ],
      "to": "APPROVED",
      "trigger": {
        "kind": "customer",
        "operationId": "sandboxConfirmTransaction"
      },
      "guard": "now < createdAt + payment window",
      "emits": "transaction.approved"
    },
    {
      "id": "checkout-success",
      "from": [
        "PENDING"
      ],
      "to": "APPROVED",
      "trigger": {
        "kind": "customer",
        "operationId": "sandboxPaySession"
      },
      "guard": "outcome is `success` and now < createdAt + payment window",
      "emits": "transaction.approved"
    },
    {
      "id": "merchant-cancel",
      "from": [
        "PENDING"
      ],
      "to": "CANCELED",
      "trigger": {
        "kind": "merchant",
        "operationId": "cancelPartnerTransactionByVendorReference"
      },
      "guard": "the transaction belongs to the merchant of the key",
      "emits": "transaction.cancelled",
      "decision": "ADR-004"
    },
    {
      "id": "customer-cancel",
      "from": [
        "PENDING"
      ],
      "to": "CANCELED",
      "trigger": {
        "kind": "customer",
        "operationId": "sandboxCancelTransaction"
      },
      "guard": "none (also used when the system cancels)",
      "emits": "transaction.cancelled"
    },
    {
      "id": "expire",
      "from": [
        "PENDING"
      ],
      "to": "EXPIRED",
      "trigger": {
        "kind": "clock",
        "operationId": "sandboxAdvanceClock"
      },
      "guard": "now >= createdAt + payment window",
      "emits": "transaction.expired"
    },
    {
      "id": "complete",
      "from": [
        "APPROVED"
      ],
      "to": "COMPLETED",
      "trigger": {
        "kind": "system",
        "operationId": "sandboxCompleteTransaction"
      },
      "guard": "every instalment has been collected",
      "emits": null,
      "decision": "ADR-009"
    }
  ],
  "rejections": [
    {
      "from": [
        "APPROVED",
        "CANCELED",
        "EXPIRED",
        "COMPLETED"
      ],
      "trigger": {
        "operationId": "cancelPartnerTransactionByVendorReference"
      },
      "status": 400,
      "code": "TRANSACTION_NOT_PENDING"
    },
    {
      "from": [
        "APPROVED",
        "CANCELED",
        "EXPIRED",
        "COMPLETED"
      ],
      "trigger": {
        "operationId": "sandboxConfirmTransaction"
      },
      "status": 400,
      "code": "TRANSACTION_NOT_PENDING"
    },
    {
      "from": [
        "APPROVED",
        "CANCELED",
        "EXPIRED",
        "COMPLETED"
      ],
      "trigger": {
        "operationId": "sandboxCancelTransaction"
      },
      "status": 400,
      "code": "TRANSACTION_NOT_PENDING"
    },
    {
      "from": [
        "APPROVED",
        "CANCELED",
        "EXPIRED",
        "COMPLETED"
      ],
      "trigger": {
        "operationId": "sandboxPaySession"
      },
      "status": 400,
      "code": "TRANSACTION_NOT_PENDING"
    },
    {
      "from": [
        "APPROVED",
        "COMPLETED"
      ],
      "trigger": {
        "operationId": "sdkCancelPaymentIntent"
      },
      "status": 400,
      "code": "TRANSACTION_NOT_PENDING"
    },
    {
      "from": [
        "PENDING",
        "CANCELED",
        "EXPIRED",
        "COMPLETED"
      ],
      "trigger": {
        "operationId": "sandboxCompleteTransaction"
      },
      "status": 400,
      "code": "TRANSACTION_NOT_APPROVED"
    }
  ]
} as const;

/** ADR-008: the status the checkout verifications (A2, A3) report for each transaction status (`x-reported-as`). */
export const checkoutStatusOf = {
  "PENDING": "PENDING",
  "APPROVED": "APPROVED",
  "CANCELED": "CANCELED",
  "EXPIRED": "CANCELED",
  "COMPLETED": "APPROVED"
} as const;

/** The error code catalogue: `ErrorCode`, each code with its one HTTP status. */
export const errorCatalog = {
  "VALIDATION_ERROR": {
    "status": 400,
    "description": "The request is malformed or fails validation (malformed percent-encoding in the path or query, malformed JSON, a member named twice, missing or unknown field, wrong type or format, invalid phone format, a server-owned field sent). `error.details` names each failing field."
  },
  "INVALID_AMOUNT": {
    "status": 400,
    "description": "The session `total` is missing, not a valid amount (greater than 0, at most two decimals) or outside the amount range (`x-amount-range` of the `total`)."
  },
  "INVALID_CURRENCY": {
    "status": 400,
    "description": "The session `currency` is missing or not a supported currency code (only MAD)."
  },
  "INVALID_ITEMS": {
    "status": 400,
    "description": "The session `items` array is missing, empty or has an invalid item."
  },
  "AMOUNT_MISMATCH": {
    "status": 400,
    "description": "`total` differs from the sum of price × quantity over the items (compared in integer centimes)."
  },
  "TRANSACTION_NOT_PENDING": {
    "status": 400,
    "description": "The transaction exists but is not in PENDING status, so it cannot be cancelled or confirmed."
  },
  "TRANSACTION_NOT_APPROVED": {
    "status": 400,
    "description": "The transaction exists but is not in APPROVED status, so it cannot be completed (sandbox)."
  },
  "INVALID_REDIRECT_URL": {
    "status": 400,
    "description": "The `redirect_url` is not an absolute http(s) URL on one of the merchant's allowed origins (open-redirect protection)."
  },
  "INVALID_API_KEY": {
    "status": 401,
    "description": "The API key is missing, unknown, revoked, duplicated, or of the wrong mode (a test key in production, a live key in the sandbox)."
  },
  "INVALID_SESSION_TOKEN": {
    "status": 401,
    "description": "The session token is missing, invalid, expired (older than `x-token-lifetime-seconds` of the `SessionToken` scheme) or does not belong to the session of the transaction."
  },
  "TRANSACTION_NOT_FOUND": {
    "status": 404,
    "description": "The transaction does not exist or belongs to another merchant (both answered identically)."
  },
  "SESSION_NOT_FOUND": {
    "status": 404,
    "description": "The checkout session or payment intent does not exist or belongs to another merchant."
  },
  "DELIVERY_NOT_FOUND": {
    "status": 404,
    "description": "The webhook delivery does not exist or belongs to another merchant."
  },
  "ROUTE_NOT_FOUND": {
    "status": 404,
    "description": "No operation is defined for this method and path."
  },
  "METHOD_NOT_ALLOWED": {
    "status": 405,
    "description": "The path is an operation's, but not with this method. The `Allow` header lists the methods the path serves (ADR-024)."
  },
  "DUPLICATE_VENDOR_REFERENCE": {
    "status": 409,
    "description": "The merchant already has a transaction with this `vendorReference`."
  },
  "PAYLOAD_TOO_LARGE": {
    "status": 413,
    "description": "The request body is larger than `x-max-body-bytes` of the `PayloadTooLarge` response."
  },
  "UNSUPPORTED_MEDIA_TYPE": {
    "status": 415,
    "description": "The request body is not sent as `application/json`."
  },
  "MERCHANT_INACTIVE": {
    "status": 422,
    "description": "The merchant account is not active."
  },
  "AMOUNT_OUT_OF_RANGE": {
    "status": 422,
    "description": "The transaction total is outside the amount range (`x-amount-range` of the `total`)."
  },
  "CREDIT_LIMIT_EXCEEDED": {
    "status": 422,
    "description": "The total of the merchant's open (PENDING and APPROVED) transactions plus this one would exceed the merchant's credit limit."
  },
  "TOO_MANY_PAYMENT_INTENTS": {
    "status": 422,
    "description": "The checkout session already holds `x-max-payment-intents` of `sdkCreatePaymentIntent` payment intents (ADR-029)."
  },
  "RATE_LIMIT_EXCEEDED": {
    "status": 429,
    "description": "More requests than the operation's `x-rate-limit` allows in the current window for this API key. `error.retry_after` says how many seconds to wait."
  },
  "AUTH_THROTTLED": {
    "status": 429,
    "description": "Too many failed authentications from this client address in the current window (`x-auth-failure-limit` of the security scheme). `error.retry_after` says how many seconds to wait."
  },
  "STORAGE_UNAVAILABLE": {
    "status": 503,
    "description": "The server could not write to its storage (disk full, I/O error); nothing of the request was kept. `error.retry_after` and `Retry-After` say when to retry (ADR-026)."
  },
  "INTERNAL_ERROR": {
    "status": 500,
    "description": "An unexpected server problem. Nothing was changed; the request may be retried."
  },
  "NOT_READY": {
    "status": 503,
    "description": "The server cannot serve requests now (its store failed or does not reach the disk); answered by `GET /readyz` only."
  }
} as const;

export type ErrorCode = keyof typeof errorCatalog;

/** Signing and retry rules of webhook delivery: `x-webhook-delivery` of `WebhookHeaders`. */
export const webhookDelivery = {
  "signature": {
    "scheme": "standard-webhooks-v1",
    "algorithm": "HMAC-SHA256",
    "signedContent": "{webhook-id}.{webhook-timestamp}.{body}",
    "secretPrefix": "whsec_",
    "toleranceSeconds": 300
  },
  "retry": {
    "delaysSeconds": [
      0,
      5,
      300,
      1800,
      7200,
      18000,
      36000,
      36000
    ],
    "jitter": 0.2,
    "timeoutSeconds": 10,
    "retryOn": "any status other than 2xx, a refused connection, a timeout",
    "respectRetryAfter": [
      429,
      503
    ],
    "disableOn": [
      410
    ],
    "followRedirects": false,
    "sandboxCompression": 1000
  },
  "decision": "ADR-005"
} as const;

/** Lifetime of a session token, in seconds (`x-token-lifetime-seconds` of the `SessionToken` scheme). */
export const tokenLifetimeSeconds = 3600 as const;

/** The largest request body accepted, in bytes (`x-max-body-bytes`). */
export const maxBodyBytes = 102400 as const;

/** The most `error.details` entries of an error body (`maxItems` of the `Error` schema's `details`). */
export const maxErrorDetails = 20 as const;

/** The longest URL the hosted checkout page goes to (`maxLength` of `PaymentIntentRequest`'s `redirect_url` and `origin`). */
export const maxPaymentIntentUrlLength = 2048 as const;

/** The amount range (`x-amount-range`, ADR-006), and `rule`: the detail message of an amount outside it (the error message is `<property> <rule>`). */
export const amountRange = {
  "minimum": 500,
  "maximum": 15000,
  "currency": "MAD",
  "rule": "must be between 500.00 and 15000.00 MAD"
} as const;

/** Error precedence (`x-error-precedence` of `ErrorCode`, ADR-057): the stages in the order they run, and the order of the failing members' codes. */
export const errorPrecedence = {
  "stages": [
    {
      "name": "route",
      "codes": [
        "ROUTE_NOT_FOUND",
        "METHOD_NOT_ALLOWED"
      ]
    },
    {
      "name": "authentication",
      "codes": [
        "AUTH_THROTTLED",
        "INVALID_API_KEY",
        "INVALID_SESSION_TOKEN"
      ]
    },
    {
      "name": "rate-limit",
      "codes": [
        "RATE_LIMIT_EXCEEDED"
      ]
    },
    {
      "name": "body",
      "codes": [
        "PAYLOAD_TOO_LARGE",
        "UNSUPPORTED_MEDIA_TYPE",
        "VALIDATION_ERROR"
      ]
    },
    {
      "name": "request-validation",
      "codes": [
        "INVALID_AMOUNT",
        "INVALID_CURRENCY",
        "INVALID_ITEMS",
        "VALIDATION_ERROR"
      ]
    },
    {
      "name": "consistency",
      "codes": [
        "AMOUNT_MISMATCH"
      ]
    },
    {
      "name": "business",
      "codes": [
        "MERCHANT_INACTIVE",
        "AMOUNT_OUT_OF_RANGE",
        "DUPLICATE_VENDOR_REFERENCE",
        "CREDIT_LIMIT_EXCEEDED"
      ]
    }
  ],
  "members": [
    "INVALID_AMOUNT",
    "INVALID_CURRENCY",
    "INVALID_ITEMS",
    "VALIDATION_ERROR"
  ]
} as const;

/**
 * ADR-057: of `items` (at least one), the first whose code comes first in `errorPrecedence.members`;
 * a code not listed there ranks after every listed one, and ties keep the order given. The one
 * ranking the server (the answer's code) and the conformance suite (the code it expects) both use.
 */
export function firstByPrecedence<T>(items: readonly T[], codeOf: (item: T) => string): T {
  const members: readonly string[] = errorPrecedence.members;
  const rank = (item: T): number => {
    const i = members.indexOf(codeOf(item));
    return i === -1 ? members.length : i;
  };
  if (items.length === 0) throw new Error('firstByPrecedence: no items to rank');
  let win: T = items[0]!;
  for (const item of items) if (rank(item) < rank(win)) win = item;
  return win;
}

/** Per variant: each operation (method, path, success status, error codes by status), rate limits, webhook events. */
export const variants = {
  "v1": {
    "operations": {
      "createSession": {
        "method": "POST",
        "path": "/api/v1/public/sessions",
        "tags": [
          "Checkout"
        ],
        "sandbox": false,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "INVALID_AMOUNT",
            "INVALID_CURRENCY",
            "INVALID_ITEMS",
            "AMOUNT_MISMATCH",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "RATE_LIMIT_EXCEEDED",
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "getTransactionStatusBySessionToken": {
        "method": "GET",
        "path": "/api/v1/public/transactions/{transaction_id}/status",
        "tags": [
          "Checkout"
        ],
        "sandbox": false,
        "internal": false,
        "security": [
          "SessionToken"
        ],
        "authHeader": "X-Session-Token",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_SESSION_TOKEN"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "verifyTransaction": {
        "method": "GET",
        "path": "/api/v1/public/transactions/{transactionId}",
        "tags": [
          "Checkout"
        ],
        "sandbox": false,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "createPartnerTransaction": {
        "method": "POST",
        "path": "/api/v1/public/partner/transactions",
        "tags": [
          "Partner transactions"
        ],
        "sandbox": false,
        "internal": false,
        "security": [
          "ServiceKey"
        ],
        "authHeader": "X-Service-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR",
            "AMOUNT_MISMATCH"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "409": [
            "DUPLICATE_VENDOR_REFERENCE"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "422": [
            "MERCHANT_INACTIVE",
            "AMOUNT_OUT_OF_RANGE",
            "CREDIT_LIMIT_EXCEEDED"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 201
      },
      "getPartnerTransaction": {
        "method": "GET",
        "path": "/api/v1/public/partner/transactions/{transactionId}",
        "tags": [
          "Partner transactions"
        ],
        "sandbox": false,
        "internal": false,
        "security": [
          "PartnerApiKey"
        ],
        "authHeader": "X-Api-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "getPartnerTransactionByVendorReference": {
        "method": "GET",
        "path": "/api/v1/public/partner/transactions/vendor/{vendorReference}",
        "tags": [
          "Partner transactions"
        ],
        "sandbox": false,
        "internal": false,
        "security": [
          "PartnerApiKey"
        ],
        "authHeader": "X-Api-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "cancelPartnerTransactionByVendorReference": {
        "method": "PUT",
        "path": "/api/v1/public/partner/transactions/vendor/{vendorReference}/cancel",
        "tags": [
          "Partner transactions"
        ],
        "sandbox": false,
        "internal": false,
        "security": [
          "PartnerApiKey"
        ],
        "authHeader": "X-Api-Key",
        "errors": {
          "400": [
            "TRANSACTION_NOT_PENDING",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sdkGetSession": {
        "method": "GET",
        "path": "/api/v1/public/sdk/session",
        "tags": [
          "SDK (internal)"
        ],
        "sandbox": false,
        "internal": true,
        "security": [
          "SessionToken"
        ],
        "authHeader": "X-Session-Token",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_SESSION_TOKEN"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sdkCreatePaymentIntent": {
        "method": "POST",
        "path": "/api/v1/public/sdk/payment-intents",
        "tags": [
          "SDK (internal)"
        ],
        "sandbox": false,
        "internal": true,
        "security": [
          "SessionToken"
        ],
        "authHeader": "X-Session-Token",
        "errors": {
          "400": [
            "INVALID_REDIRECT_URL",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_SESSION_TOKEN"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "422": [
            "TOO_MANY_PAYMENT_INTENTS"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 201
      },
      "sdkSimulatePayment": {
        "method": "POST",
        "path": "/api/v1/public/sdk/payment-intents/{paymentIntentId}/simulate",
        "tags": [
          "SDK (internal)"
        ],
        "sandbox": true,
        "internal": true,
        "security": [
          "SessionToken"
        ],
        "authHeader": "X-Session-Token",
        "errors": {
          "400": [
            "TRANSACTION_NOT_PENDING",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_SESSION_TOKEN"
          ],
          "404": [
            "SESSION_NOT_FOUND"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sdkCancelPaymentIntent": {
        "method": "POST",
        "path": "/api/v1/public/sdk/payment-intents/{paymentIntentId}/cancel",
        "tags": [
          "SDK (internal)"
        ],
        "sandbox": false,
        "internal": true,
        "security": [
          "SessionToken"
        ],
        "authHeader": "X-Session-Token",
        "errors": {
          "400": [
            "TRANSACTION_NOT_PENDING",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_SESSION_TOKEN"
          ],
          "404": [
            "SESSION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxConfirmTransaction": {
        "method": "POST",
        "path": "/api/v1/sandbox/transactions/{transactionId}/confirm",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "TRANSACTION_NOT_PENDING",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxCancelTransaction": {
        "method": "POST",
        "path": "/api/v1/sandbox/transactions/{transactionId}/cancel",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "TRANSACTION_NOT_PENDING",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxCompleteTransaction": {
        "method": "POST",
        "path": "/api/v1/sandbox/transactions/{transactionId}/complete",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "TRANSACTION_NOT_APPROVED",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxPaySession": {
        "method": "POST",
        "path": "/api/v1/sandbox/sessions/pay",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "TRANSACTION_NOT_PENDING",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY",
            "INVALID_SESSION_TOKEN"
          ],
          "404": [
            "SESSION_NOT_FOUND"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxGetClock": {
        "method": "GET",
        "path": "/api/v1/sandbox/clock",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxAdvanceClock": {
        "method": "POST",
        "path": "/api/v1/sandbox/clock/advance",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxListSms": {
        "method": "GET",
        "path": "/api/v1/sandbox/sms",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxListWebhookDeliveries": {
        "method": "GET",
        "path": "/api/v1/sandbox/webhook-deliveries",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxRedeliverWebhook": {
        "method": "POST",
        "path": "/api/v1/sandbox/webhook-deliveries/{deliveryId}/redeliver",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "DELIVERY_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxGetWebhookEndpoint": {
        "method": "GET",
        "path": "/api/v1/sandbox/webhook-endpoint",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "sandboxSetWebhookEndpoint": {
        "method": "PUT",
        "path": "/api/v1/sandbox/webhook-endpoint",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "sandboxRotateWebhookSecret": {
        "method": "POST",
        "path": "/api/v1/sandbox/webhook-endpoint/rotate-secret",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "sandboxSendTestWebhook": {
        "method": "POST",
        "path": "/api/v1/sandbox/webhook-endpoint/test",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "sandboxListTransactions": {
        "method": "GET",
        "path": "/api/v1/sandbox/transactions",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "sandboxStreamEvents": {
        "method": "GET",
        "path": "/api/v1/sandbox/events",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "sandboxReset": {
        "method": "POST",
        "path": "/api/v1/sandbox/reset",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "sandboxGetFaultRule": {
        "method": "GET",
        "path": "/api/v1/sandbox/faults",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxSetFaultRule": {
        "method": "PUT",
        "path": "/api/v1/sandbox/faults",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxGetApiLog": {
        "method": "GET",
        "path": "/api/v1/sandbox/api-log",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxSetApiLog": {
        "method": "PUT",
        "path": "/api/v1/sandbox/api-log",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "getHealth": {
        "method": "GET",
        "path": "/healthz",
        "tags": [
          "Service"
        ],
        "sandbox": false,
        "internal": false,
        "security": [],
        "authHeader": null,
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "getReadiness": {
        "method": "GET",
        "path": "/readyz",
        "tags": [
          "Service"
        ],
        "sandbox": false,
        "internal": false,
        "security": [],
        "authHeader": null,
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "NOT_READY"
          ]
        },
        "successStatus": 200
      }
    },
    "rateLimits": {
      "createSession": {
        "description": "The rate limit of A1 (ADR-006), referenced as `x-rate-limit` by the operation in both\nvariants. Every answer carries the `RateLimit-*` headers (`RateLimit-Policy` is\n`<limit>;w=<windowSeconds>`); the (limit + 1)-th request of a window gets 429. The wait is\none number, the seconds until the window ends (at least 1): `error.retry_after`,\n`Retry-After` and `RateLimit-Reset` all carry it, and a request sent that many seconds\nlater is counted in a new window.\n",
        "limit": 100,
        "windowSeconds": 900,
        "keyedOn": "api-key",
        "counts": "every request authenticated by a valid key, whatever its outcome",
        "decision": "ADR-006"
      }
    },
    "webhookEvents": [
      "transaction.approved",
      "transaction.cancelled",
      "transaction.expired"
    ]
  },
  "v2": {
    "operations": {
      "createSession": {
        "method": "POST",
        "path": "/api/v1/public/sessions",
        "tags": [
          "Checkout"
        ],
        "sandbox": false,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "INVALID_AMOUNT",
            "INVALID_CURRENCY",
            "INVALID_ITEMS",
            "AMOUNT_MISMATCH",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "RATE_LIMIT_EXCEEDED",
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "getTransactionStatusBySessionToken": {
        "method": "GET",
        "path": "/api/v1/public/transactions/{transaction_id}/status",
        "tags": [
          "Checkout"
        ],
        "sandbox": false,
        "internal": false,
        "security": [
          "SessionToken"
        ],
        "authHeader": "X-Session-Token",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_SESSION_TOKEN"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "createPartnerTransaction": {
        "method": "POST",
        "path": "/api/v1/public/partner/transactions",
        "tags": [
          "Partner transactions"
        ],
        "sandbox": false,
        "internal": false,
        "security": [
          "ServiceKey"
        ],
        "authHeader": "X-Service-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR",
            "AMOUNT_MISMATCH"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "409": [
            "DUPLICATE_VENDOR_REFERENCE"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "422": [
            "MERCHANT_INACTIVE",
            "AMOUNT_OUT_OF_RANGE",
            "CREDIT_LIMIT_EXCEEDED"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 201
      },
      "getPartnerTransaction": {
        "method": "GET",
        "path": "/api/v1/public/partner/transactions/{transactionId}",
        "tags": [
          "Partner transactions"
        ],
        "sandbox": false,
        "internal": false,
        "security": [
          "PartnerApiKey"
        ],
        "authHeader": "X-Api-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "getPartnerTransactionByVendorReference": {
        "method": "GET",
        "path": "/api/v1/public/partner/transactions/vendor/{vendorReference}",
        "tags": [
          "Partner transactions"
        ],
        "sandbox": false,
        "internal": false,
        "security": [
          "PartnerApiKey"
        ],
        "authHeader": "X-Api-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "cancelPartnerTransactionByVendorReference": {
        "method": "PUT",
        "path": "/api/v1/public/partner/transactions/vendor/{vendorReference}/cancel",
        "tags": [
          "Partner transactions"
        ],
        "sandbox": false,
        "internal": false,
        "security": [
          "PartnerApiKey"
        ],
        "authHeader": "X-Api-Key",
        "errors": {
          "400": [
            "TRANSACTION_NOT_PENDING",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sdkGetSession": {
        "method": "GET",
        "path": "/api/v1/public/sdk/session",
        "tags": [
          "SDK (internal)"
        ],
        "sandbox": false,
        "internal": true,
        "security": [
          "SessionToken"
        ],
        "authHeader": "X-Session-Token",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_SESSION_TOKEN"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sdkCreatePaymentIntent": {
        "method": "POST",
        "path": "/api/v1/public/sdk/payment-intents",
        "tags": [
          "SDK (internal)"
        ],
        "sandbox": false,
        "internal": true,
        "security": [
          "SessionToken"
        ],
        "authHeader": "X-Session-Token",
        "errors": {
          "400": [
            "INVALID_REDIRECT_URL",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_SESSION_TOKEN"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "422": [
            "TOO_MANY_PAYMENT_INTENTS"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 201
      },
      "sdkSimulatePayment": {
        "method": "POST",
        "path": "/api/v1/public/sdk/payment-intents/{paymentIntentId}/simulate",
        "tags": [
          "SDK (internal)"
        ],
        "sandbox": true,
        "internal": true,
        "security": [
          "SessionToken"
        ],
        "authHeader": "X-Session-Token",
        "errors": {
          "400": [
            "TRANSACTION_NOT_PENDING",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_SESSION_TOKEN"
          ],
          "404": [
            "SESSION_NOT_FOUND"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sdkCancelPaymentIntent": {
        "method": "POST",
        "path": "/api/v1/public/sdk/payment-intents/{paymentIntentId}/cancel",
        "tags": [
          "SDK (internal)"
        ],
        "sandbox": false,
        "internal": true,
        "security": [
          "SessionToken"
        ],
        "authHeader": "X-Session-Token",
        "errors": {
          "400": [
            "TRANSACTION_NOT_PENDING",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_SESSION_TOKEN"
          ],
          "404": [
            "SESSION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxConfirmTransaction": {
        "method": "POST",
        "path": "/api/v1/sandbox/transactions/{transactionId}/confirm",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "TRANSACTION_NOT_PENDING",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxCancelTransaction": {
        "method": "POST",
        "path": "/api/v1/sandbox/transactions/{transactionId}/cancel",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "TRANSACTION_NOT_PENDING",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxCompleteTransaction": {
        "method": "POST",
        "path": "/api/v1/sandbox/transactions/{transactionId}/complete",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "TRANSACTION_NOT_APPROVED",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "TRANSACTION_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxPaySession": {
        "method": "POST",
        "path": "/api/v1/sandbox/sessions/pay",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "TRANSACTION_NOT_PENDING",
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY",
            "INVALID_SESSION_TOKEN"
          ],
          "404": [
            "SESSION_NOT_FOUND"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxGetClock": {
        "method": "GET",
        "path": "/api/v1/sandbox/clock",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxAdvanceClock": {
        "method": "POST",
        "path": "/api/v1/sandbox/clock/advance",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxListSms": {
        "method": "GET",
        "path": "/api/v1/sandbox/sms",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxListWebhookDeliveries": {
        "method": "GET",
        "path": "/api/v1/sandbox/webhook-deliveries",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxRedeliverWebhook": {
        "method": "POST",
        "path": "/api/v1/sandbox/webhook-deliveries/{deliveryId}/redeliver",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "404": [
            "DELIVERY_NOT_FOUND"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxGetWebhookEndpoint": {
        "method": "GET",
        "path": "/api/v1/sandbox/webhook-endpoint",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "sandboxSetWebhookEndpoint": {
        "method": "PUT",
        "path": "/api/v1/sandbox/webhook-endpoint",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "sandboxRotateWebhookSecret": {
        "method": "POST",
        "path": "/api/v1/sandbox/webhook-endpoint/rotate-secret",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "sandboxSendTestWebhook": {
        "method": "POST",
        "path": "/api/v1/sandbox/webhook-endpoint/test",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "sandboxListTransactions": {
        "method": "GET",
        "path": "/api/v1/sandbox/transactions",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "sandboxStreamEvents": {
        "method": "GET",
        "path": "/api/v1/sandbox/events",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "sandboxReset": {
        "method": "POST",
        "path": "/api/v1/sandbox/reset",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "sandboxGetFaultRule": {
        "method": "GET",
        "path": "/api/v1/sandbox/faults",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxSetFaultRule": {
        "method": "PUT",
        "path": "/api/v1/sandbox/faults",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxGetApiLog": {
        "method": "GET",
        "path": "/api/v1/sandbox/api-log",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "sandboxSetApiLog": {
        "method": "PUT",
        "path": "/api/v1/sandbox/api-log",
        "tags": [
          "Sandbox"
        ],
        "sandbox": true,
        "internal": false,
        "security": [
          "ApiKey"
        ],
        "authHeader": "X-API-Key",
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "401": [
            "INVALID_API_KEY"
          ],
          "413": [
            "PAYLOAD_TOO_LARGE"
          ],
          "415": [
            "UNSUPPORTED_MEDIA_TYPE"
          ],
          "429": [
            "AUTH_THROTTLED"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "STORAGE_UNAVAILABLE"
          ]
        },
        "successStatus": 200
      },
      "getHealth": {
        "method": "GET",
        "path": "/healthz",
        "tags": [
          "Service"
        ],
        "sandbox": false,
        "internal": false,
        "security": [],
        "authHeader": null,
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "500": [
            "INTERNAL_ERROR"
          ]
        },
        "successStatus": 200
      },
      "getReadiness": {
        "method": "GET",
        "path": "/readyz",
        "tags": [
          "Service"
        ],
        "sandbox": false,
        "internal": false,
        "security": [],
        "authHeader": null,
        "errors": {
          "400": [
            "VALIDATION_ERROR"
          ],
          "500": [
            "INTERNAL_ERROR"
          ],
          "503": [
            "NOT_READY"
          ]
        },
        "successStatus": 200
      }
    },
    "rateLimits": {
      "createSession": {
        "description": "The rate limit of A1 (ADR-006), referenced as `x-rate-limit` by the operation in both\nvariants. Every answer carries the `RateLimit-*` headers (`RateLimit-Policy` is\n`<limit>;w=<windowSeconds>`); the (limit + 1)-th request of a window gets 429. The wait is\none number, the seconds until the window ends (at least 1): `error.retry_after`,\n`Retry-After` and `RateLimit-Reset` all carry it, and a request sent that many seconds\nlater is counted in a new window.\n",
        "limit": 100,
        "windowSeconds": 900,
        "keyedOn": "api-key",
        "counts": "every request authenticated by a valid key, whatever its outcome",
        "decision": "ADR-006"
      }
    },
    "webhookEvents": [
      "transaction.approved",
      "transaction.cancelled",
      "transaction.expired"
    ]
  }
} as const;

export type VariantKey = keyof typeof variants;
export type OperationId<V extends VariantKey = VariantKey> = keyof (typeof variants)[V]["operations"];
