/**
 * @module
 * Test data and tools shared by several test files and the load scripts in `bench/`:
 * an environment without rate limits, the MCP tool names with a valid lead and quote,
 * and a small seeded random generator.
 */

import { ENV_NAMES } from "../src/config.ts";

/** Every `RATE_LIMIT_*` variable set to `0` (off), for load and fuzz runs. */
export const RATE_LIMITS_OFF: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(ENV_NAMES.filter((n) => n.startsWith("RATE_LIMIT_")).map((n) => [n, "0"])),
);

/** The four MCP tools, in the order `tools/list` gives them. */
/** The four tools of SPEC §4.7. */
export const SPEC_TOOL_NAMES = ["check_coverage", "list_services", "submit_lead", "request_quote"];
/** Every tool: the SPEC's four, then the read-only additions. */
export const TOOL_NAMES = [...SPEC_TOOL_NAMES, "estimate_quote", "get_request_status"];

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
