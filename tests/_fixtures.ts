/**
 * @module
 * Test data and tools shared by several test files and the load scripts in `bench/`:
 * an environment without rate limits, the MCP tool names with a valid lead and quote,
 * and a small seeded random generator.
 */

import { ENV_NAMES } from "../src/config.ts";
import { SUBMISSION_MAX_BODY } from "../src/intake/submissions.ts";

/** Every `RATE_LIMIT_*` variable set to `0` (off), for load and fuzz runs. */
export const RATE_LIMITS_OFF: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(ENV_NAMES.filter((n) => n.startsWith("RATE_LIMIT_")).map((n) => [n, "0"])),
);

/** The four tools of SPEC §4.7. */
export const SPEC_TOOL_NAMES = ["check_coverage", "list_services", "submit_lead", "request_quote"];
/** Every tool: the SPEC's four, then the read-only additions. */
export const TOOL_NAMES = [...SPEC_TOOL_NAMES, "estimate_quote", "get_request_status"];

/** The JSON-RPC `initialize` request a 2025-11-25 MCP client sends first. */
export function initializeRequest(clientName: string): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: clientName, version: "1" },
    },
  };
}

/** A valid `submit_lead` / `POST /api/v1/intake` argument. */
export const LEAD = { email: "ops@example.com", description: "Two racks in Frankfurt" };

/** A valid `request_quote` / `POST /api/v1/quotes` argument. */
export const QUOTE = {
  company: "Example GmbH",
  contact_name: "Alex Example",
  email: "alex@example.com",
  city: "Zurich",
  service_type: "Rack and stack",
  description: "Install 4 servers",
  engineer_count: 2,
  estimated_hours: 3,
};

/**
 * The largest quote the service accepts: its JSON exactly `SUBMISSION_MAX_BODY` bytes,
 * control characters (6 bytes each as JSON) in the references, an uncovered city and no
 * hours (so the estimate carries its notes). `tag` starts the description, so that each
 * tag is a request of its own.
 */
export function largestQuote(tag = ""): Record<string, unknown> {
  const { estimated_hours: _, ...rest } = QUOTE;
  const quote: Record<string, unknown> = {
    ...rest,
    city: "Utopia",
    description: tag.padEnd(5000, "\u0001"),
    attachments_optional: Array.from({ length: 10 }, () => "\u0002".repeat(495)),
    agent_context_optional: { n: "\u0003".repeat(600) },
    ...Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`.padEnd(64, "k"), ""])),
  };
  const size = () => new TextEncoder().encode(JSON.stringify(quote)).byteLength;
  quote["k15".padEnd(64, "k")] = "x".repeat(SUBMISSION_MAX_BODY - size());
  return quote;
}

/** mulberry32: a 32-bit seeded generator in [0, 1), small and fully reproducible. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
