/**
 * @module
 * The commercial terms an estimate states (data/services.v1.json `terms`): that its amounts
 * exclude tax and which tax the quotation adds at the site, and, when another currency was
 * asked for, what the service can do: the estimate stays in the catalog's currency, says
 * so, and a quote request keeps the asked currency for its reviewer.
 */

import { countryName } from "../catalog/regions.ts";
import type { Catalog } from "../catalog/catalog.ts";
import type { Coverage } from "../catalog/coverage.ts";
import type { BudgetEstimate } from "./budget.ts";

/**
 * The estimate with its terms: `tax_included` and `tax` beside `currency`, and, for a
 * `currency` asked other than the estimate's, an assumption and a sentence of the note.
 */
export function withTerms(
  estimate: BudgetEstimate,
  catalog: Catalog,
  coverage: Coverage,
  askedCurrency: string | undefined,
): BudgetEstimate {
  const { currency, ...rest } = estimate;
  const other = askedCurrency !== undefined && askedCurrency !== currency;
  const said = other ? currencyNote(currency, askedCurrency) : undefined;
  return {
    currency,
    tax_included: catalog.terms.tax_included,
    tax: taxStatement(catalog, coverage),
    ...rest,
    assumptions: said
      ? [...rest.assumptions, { field: "currency", value: currency, why: said.why }]
      : rest.assumptions,
    note: said ? [rest.note, said.note].filter(Boolean).join(" ") : rest.note,
  };
}

/** What an estimate says when `asked` is not its currency: why it is in `currency` anyway. */
function currencyNote(currency: string, asked: string): { why: string; note: string } {
  return {
    why: `${asked} was asked: prices and quotations are in ${currency} only`,
    note: `Prices and quotations are in ${currency} only; ${asked} was asked: this estimate is ` +
      `in ${currency}, and a quote request keeps ${asked} for the person who reviews it.`,
  };
}

/** "Excludes tax: the quotation adds VAT where it applies in the site's country (Germany)." */
function taxStatement(catalog: Catalog, coverage: Coverage): string {
  const country = _siteCountry(coverage);
  const tax = country === null ? undefined : catalog.taxByCountry.get(country);
  if (country === null || tax === undefined) {
    return "Excludes tax: the quotation adds the tax of the site's country where it applies.";
  }
  return `Excludes tax: the quotation adds ${tax} where it applies in the site's country ` +
    `(${countryName(country)}).`;
}

/**
 * The site's country as far as the coverage says it: the covered city's, or the one given
 * for a city outside coverage; none for a name several countries share.
 */
function _siteCountry(coverage: Coverage): string | null {
  if (coverage.place) return coverage.place.country;
  if (coverage.location) return coverage.location.country;
  if (
    coverage.match === "known_uncovered" || coverage.match === "unknown" ||
    coverage.match === "country"
  ) {
    return coverage.query.country;
  }
  return null;
}
