// @ts-check
// Words the home page's script (app.js) and the server's pages (pages.ts) both use, so the
// page reads the same with and without script. Served as /assets/words.js.

/** A submission's status as people read it. */
/** @type {Readonly<Record<string, string>>} */
export const STATUS_WORDS = { pending: "Waiting for review by our team" };

/**
 * An amount of money as the page shows it ("€95", "€1,250.50"); "–" for no amount.
 * @param {unknown} amount
 * @param {string} currency
 */
export function money(amount, currency) {
  if (typeof amount !== "number" || !Number.isFinite(amount)) return "–";
  try {
    return new Intl.NumberFormat("en-GB", {
      style: "currency",
      currency,
      minimumFractionDigits: Number.isInteger(amount) ? 0 : 2,
      maximumFractionDigits: 2,
    }).format(amount);
  } catch {
    return amount + " " + currency;
  }
}

/**
 * A field's error in the page's words: the field's name at the start of the message
 * becomes its label ("contact_name is required" → "Contact name is required").
 * @param {string} message
 * @param {string} path the field's name
 * @param {string} label the field's label on the page ("" when it has none)
 */
export function inWords(message, path, label) {
  if (!label || !path || !message.startsWith(path + " ")) return message;
  return label + message.slice(path.length);
}

/**
 * When a review is expected, as the answers and the receipts say it:
 * "within 24 hours, by 2026-11-23 09:30 UTC"; "" for anything else.
 * @param {unknown} review an answer's `expected_review`: `{within_hours, by}`
 */
export function reviewTime(review) {
  if (!review || typeof review !== "object") return "";
  const { within_hours: hours, by } = /** @type {Record<string, unknown>} */ (review);
  if (typeof hours !== "number" || typeof by !== "string") return "";
  const at = by.slice(0, 16).replace("T", " ");
  return `within ${hours} ${hours === 1 ? "hour" : "hours"}, by ${at} UTC`;
}
