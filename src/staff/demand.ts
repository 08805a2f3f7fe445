/**
 * @module
 * `GET /staff/demand`: where agents ask for work the company does not cover, the places
 * most asked for over the last 30 days, as `deno task review demand` prints them
 * (store/demand.ts `topDemand`). Aggregated places only: no request, id, address or text a
 * caller typed is stored, so none can show.
 */

import type { Context } from "../context.ts";
import { countryName } from "../catalog/regions.ts";
import {
  DEMAND_DAYS,
  DEMAND_RETENTION_DAYS,
  DEMAND_ROWS,
  type DemandRow,
  topDemand,
} from "../store/demand.ts";
import { type Html, html, staffPage } from "./html.ts";
import { dataTable, who } from "./parts.ts";
import type { StaffVisit } from "./session.ts";

/** `GET /staff/demand`. */
export async function demandPage(
  _req: Request,
  ctx: Context,
  visit: StaffVisit,
): Promise<Response> {
  const top = await topDemand(ctx.kv, ctx.now(), DEMAND_DAYS, DEMAND_ROWS);
  const none = `No place outside coverage was asked about in these ${DEMAND_DAYS} days.`;
  const shown = `The ${top.rows.length} places asked about most, of ${top.places}.`;
  const cut = `More places were counted on ${top.cut.join(", ")} than a page reads of one ` +
    "day: those days count only the first of them, in the order of their country.";
  const body = html`
    <p>Places asked about from ${top.from} to ${top.to} (UTC, ${DEMAND_DAYS} days) that the
    company does not cover, as coverage checks, estimates and submissions read them, on the
    site, the API and MCP. A place is counted under the name the gazetteer gives it; what a
    caller typed is never kept, nor who asked. Each instance writes its counts within a
    minute; they are kept ${DEMAND_RETENTION_DAYS} days.</p>
    ${top.rows.length ? _table(top.rows) : html`<p class="notice notice-info empty">${none}</p>`}
    ${top.places > top.rows.length ? html`<p class="muted">${shown}</p>` : null}
    ${top.cut.length ? html`<p class="notice notice-warn">${cut}</p>` : null}
  `;
  return staffPage("Demand outside coverage", body, { who: who(visit) });
}

function _table(rows: readonly DemandRow[]): Html {
  return dataTable(
    "demand",
    ["Place", "Country", `Requests in ${DEMAND_DAYS} days`, "Days seen"],
    rows.map((r) => {
      const sub = r.subdivision
        ? html`
          <span class="muted">${r.subdivision}</span>
        `
        : null;
      return html`
        <tr>
          <td>${r.name}${sub}</td>
          <td>${_country(r.country)}</td>
          <td class="num">${r.requests}</td>
          <td class="num">${r.days}</td>
        </tr>
      `;
    }),
  );
}

/** A country's English name; its code when Intl has no name for it. */
function _country(code: string): string {
  return /^[A-Z]{2}$/.test(code) ? countryName(code) : code;
}
