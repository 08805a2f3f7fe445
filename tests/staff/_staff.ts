/**
 * Fixtures of the staff console tests: a member signed in without a passkey ceremony (the
 * ceremony has its own tests), by writing the member and a session as sign-in would.
 */

import { commitWrite } from "../../src/store/commits.ts";
import { addMember, type StaffMember } from "../../src/store/staff.ts";
import { csrfToken, startSession } from "../../src/staff/session.ts";
import { RequestContext } from "../../src/context.ts";
import type { TestApp } from "../_helpers.ts";

/** A member signed in, with what a browser would send: the cookie and the form token. */
export interface Staffer {
  member: StaffMember;
  /** `name=value`, for a `Cookie` header. */
  cookie: string;
  csrf: string;
}

/** Enrols `name` with a made-up passkey and signs them in; the app's clock is the time. */
export async function signedIn(app: TestApp, name = "Sam Reviewer"): Promise<Staffer> {
  const member: StaffMember = {
    member_id: `stf_${crypto.randomUUID().replaceAll("-", "")}`,
    name,
    created_at: app.clock.now(),
    invited_by: "cli",
  };
  const credentialId = crypto.randomUUID();
  const op = app.kv.atomic();
  addMember(op, member, {
    member_id: member.member_id,
    credential_id: credentialId,
    public_key: new Uint8Array(8),
    counter: 0,
    transports: [],
    created_at: member.created_at,
  });
  if (!(await op.commit()).ok) throw new Error("member not stored");
  const ctx = new RequestContext(
    // deno-lint-ignore no-explicit-any
    { kv: app.kv, config: app.config, now: app.clock.now } as any,
    new Request(app.config.baseUrl),
    undefined,
    "test",
  );
  const { write, setCookie } = startSession(ctx, member);
  if (!(await commitWrite(app.kv, write)).ok) throw new Error("session not stored");
  const cookie = setCookie.split(";", 1)[0]!;
  return { member, cookie, csrf: csrfToken(cookie.slice(cookie.indexOf("=") + 1)) };
}

/** A console form post as the member's browser sends it: same origin, cookie, form token. */
export function staffPost(
  app: TestApp,
  who: Staffer,
  path: string,
  fields: Record<string, string>,
  init: { origin?: string | null; csrf?: string | null } = {},
): Promise<Response> {
  const form = new URLSearchParams(fields);
  const csrf = init.csrf === undefined ? who.csrf : init.csrf;
  if (csrf !== null) form.set("csrf", csrf);
  const headers: Record<string, string> = {
    "Content-Type": "application/x-www-form-urlencoded",
    Cookie: who.cookie,
  };
  const origin = init.origin === undefined ? app.config.baseUrl : init.origin;
  if (origin !== null) headers.Origin = origin;
  return app.request(path, { method: "POST", headers, body: form.toString(), redirect: "manual" });
}

/** A console page as the member's browser asks for it. */
export function staffGet(
  app: TestApp,
  who: Pick<Staffer, "cookie"> | null,
  path: string,
): Promise<Response> {
  return app.request(path, {
    headers: who ? { Cookie: who.cookie } : {},
    redirect: "manual",
  });
}
