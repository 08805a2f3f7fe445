/**
 * Fixtures of the passkey ceremony tests: the JSON POSTs passkey.js makes, a whole
 * enrolment or sign-in with a {@linkcode SoftAuthenticator}, and an invite printed by the
 * review CLI.
 */

import assert from "node:assert/strict";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { runReview } from "../../src/review/cli.ts";
import { csrfToken } from "../../src/staff/session.ts";
import type { StaffMember } from "../../src/store/staff.ts";
import type { Requester, TestApp } from "../_helpers.ts";
import type { Staffer } from "./_staff.ts";
import type { SoftAuthenticator } from "./_authenticator.ts";

/** A ceremony POST as passkey.js sends it: JSON, from the console's origin unless told. */
export function ceremonyPost(
  app: Requester & { config: { baseUrl: string } },
  path: string,
  body: unknown,
  init: { origin?: string | null; address?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  const origin = init.origin === undefined ? app.config.baseUrl : init.origin;
  if (origin !== null) headers.Origin = origin;
  const request: RequestInit & { address?: string } = {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  };
  if (init.address) request.address = init.address;
  return app.request(path, request);
}

/** A finished ceremony: the answer posted, what the service said, and the cookie it set. */
export interface Finished {
  // deno-lint-ignore no-explicit-any
  answer: any;
  res: Response;
  /** `name=value` of the session cookie, when one was set. */
  cookie: string | undefined;
}

type App = Requester & { config: { baseUrl: string } };

/** Enrols with an invite token or a code and name: the options, the passkey, the answer. */
export async function enrolWith(
  app: App,
  auth: SoftAuthenticator,
  by: { invite: string } | { code: string; name: string },
  address?: string,
): Promise<Finished> {
  const begin = await ceremonyPost(app, STAFF_PATHS.enrolOptions, by, { address });
  assert.equal(begin.status, 200, await begin.clone().text());
  const answer = await auth.create((await begin.json()).options);
  const res = await ceremonyPost(app, STAFF_PATHS.enrol, answer, { address });
  return { answer, res, cookie: cookieOf(res) };
}

/** Signs in with the authenticator's passkey: the options, the assertion, the answer. */
export async function signInWith(
  app: App,
  auth: SoftAuthenticator,
  options: { origin?: string; userHandle?: string; address?: string } = {},
): Promise<Finished> {
  const begin = await ceremonyPost(app, STAFF_PATHS.signInOptions, {}, options);
  assert.equal(begin.status, 200, await begin.clone().text());
  const answer = await auth.get((await begin.json()).options, options);
  const res = await ceremonyPost(app, STAFF_PATHS.signIn, answer, options);
  return { answer, res, cookie: cookieOf(res) };
}

/** The `name=value` of a response's session cookie (Set-Cookie's first part). */
export function cookieOf(res: Response): string | undefined {
  const set = res.headers.get("set-cookie");
  return set ? set.split(";", 1)[0] : undefined;
}

/** A member signed in with `cookie`, as the form fixtures of _staff.ts take them. */
export function staffer(member: StaffMember, cookie: string): Staffer {
  return { member, cookie, csrf: csrfToken(cookie.slice(cookie.indexOf("=") + 1)) };
}

/** The member id a session cookie names (`<member_id>.<random>`). */
export function memberOf(cookie: string): string {
  const value = cookie.slice(cookie.indexOf("=") + 1);
  return value.slice(0, value.indexOf("."));
}

/** `deno task review invite --name <name>`, in-process: the printed link and its token. */
export async function cliInvite(
  app: Pick<TestApp, "kv" | "clock" | "config">,
  name: string,
): Promise<{ link: string; token: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runReview(["invite", "--name", name], {
    kv: app.kv,
    now: app.clock.now,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    baseUrl: () => app.config.baseUrl,
  });
  assert.equal(code, 0, err.join("\n"));
  assert.equal(out.length, 1, "the link alone is on stdout");
  const link = out[0]!;
  const token = new URLSearchParams(new URL(link).hash.slice(1)).get("invite");
  assert.ok(token, link);
  return { link, token, stderr: err.join("\n") };
}
