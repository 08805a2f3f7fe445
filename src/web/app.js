// @ts-check
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// DC Field Services home page. Served as /assets/app.js under a 'self'-only CSP.
// The server renders the catalog and the covered cities into the page; this script
// enhances it: the coverage check and the two forms, and WebMCP. Everything that comes
// from the server is written with textContent, never as HTML.

import { API } from "./api.js";
import { setupCoverage } from "./coverage.js";
import { enhanceCatalog, setupSubmission } from "./forms.js";
import { registerWebMcp } from "./webmcp.js";

setupCoverage();
setupSubmission("lead-form", "lead-result", API.intake, "lead");
setupSubmission("quote-form", "quote-result", API.quotes, "quote");
enhanceCatalog();
registerWebMcp();
