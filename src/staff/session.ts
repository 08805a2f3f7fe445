/**
 * @module
 * Staff console sessions on the wire: the cookie, the session it names, and the checks every
 * console request passes.
 *
 * - **The cookie** is `<member_id>.<32 random bytes>`, opaque; the store keeps only its
 *   digest. It is `__Host-dcfs_staff` with `Secure` when `BASE_URL` is https, and
 *   `dcfs_staff` without `Secure` on plain-http localhost (a browser refuses a `__Host-`
 *   cookie without `Secure`); always `HttpOnly`, `SameSite=Strict`, `Path=/`.
 * - **A session** ends {@linkcode SESSION_IDLE_MS} after its last request, or
 *   {@linkcode SESSION_MAX_MS} after sign-in, whichever is first; a removed member's session
 *   ends at its next request, on any instance (store/staff.ts reads both strongly).
 * - **Forgery.** Every state-changing request must carry `Origin` equal to `BASE_URL`'s and
 *   the session's form token ({@linkcode csrfToken}, derived from the cookie, so never stored).
 * - **Separation.** Only the cookie is read: an `Authorization` header opens nothing here, and
 *   no OAuth or agent route reads this cookie.
 */

import { Buffer } from "node:buffer";
import { timingSafeEqual } from "node:crypto";
import type { Context } from "../context.ts";
import { parseForm, readBody } from "../http/body.ts";
import { HttpError } from "../http/errors.ts";
import { type ListBound, listEntries } from "../http/header_list.ts";
import { digest, randomCredential } from "../oauth/secrets.ts";
import {
  endSession,
  getSession,
  newSession,
  type StaffMember,
  type StaffSession,
  touchSession,
} from "../store/staff.ts";
import type { Write } from "../store/commits.ts";
import { auditEntry, type AuditFact } from "../store/staff_audit.ts";
import { HOUR_MS, MINUTE_MS } from "../time.ts";

/** A session ends this long after its last request. */
export const SESSION_IDLE_MS = 30 * MINUTE_MS;
/** A session ends this long after sign-in, however busy. */
export const SESSION_MAX_MS = 12 * HOUR_MS;
/** A request seen is written at most this often (each write is a commit). */
const TOUCH_EVERY_MS = MINUTE_MS;
/** The largest console form: a decision's note (1,000 characters) and its fields. */
const FORM_MAX_BYTES = 16 * 1024;

/** A signed-in staff member, as a console handler receives them. */
export interface StaffVisit {
  member: StaffMember;
  /** The session cookie's digest (the store key). */
  sessionHash: string;
  /** The form token every state-changing request must send back. */
  csrf: string;
  /** For the audit trail: the first 8 characters of the digest. */
  sessionTag: string;
}

/** The cookie's name under `baseUrl`: `__Host-` needs `Secure`, which plain http cannot set. */
export function cookieName(baseUrl: string): string {
  return baseUrl.startsWith("https:") ? "__Host-dcfs_staff" : "dcfs_staff";
}

/** The form token of a session: a digest of the cookie under another label. */
export function csrfToken(cookie: string): string {
  return digest(`csrf\0${cookie}`);
}

/**
 * Starts a session for `member`: the write to commit (with whatever else the sign-in commits)
 * and the `Set-Cookie` header to answer with once it landed.
 */
export function startSession(
  ctx: Context,
  member: StaffMember,
): { write: Write; setCookie: string; sessionTag: string } {
  const cookie = `${member.member_id}.${randomCredential("", 32)}`;
  const now = ctx.now();
  const session: StaffSession = {
    member_id: member.member_id,
    created_at: now,
    expires_at: now + SESSION_MAX_MS,
    seen_at: now,
  };
  const hash = digest(cookie);
  return {
    write: newSession(hash, session),
    setCookie: _setCookie(ctx.config.baseUrl, cookie, SESSION_MAX_MS / 1000),
    sessionTag: hash.slice(0, 8),
  };
}

/** The `Set-Cookie` that makes the browser forget the session. */
export function clearCookie(baseUrl: string): string {
  return _setCookie(baseUrl, "", 0);
}

function _setCookie(baseUrl: string, value: string, maxAge: number): string {
  const secure = baseUrl.startsWith("https:") ? "; Secure" : "";
  return `${
    cookieName(baseUrl)
  }=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`;
}

/**
 * The signed-in member of a request, or null: no cookie, a cookie the store does not know,
 * a session past its idle or absolute end, or a member since removed.
 */
export async function staffVisit(req: Request, ctx: Context): Promise<StaffVisit | null> {
  const cookie = _cookie(req, cookieName(ctx.config.baseUrl));
  const dot = cookie?.indexOf(".") ?? -1;
  if (!cookie || dot < 1 || cookie.length > 200) return null;
  const hash = digest(cookie);
  const found = await getSession(ctx.kv, hash, cookie.slice(0, dot));
  if (!found) return null;
  const now = ctx.now();
  const s = found.entry.value;
  if (now >= s.expires_at || now >= s.seen_at + SESSION_IDLE_MS) {
    await endSession(ctx.kv, hash, s.member_id);
    return null;
  }
  if (now - s.seen_at >= TOUCH_EVERY_MS) await touchSession(ctx.kv, found.entry, now);
  return {
    member: found.member,
    sessionHash: hash,
    csrf: csrfToken(cookie),
    sessionTag: hash.slice(0, 8),
  };
}

/**
 * A state-changing console request: `Origin` must be the service's own, the session valid and
 * the form's `csrf` its token. Returns the visit and the form; throws 403 otherwise (and 401
 * with no session), before anything is read from the store when `Origin` is wrong.
 */
export async function staffForm(
  req: Request,
  ctx: Context,
): Promise<{ visit: StaffVisit; form: URLSearchParams }> {
  checkOrigin(req, ctx);
  const visit = await staffVisit(req, ctx);
  if (!visit) throw new HttpError(401, "unauthorized", "sign in first: no valid staff session");
  const form = parseForm(await readBody(req, { maxBytes: FORM_MAX_BYTES }));
  if (!_same(form.get("csrf") ?? "", visit.csrf)) {
    throw new HttpError(403, "forbidden", "the form's token is missing or not this session's");
  }
  return { visit, form };
}

/** Refuses a state-changing request whose `Origin` is absent or not `BASE_URL`'s. */
export function checkOrigin(req: Request, ctx: Context): void {
  if (req.headers.get("origin") !== ctx.config.baseUrl) {
    throw new HttpError(403, "forbidden", "staff requests must come from the console's own page");
  }
}

/** Ends the session of `visit` (sign-out), with its audit entry in the same commit. */
export function signOut(ctx: Context, visit: StaffVisit): Promise<void> {
  const fact: AuditFact = {
    member_id: visit.member.member_id,
    actor: visit.member.name,
    session: visit.sessionTag,
    action: "sign_out",
    target: null,
    detail: null,
  };
  const now = ctx.now();
  return endSession(
    ctx.kv,
    visit.sessionHash,
    visit.member.member_id,
    (op) => auditEntry(op, fact, now),
  );
}

function _same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * How much of `Cookie` is read: its first 8 KiB, every pair within them (a pair takes at least
 * two characters, so the count never binds). The proxy of the docs (nginx) refuses a header
 * line over 8 KiB anyway. A session cookie past this is not seen (signed out); a count of pairs
 * would let cookies another site of the domain sets push the session out of a short header.
 */
export const COOKIE_READ: ListBound = { entries: 4096, chars: 8192 };

/** One cookie's value from the request's `Cookie` header (its first pairs only). */
function _cookie(req: Request, name: string): string | undefined {
  for (const part of listEntries(req.headers.get("cookie"), ";", COOKIE_READ)) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
