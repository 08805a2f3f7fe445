import assert from "node:assert/strict";
import { createApp } from "../_helpers.ts";
import { signedIn, staffGet, staffPost } from "./_staff.ts";
import { STAFF_PATHS } from "../../src/http/paths.ts";

Deno.test("sign-out needs the console's Origin and the session's form token, then ends it", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  const foreign = await staffPost(app, sam, STAFF_PATHS.signOut, {}, {
    origin: "https://evil.test",
  });
  assert.equal(foreign.status, 403);
  assert.equal((await staffPost(app, sam, STAFF_PATHS.signOut, {}, { origin: null })).status, 403);
  assert.equal((await staffPost(app, sam, STAFF_PATHS.signOut, {}, { csrf: null })).status, 403);
  const forged = await staffPost(app, sam, STAFF_PATHS.signOut, {}, { csrf: "x".repeat(43) });
  assert.equal(forged.status, 403);
  assert.equal(forged.headers.get("cache-control"), "no-store, private, no-transform");
  assert.equal(forged.headers.get("x-frame-options"), "DENY");
  const out = await staffPost(app, sam, STAFF_PATHS.signOut, {});
  assert.equal(out.status, 303);
  assert.equal(out.headers.get("location"), STAFF_PATHS.signIn);
  assert.match(
    out.headers.get("set-cookie") ?? "",
    /^__Host-dcfs_staff=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0; Secure$/,
  );
  const again = await staffPost(app, sam, STAFF_PATHS.signOut, {});
  assert.equal(again.status, 401);
  assert.ok((await again.text()).includes("Sign in"));
});

Deno.test("STAFF_CONSOLE=off serves no /staff/ path", async () => {
  await using app = await createApp({ env: { STAFF_CONSOLE: "off" } });
  assert.equal((await staffGet(app, null, "/staff/assets/staff.css")).status, 404);
  await using on = await createApp();
  assert.equal((await staffGet(on, null, "/staff/assets/staff.css")).status, 200);
});
