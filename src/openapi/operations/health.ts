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
        "200 when the KV store answers within 2 s, 503 when it does not. Also says how old the oldest waiting review notice is, and whether that is stale (older than 15 minutes); a stale notice does not make the answer 503, since every instance shares one outbox. No personal data. Never cached.",
      tags: ["Operations"],
      responses: {
        "200": { description: "The store answers", schema: Readiness },
        "503": { description: "The store does not answer in time", schema: Readiness },
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
