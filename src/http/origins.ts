/**
 * @module
 * Which browser origins may call the routes that write or spend a budget: the
 * service's own origin and `ALLOWED_ORIGINS`. A request without `Origin` is not from
 * a browser page and is always served; the router refuses any other origin with 403.
 * This also defeats DNS rebinding (MCP transport security) and cross-site form posts.
 */

import type { Config } from "../config.ts";
import type { OriginPolicy } from "./router.ts";

/** The origin policy of the service: its own origin and the configured extra ones. */
export function ownOrigins(config: Config): OriginPolicy {
  const allowed = new Set([config.baseUrl, ...config.allowedOrigins]);
  return (origin) => allowed.has(origin);
}
