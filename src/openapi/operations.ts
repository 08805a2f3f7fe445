/**
 * @module
 * The OpenAPI operation of every route, attached to the route table in `routes.ts`
 * (`doc: docs.submitLead`), gathered from one file per tag under `operations/`. Statuses
 * and error codes follow the handlers and the error table of docs/api.md; bodies are the
 * zod schemas the handlers validate with or the ones of `components.ts`.
 */

import type { Catalog } from "../catalog/catalog.ts";
import type { Config } from "../config.ts";
import { healthOperations } from "./operations/health.ts";
import { discoveryOperations } from "./operations/discovery.ts";
import { oauthOperations } from "./operations/oauth.ts";
import { agentResourceOperations } from "./operations/agent_resource.ts";
import { publicOperations } from "./operations/public.ts";
import { mcpOperations } from "./operations/mcp.ts";
import { webOperations } from "./operations/web.ts";

/**
 * The operations, by route, one file per tag of the document. Built per handler because
 * some examples are the service's own documents for the configured base URL.
 */
export function operationDocs(config: Config, catalog: Catalog) {
  const publicDocs = publicOperations(catalog);
  return {
    ...healthOperations(),
    ...discoveryOperations(config),
    ...oauthOperations(config),
    ...agentResourceOperations(config),
    ...publicDocs,
    ...mcpOperations(config),
    ...webOperations({ lead: publicDocs.submitLead, quote: publicDocs.requestQuote }),
  };
}
