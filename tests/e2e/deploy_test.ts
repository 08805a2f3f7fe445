/**
 * The service as Deno Deploy runs it: `deno run --allow-all src/main.ts` with no other flag,
 * on the oldest Deno it claims (`DEPLOY_DENO` names that binary; `.ci/run` sets it), its
 * schedules found by evaluating the entry module, stopped by SIGINT with SIGKILL 5 s later,
 * and `KV_PATH` refused where the store is the attached database.
 */

import assert from "node:assert/strict";
import { SCHEDULES } from "../../src/ops/background.ts";
import { submissionKey } from "../../src/store/keys.ts";
import {
  DEFAULT_STORE,
  looksAttached,
  OLDEST_DENO,
  storeLocation,
} from "../../src/ops/platform.ts";
import { ENV_NAMES } from "../../src/config.ts";
import { initializeRequest, LEAD, QUOTE } from "../_fixtures.ts";
import {
  bearerGet,
  issueToken,
  mcpPost,
  mcpToolCall,
  overHttp,
  post,
  registerClient,
  revokeRequest,
} from "../_helpers.ts";
import { root, startServiceOnTempKv } from "../_service.ts";
import { assertNoLengthOracle, enrolCode } from "./_length_oracle.ts";
import { SoftAuthenticator } from "../staff/_authenticator.ts";
import { enrolWith } from "../staff/_ceremony.ts";

const STAFF_ENROL_CODE = "deploy-test-enrol-code-0123456789";

/** The Deno under test: the oldest supported one in CI, else the one running the tests. */
const deno = Deno.env.get("DEPLOY_DENO") || Deno.execPath();

Deno.test(`started as Deno Deploy starts it, on ${Deno.env.get("DEPLOY_DENO") ? "the oldest supported Deno" : "this Deno"}, every main flow works`, async () => {
  await using service = await startServiceOnTempKv({ STAFF_ENROL_CODE }, { asDeploy: { deno } });
  const running = service.logs.find((l) => l.msg === "listening")!;
  if (Deno.env.get("DEPLOY_DENO")) assert.equal(running.deno, OLDEST_DENO);
  const app = overHttp(service.baseUrl);

  const metadata = await app.request("/.well-known/oauth-authorization-server");
  assert.equal(metadata.status, 200);
  assert.equal((await metadata.json()).issuer, service.baseUrl);
  const resource = await app.request("/.well-known/oauth-protected-resource");
  assert.equal(resource.status, 200);
  await resource.body?.cancel();

  const client = await registerClient(app);
  const token = await issueToken(app, client);
  const services = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(services.status, 200);
  assert.ok((await services.json()).services.length > 0);
  assert.equal((await revokeRequest(app, client, token)).status, 200);
  const revoked = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(revoked.status, 401);
  await revoked.body?.cancel();

  const lead = await post(app, "/api/v1/intake", LEAD);
  assert.equal(lead.status, 202, await lead.clone().text());
  await lead.body?.cancel();
  const quote = await post(app, "/api/v1/quotes", QUOTE);
  assert.equal(quote.status, 202, await quote.clone().text());
  assert.ok((await quote.json()).budget_estimate);

  const init = await mcpPost(app, initializeRequest("deploy-smoke"), {
    "MCP-Protocol-Version": "2025-11-25",
  });
  assert.equal(init.status, 200);
  assert.match(await init.text(), /"serverInfo"/);
  const call = await mcpToolCall(app, "check_coverage", { city: "Frankfurt" });
  assert.equal((call.structuredContent.coverage as { covered: boolean }).covered, true);

  const home = await app.request("/");
  assert.equal(home.status, 200);
  assert.match(home.headers.get("content-type")!, /^text\/html/);
  assert.match(await home.text(), /<form id="quote-form"/);
  const script = await app.request("/assets/app.js");
  assert.equal(script.status, 200);
  assert.match(await script.text(), /@ts-check/);

  // The staff console's first member, by STAFF_ENROL_CODE (Deploy has no shell for an
  // invite): the WebAuthn package is imported on this first ceremony, not at start.
  const staff = { ...app, config: { baseUrl: service.baseUrl } };
  const enrolled = await enrolWith(staff, new SoftAuthenticator(service.baseUrl), {
    code: STAFF_ENROL_CODE,
    name: "Deploy Operator",
  });
  assert.equal(enrolled.res.status, 200, await enrolled.res.clone().text());
  assert.ok(enrolled.cookie);

  service.child.kill("SIGINT");
  assert.equal((await service.child.status).code, 0);
});

Deno.test("every schedule is declared at the entry module's top level, before the store and the server", async () => {
  const out = await new Deno.Command(deno, {
    args: ["run", "--allow-all", "tests/e2e/_entry_probe.ts"],
    cwd: root,
    env: { KV_PATH: ":memory:", PORT: "0", NO_COLOR: "1" },
    stderr: "inherit",
  }).output();
  assert.equal(out.code, 0);
  const seen = JSON.parse(new TextDecoder().decode(out.stdout));
  const expected = SCHEDULES.map(({ name, schedule }) => ({ name, schedule }));
  assert.deepEqual(seen.before_serve, expected);
  assert.equal(seen.before_store, expected.length, "declared before anything is awaited");
});

Deno.test("on Deno Deploy KV_PATH is refused with one clear line, before anything is opened", async () => {
  const out = await new Deno.Command(deno, {
    args: ["run", "--allow-all", "src/main.ts"],
    cwd: root,
    env: { NO_COLOR: "1", DENO_DEPLOYMENT_ID: "test", KV_PATH: "/tmp/dcfs-deploy.sqlite3" },
  }).output();
  assert.equal(out.code, 2);
  const stderr = new TextDecoder().decode(out.stderr).trim();
  assert.match(stderr, /^configuration error: KV_PATH must not be set on Deno Deploy .*Databases/);
  assert.equal(stderr.split("\n").length, 1, stderr);
});

Deno.test("the default store is one file in the checkout, whatever the working directory", () => {
  const before = Deno.cwd();
  const seen: (string | undefined)[] = [];
  try {
    for (const dir of [before, "/tmp", new URL("src/", root).pathname]) {
      Deno.chdir(dir);
      seen.push(storeLocation(undefined, {}));
    }
  } finally {
    Deno.chdir(before);
  }
  assert.deepEqual(seen, Array(3).fill(new URL(".kv/kv.sqlite3", root).pathname));
  assert.equal(DEFAULT_STORE.href, new URL(".kv/kv.sqlite3", root).href);
  assert.equal(storeLocation("/data/kv.sqlite3", {}), "/data/kv.sqlite3");
  // On Deploy: the attached database (Deno.openKv() with no argument).
  assert.equal(storeLocation(undefined, { DENO_DEPLOYMENT_ID: "x" }), undefined);
  assert.equal(storeLocation(undefined, { DENO_DEPLOY: "true" }), undefined);
});

Deno.test("a store created in the instance is told from Deploy's attached database", async () => {
  await using kv = await Deno.openKv(":memory:");
  assert.equal(await looksAttached(async () => (await kv.set(["x"], 1)).versionstamp), false);
  // Deploy's KV numbers commits by its FoundationDB cluster's version clock.
  assert.equal(await looksAttached(() => Promise.resolve("0000a1b2c3d4e5f60000")), true);
});

Deno.test("no setting needs a name Deno Deploy refuses", async () => {
  // deploy/reference/env_vars_and_contexts.md, "Limits".
  for (const name of ENV_NAMES) {
    assert.doesNotMatch(name, /^(DENO_|OTEL_|LD_)/, name);
    assert.ok(new TextEncoder().encode(name).byteLength <= 128, name);
  }
  // The Deploy section of the operations guide sets no refused name either.
  const ops = await Deno.readTextFile(new URL("docs/operations.md", root));
  const deploy = ops.slice(
    ops.indexOf("### Deno Deploy"),
    ops.indexOf("\n### ", ops.indexOf("### Deno Deploy") + 1),
  );
  assert.ok(deploy.length > 200, "docs/operations.md has a Deno Deploy section");
  for (const [, name] of deploy.matchAll(/^\s*\|\s*`([A-Z_*]+)`/gm)) {
    assert.doesNotMatch(name!, /^(DENO_|OTEL_|LD_)/, `the Deploy settings table sets ${name}`);
  }
});

Deno.test("the review webhook is production's: a git-branch timeline logs its notices instead", async () => {
  // DENO_TIMELINE alone: with DENO_DEPLOY set the store would be Deploy's attached database.
  const posted: string[] = [];
  const hook = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    posted.push((await req.json()).request_id);
    return new Response(null, { status: 204 });
  });
  try {
    for (const timeline of ["git-branch/feature-x", "production"]) {
      await using service = await startServiceOnTempKv({
        DENO_TIMELINE: timeline,
        REVIEW_WEBHOOK_URL: `http://127.0.0.1:${hook.addr.port}/hook`,
      }, { asDeploy: { deno } });
      const off = service.logs.filter((l) => /^review webhook off/.test(String(l.msg)));
      const stored = await post(overHttp(service.baseUrl), "/api/v1/intake", LEAD);
      assert.equal(stored.status, 202);
      const { request_id } = await stored.json();
      const queued = await service.waitFor((l) =>
        l.msg === "submission queued for review" && l.submission_id === request_id
      );
      if (timeline === "production") {
        assert.deepEqual(off, []);
        assert.equal(queued.via, "webhook");
        assert.deepEqual(posted, [request_id]);
      } else {
        assert.deepEqual(off.map((l) => l.timeline), [timeline]);
        assert.equal(queued.via, "log");
        assert.deepEqual(posted, [], "a branch's notice reached the webhook");
      }
    }
  } finally {
    await hook.shutdown();
  }
});

Deno.test("after SIGINT the process is gone within 4 s, whatever is in flight", async () => {
  // A webhook that takes a delivery and never answers, and an upload that never ends.
  const delivering = Promise.withResolvers<void>();
  const hook = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    delivering.resolve();
    // No answer until the caller gives up (or is gone).
    return new Promise<Response>((resolve) =>
      req.signal.addEventListener("abort", () => resolve(new Response(null, { status: 504 })))
    );
  });
  try {
    await using service = await startServiceOnTempKv({
      REVIEW_WEBHOOK_URL: `http://127.0.0.1:${hook.addr.port}/hook`,
    }, { asDeploy: { deno } });
    const app = overHttp(service.baseUrl);
    const stored = await post(app, "/api/v1/intake", LEAD);
    assert.equal(stored.status, 202);
    const { request_id } = await stored.json();
    await delivering.promise; // the notice's delivery is under way, and will never be answered
    let upload!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => upload = c });
    const push = (chunk: string) => upload.enqueue(new TextEncoder().encode(chunk));
    const slow = post(app, "/api/v1/intake", body);
    push('{"email":');
    await new Promise((r) => setTimeout(r, 200));

    const signalled = performance.now();
    service.child.kill("SIGINT");
    const cut = await slow;
    assert.equal(cut.status, 503);
    assert.ok(cut.headers.get("retry-after"));
    upload.close(); // this client reads an answer only once its upload is over
    assert.match((await cut.json()).message, /shutting down/);
    const { code } = await service.child.status;
    const took = performance.now() - signalled;
    // Exit code 0: the drain finished by itself, before its 4 s limit (which exits 1). The
    // time is a bound that tells working from broken only (the drain used to take 10 s).
    assert.equal(code, 0);
    assert.ok(took < 8_000, `exited ${Math.round(took)} ms after SIGINT`);

    // The submission answered 202 is kept, its notice still waiting to be sent.
    await using kv = await Deno.openKv(service.kvPath);
    const record = await kv.get<{ notified_at: string | null }>(submissionKey(request_id));
    assert.ok(record.value, "the accepted submission is in the store");
    assert.equal(record.value.notified_at, null);
  } finally {
    await hook.shutdown();
  }
});

Deno.test(`started as Deno Deploy starts it, on ${Deno.env.get("DEPLOY_DENO") ? "the oldest supported Deno" : "this Deno"} compressing answers by itself, no answer that carries a secret or a form token is compressed`, async () => {
  // Deno 2.5.0 compresses by default; a later Deno only with this variable (ignored by 2.5.0).
  const code = enrolCode();
  await using service = await startServiceOnTempKv(
    { STAFF_ENROL_CODE: code, DENO_SERVE_AUTOMATIC_COMPRESSION: "1" },
    { asDeploy: { deno } },
  );
  await assertNoLengthOracle(service, code);
});
