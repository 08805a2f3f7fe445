/**
 * @module
 * The OpenAPI operations tagged "Web".
 */

import { z } from "zod";
import { PATHS } from "../../http/paths.ts";
import type { OperationDoc } from "../document.ts";
import { apiError } from "../responses.ts";

/** The operations tagged "Web", by route; see routes.ts. */
export function webOperations() {
  return {
    homePage: {
      operationId: "getHomePage",
      summary: "Home page",
      description: "A self-contained page for people; in a browser with a model context it " +
        "registers every tool (WebMCP). Strict CSP, 'self' only.",
      tags: ["Web"],
      responses: {
        "200": { description: "The page", schema: z.string(), contentType: "text/html" },
      },
    },
    webAsset: {
      operationId: "getWebAsset",
      summary: "Script or stylesheet of the home page",
      tags: ["Web"],
      params: { name: { description: "The asset's file name", example: "app.js" } },
      responses: {
        "200": {
          description: "The asset",
          schema: z.string(),
          contentType: ["text/javascript", "text/css"],
        },
        "404": apiError("No such asset", ["not_found", "no such asset"]),
      },
    },
    leadForm: _webForm("lead"),
    quoteForm: _webForm("quote"),
  } satisfies Record<string, OperationDoc>;
}

/** `POST /forms/lead` and `/forms/quote`: the home page's forms (see intake/handlers.ts `webForm`). */
function _webForm(kind: "lead" | "quote"): OperationDoc {
  const api = `\`POST ${kind === "lead" ? PATHS.intake : PATHS.quotes}\``;
  return {
    operationId: kind === "lead" ? "postLeadForm" : "postQuoteForm",
    summary: kind === "lead" ? "The home page's contact form" : "The home page's quote form",
    description: `The same submission as ${api}, recorded as coming from the web page. ` +
      `With a JSON body it answers as ${api} does; a plain form post ` +
      "(`application/x-www-form-urlencoded`, a browser with script off) gets an HTML page: " +
      "the receipt, or the fields to correct. Only from this service's own pages (`Origin`).",
    tags: ["Web"],
    responses: {
      "202": { description: "The receipt", schema: z.string(), contentType: "text/html" },
      "400": { description: "What to correct", schema: z.string(), contentType: "text/html" },
    },
  };
}
