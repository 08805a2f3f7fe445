/**
 * @module
 * The OpenAPI operations tagged "Web".
 */

import { z } from "zod";
import { PATHS } from "../../http/paths.ts";
import type { OperationDoc, ResponseDoc } from "../document.ts";
import { apiError } from "../responses.ts";

/**
 * The operations tagged "Web", by route; see routes.ts. The forms take what the REST
 * submissions take, so they are built from those operations (`submitLead`, `requestQuote`).
 */
export function webOperations(submissions: { lead: OperationDoc; quote: OperationDoc }) {
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
    leadForm: _webForm("lead", submissions.lead),
    quoteForm: _webForm("quote", submissions.quote),
  } satisfies Record<string, OperationDoc>;
}

/**
 * Answers a plain form post gets as a page (intake/handlers.ts `webForm`): every one but these.
 * A 415 may be either: a page for a form sent with a Content-Encoding, JSON for a body of
 * another media type.
 */
const _JSON_ONLY = new Set(["403"]);

/**
 * `POST /forms/lead` and `/forms/quote`: the home page's forms. A JSON body is the REST
 * submission (`api`), answered as it; a plain form post (script off) sends the same
 * fields as text (numbers, dates and the `out_of_hours` checkbox read as the REST
 * endpoints read strings) and gets each of those answers as an HTML page instead.
 */
function _webForm(kind: "lead" | "quote", api: OperationDoc): OperationDoc {
  const body = api.requestBody!;
  const path = `\`POST ${kind === "lead" ? PATHS.intake : PATHS.quotes}\``;
  return {
    ...api,
    operationId: kind === "lead" ? "postLeadForm" : "postQuoteForm",
    summary: kind === "lead" ? "The home page's contact form" : "The home page's quote form",
    description: `The same submission as ${path}, recorded as coming from the web page. ` +
      `With a JSON body it answers as ${path} does; a plain form post ` +
      "(`application/x-www-form-urlencoded`, a browser with script off) sends the same fields " +
      "as text (an empty one is left out; `on` for the `out_of_hours` checkbox) and gets an " +
      "HTML page: the receipt, or what to correct, with the status the JSON answer would have. " +
      "Only from this service's own pages (`Origin`).",
    tags: ["Web"],
    requestBody: {
      ...body,
      alternatives: { "application/x-www-form-urlencoded": _formFields(body.schema) },
    },
    responses: Object.fromEntries(
      Object.entries(api.responses).map(([status, r]) => [
        status,
        _JSON_ONLY.has(status) ? r : _orPage(r),
      ]),
    ),
  };
}

/** A submission's fields that a form can carry: all but its objects and arrays. */
function _formFields(schema: z.ZodType): z.ZodType {
  if (!(schema instanceof z.ZodObject)) throw new Error("a submission schema is an object");
  const flat = Object.entries(schema.shape as Record<string, z.ZodType>).filter(([, field]) => {
    const { type } = z.toJSONSchema(field, { io: "input", unrepresentable: "any" });
    return type !== "object" && type !== "array";
  });
  return z.looseObject(Object.fromEntries(flat)).describe(
    "The submission's fields as a form sends them, each as text",
  );
}

function _orPage(r: ResponseDoc): ResponseDoc {
  return {
    ...r,
    alternatives: { ...r.alternatives, "text/html": z.string().describe("The page, for people") },
  };
}
