/**
 * @module
 * The OpenAPI operations tagged "Operations".
 */

import type { OperationDoc } from "../document.ts";
import { Health, OpenApiDocument } from "../components.ts";
import { apiError } from "../responses.ts";

/** The operations tagged "Operations", by route; see routes.ts. */
export function healthOperations() {
  return {
    healthz: {
      operationId: "getHealth",
      summary: "Liveness",
      description: "200 while the KV store answers, 503 when it does not. Never cached.",
      tags: ["Operations"],
      responses: {
        "200": { description: "The service and its store answer", schema: Health },
        "503": apiError("The KV store does not answer", [
          "unavailable",
          "the store does not answer",
        ]),
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
