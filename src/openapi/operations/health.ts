/**
 * @module
 * The OpenAPI operations tagged "Operations".
 */

import type { OperationDoc } from "../document.ts";
import { Health, OpenApiDocument, Readiness } from "../components.ts";

/** The operations tagged "Operations", by route; see routes.ts. */
export function healthOperations() {
  return {
    healthz: {
      operationId: "getHealth",
      summary: "Liveness",
      description:
        "200 while the process serves; it does not wait on the store (see getReadiness). Never cached.",
      tags: ["Operations"],
      responses: { "200": { description: "The process answers", schema: Health } },
    },
    readyz: {
      operationId: "getReadiness",
      summary: "Readiness",
      description:
        "200 {ready: true} when the KV store answers a ping within its 2.5 s deadline and its circuit breaker is closed; 503 {ready: false} with Retry-After when it does not. Says nothing else: the review notice backlog is for operators (metrics and the review CLI). Never cached.",
      tags: ["Operations"],
      responses: {
        "200": { description: "The store answers", schema: Readiness },
        "503": {
          description: "The store does not answer in time, or its breaker is open",
          schema: Readiness,
        },
      },
    },
    openApi: {
      operationId: "getOpenApiDocument",
      summary: "This OpenAPI 3.1 document",
      description: "Generated from the route table and its zod schemas. Cacheable 5 minutes.",
      tags: ["Operations"],
      responses: { "200": { description: "The document", schema: OpenApiDocument } },
    },
  } satisfies Record<string, OperationDoc>;
}
