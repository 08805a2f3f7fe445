/**
 * @module
 * `GET /staff/clients` and `POST /staff/clients` (`client_id`): disabling an agent client
 * whose secret leaked, as `deno task review disable-client` does (store/credentials.ts
 * `disableClient`): every token it holds is refused from that commit on, on every instance,
 * and its token requests get `invalid_client`. The audit entry is in the same commit. The
 * answer `303`s back to the page, which then reads the client and says since when it is
 * disabled.
 */

import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { STAFF_PATHS } from "../http/paths.ts";
import { boundedQuery } from "../http/query.ts";
import { isClientId } from "../intake/ids.ts";
import { disableClient, getClient } from "../store/credentials.ts";
import { auditEntry } from "../store/staff_audit.ts";
import { html, seeOther, staffPage } from "./html.ts";
import { actorOf, fieldForm, when, who } from "./parts.ts";
import type { StaffVisit } from "./session.ts";

/** `GET /staff/clients`: the form, and the client just disabled (`?disabled=`). */
export async function clientsPage(
  req: Request,
  ctx: Context,
  visit: StaffVisit,
): Promise<Response> {
  const disabled = boundedQuery(req, ["disabled"]).get("disabled");
  const client = disabled && isClientId(disabled)
    ? (await getClient(ctx.kv, disabled)).value
    : null;
  const body = html`
    ${client?.disabled_at !== undefined
      ? html`
        <p class="notice notice-success"
          role="status">${disabled} is disabled since ${when(
            client.disabled_at,
          )}: its tokens are refused from now on, everywhere, and its token requests get invalid_client.</p>
      `
      : null}
    <p>Disable an agent client whose secret leaked or that misbehaves. Every token it holds stops
    working at once, on every instance; it cannot get new ones. There is no undo: the agent
    registers again for a new client.</p>
    ${fieldForm({
      action: STAFF_PATHS.clients,
      cls: "disable-client",
      csrf: visit.csrf,
      label: "Client id",
      id: "client_id",
      input: html`
        <input id="client_id" name="client_id" type="text" required pattern="agt_[A-Za-z0-9_\\-]{1,124}"
          placeholder="agt_…" autocomplete="off">
      `,
      button: "Disable client",
      danger: true,
    })}
  `;
  return staffPage("Agent clients", body, { who: who(visit) });
}

/** `POST /staff/clients`: `client_id`. */
export async function disableClientForm(
  _req: Request,
  ctx: Context,
  { visit, form }: { visit: StaffVisit; form: URLSearchParams },
): Promise<Response> {
  const clientId = (form.get("client_id") ?? "").trim();
  if (!isClientId(clientId)) {
    throw new HttpError(400, "invalid_request", "client_id must be an agent client id (agt_…)");
  }
  const now = ctx.now();
  const fact = {
    ...actorOf(visit),
    action: "disable_client",
    target: clientId,
    detail: null,
  } as const;
  const result = await disableClient(ctx.kv, clientId, now, (op) => auditEntry(op, fact, now));
  if (!result) throw new HttpError(404, "not_found", `no client ${clientId}`);
  return seeOther(`${STAFF_PATHS.clients}?disabled=${encodeURIComponent(clientId)}`);
}
