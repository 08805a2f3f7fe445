/**
 * The review-notice consumer (issue 3, "The queue"): with no webhook it only marks
 * the record and logs the request id; with a webhook it POSTs a signed body without
 * the submitter's free text, lets KV retry failures, and never notifies twice.
 */

import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { loadConfig } from "../src/config.ts";
import { newRequestId } from "../src/ids.ts";
import { getSubmission, type ReviewNotice, type SubmissionRecord } from "../src/kv.ts";
import {
  deliverReviewNotice,
  type NotifierDeps,
  SIGNATURE_HEADER,
  startReviewNotifier,
} from "../src/review_queue.ts";
import { createApp, type TestApp } from "./_helpers.ts";

const SECRET = "0123456789abcdef";

const LEAD = {
  email: "ada.lovelace@example.org",
  description: "Cage 4B needs its cross-connects re-patched before Friday",
  company: "Analytical Engines GmbH",
  contact_name: "Ada Lovelace",
  city: "Frankfurt",
  service_type: "remote hands",
  agent_context_optional: { agent: "procurement-bot", conversation: "conv-7f3e91" },
};

const QUOTE = {
  company: "Difference Works Ltd",
  contact_name: "Charles Babbage",
  email: "charles.babbage@example.net",
  city: "Amsterdam",
  service_type: "smart-hands",
  description: "Swap four failed NVMe drives in rack 12, row C",
  phone: "+31 20 555 0199",
  site_address: "Science Park 610, 1098 XH Amsterdam",
  engineer_count: 2,
  estimated_hours: 3,
  agent_context_optional: { agent: "ops-assistant", ticket: "INC-778899" },
};

/** Every piece of free text a submitter typed; none of it may leave the store. */
const FREE_TEXT = [LEAD, QUOTE].flatMap((s) =>
  Object.entries(s)
    .filter(([k]) => k !== "service_type" && k !== "engineer_count" && k !== "estimated_hours")
    .flatMap(([, v]) => typeof v === "object" ? Object.values(v) : [v])
    .map(String)
);

function assertNoFreeText(text: string, where: string): void {
  for (const s of FREE_TEXT) {
    assert.ok(!text.toLowerCase().includes(s.toLowerCase()), `${where} contains "${s}"`);
  }
}

async function submit(app: TestApp, path: string, body: unknown): Promise<string> {
  const res = await app.request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 202, await res.clone().text());
  return (await res.json()).request_id;
}

function notice(id: string): ReviewNotice {
  return {
    type: "review_notice",
    request_id: id,
    kind: id.startsWith("quote_") ? "quote" : "lead",
  };
}

async function record(kv: Deno.Kv, id: string): Promise<SubmissionRecord> {
  const entry = await getSubmission(kv, id);
  assert.ok(entry.value, `no record for ${id}`);
  return entry.value;
}

/** Polls `probe` until it returns something truthy, failing after `timeoutMs`. */
async function until<T>(what: string, probe: () => Promise<T>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const value = await probe();
    if (value) return value;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Hit {
  method: string;
  headers: Headers;
  body: string;
}

interface Receiver extends AsyncDisposable {
  url: string;
  hits: Hit[];
  /** What the next request is answered with. */
  status: number;
}

/** A webhook on 127.0.0.1 that records every request and answers `status`. */
function startReceiver(): Receiver {
  const hits: Hit[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    hits.push({ method: req.method, headers: req.headers, body: await req.text() });
    return new Response(null, { status: receiver.status });
  });
  const receiver: Receiver = {
    url: `http://127.0.0.1:${server.addr.port}/hooks/review`,
    hits,
    status: 204,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
  return receiver;
}

function notifierDeps(app: TestApp, webhookUrl?: string): NotifierDeps {
  const env: Record<string, string> = { BASE_URL: "https://api.test" };
  if (webhookUrl) {
    Object.assign(env, { REVIEW_WEBHOOK_URL: webhookUrl, REVIEW_WEBHOOK_SECRET: SECRET });
  }
  return { kv: app.kv, config: loadConfig(env), now: app.clock.now, log: (r) => app.logs.push(r) };
}

Deno.test("review queue without a webhook marks the submission notified and logs only its id", async (t) => {
  const kv = await Deno.openKv(":memory:");
  await using app = await createApp({ kv });
  const notifier = startReviewNotifier(notifierDeps(app));
  try {
    const lead = await submit(app, "/api/v1/intake", LEAD);
    const quote = await submit(app, "/api/v1/quotes", QUOTE);

    await t.step("the consumer marks each record notified at the injected time", async () => {
      for (const id of [lead, quote]) {
        const r = await until(`${id} notified`, async () => (await record(kv, id)).notified_at);
        assert.equal(r, new Date(app.clock.now()).toISOString());
        const after = await record(kv, id);
        assert.equal(after.status, "pending", "notifying decides nothing");
        assert.equal(after.decision, null);
      }
    });

    await t.step("the log record names the submission id and nothing else", () => {
      const queued = app.logs.filter((r) => r.msg === "submission queued for review");
      assert.deepEqual(
        queued.map((r) => r.submission_id).sort(),
        [lead, quote].sort(),
      );
      for (const r of queued) {
        assert.deepEqual(Object.keys(r).sort(), ["level", "msg", "submission_id", "via"]);
        assert.equal(r.level, "info");
        assert.equal(r.via, "log");
      }
    });

    await t.step("no email, name, phone or description appears anywhere in the logs", () => {
      assert.ok(app.logs.length >= 4, "sanity: the access log and the queue both logged");
      assertNoFreeText(JSON.stringify(app.logs), "the logs");
    });
  } finally {
    kv.close();
    await notifier;
  }
});

Deno.test("review queue with a webhook POSTs a signed notice without the submitter's free text", async (t) => {
  await using receiver = startReceiver();
  const kv = await Deno.openKv(":memory:");
  await using app = await createApp({ kv });
  const notifier = startReviewNotifier(notifierDeps(app, receiver.url));
  try {
    const id = await submit(app, "/api/v1/quotes", QUOTE);
    await until("the webhook POST", () => Promise.resolve(receiver.hits.length > 0));
    const hit = receiver.hits[0]!;
    const stored = await record(kv, id);

    await t.step("a JSON POST naming the request, its kind and creation time", () => {
      assert.equal(hit.method, "POST");
      assert.equal(hit.headers.get("content-type"), "application/json");
      const body = JSON.parse(hit.body);
      assert.equal(body.request_id, id);
      assert.equal(body.kind, "quote");
      assert.equal(body.created_at, stored.created_at);
    });

    await t.step("none of the submitter's free text is in the body", () => {
      const body = JSON.parse(hit.body);
      for (
        const field of [
          "email",
          "contact_name",
          "company",
          "description",
          "city",
          "phone",
          "site_address",
          "agent_context_optional",
          "request",
        ]
      ) {
        assert.ok(!(field in body), `the body has ${field}`);
      }
      assertNoFreeText(hit.body, "the webhook body");
    });

    await t.step(`${SIGNATURE_HEADER} is sha256= and the hex HMAC-SHA256 of the raw body`, () => {
      const mac = createHmac("sha256", SECRET).update(hit.body).digest("hex");
      assert.equal(hit.headers.get(SIGNATURE_HEADER), `sha256=${mac}`);
    });

    await t.step("then the record is marked notified, once", async () => {
      const at = await until("notified_at", async () => (await record(kv, id)).notified_at);
      assert.equal(at, new Date(app.clock.now()).toISOString());
      assert.equal(receiver.hits.length, 1);
      assertNoFreeText(JSON.stringify(app.logs), "the logs");
    });
  } finally {
    kv.close();
    await notifier;
  }
});

Deno.test("review queue: a webhook answering 500 leaves the record un-notified for KV to retry", async (t) => {
  await using receiver = startReceiver();
  await using app = await createApp();
  const deps = notifierDeps(app, receiver.url);
  const id = await submit(app, "/api/v1/intake", LEAD);

  await t.step(
    "the delivery throws, so KV retries it, and the record stays un-notified",
    async () => {
      receiver.status = 500;
      await assert.rejects(deliverReviewNotice(deps, notice(id)), /webhook answered 500/);
      assert.equal(receiver.hits.length, 1);
      assert.equal((await record(app.kv, id)).notified_at, null);
      const warn = app.logs.find((r) => r.msg === "review webhook failed; KV will retry");
      assert.deepEqual(warn, {
        level: "warn",
        msg: "review webhook failed; KV will retry",
        submission_id: id,
        error: "webhook answered 500",
      });
    },
  );

  await t.step("a later successful delivery marks it", async () => {
    receiver.status = 200;
    app.clock.advance(5_000);
    await deliverReviewNotice(deps, notice(id));
    assert.equal(receiver.hits.length, 2);
    assert.equal((await record(app.kv, id)).notified_at, new Date(app.clock.now()).toISOString());
  });

  await t.step("delivering it again does not POST again", async () => {
    const before = await record(app.kv, id);
    app.clock.advance(60_000);
    await deliverReviewNotice(deps, notice(id));
    assert.equal(receiver.hits.length, 2);
    assert.deepEqual(await record(app.kv, id), before);
  });
});

Deno.test("review queue: KV itself redelivers a notice whose webhook failed", async () => {
  await using receiver = startReceiver();
  receiver.status = 503;
  const kv = await Deno.openKv(":memory:");
  await using app = await createApp({ kv });
  const deps = notifierDeps(app, receiver.url);
  // Fails the first attempt, then lets the retry (1 s backoff) through.
  const notifier = kv.listenQueue(async (msg) => {
    try {
      await deliverReviewNotice(deps, msg);
    } finally {
      receiver.status = 204;
    }
  });
  try {
    const id = await submit(app, "/api/v1/intake", LEAD);
    const at = await until("the retried delivery", async () => (await record(kv, id)).notified_at);
    assert.equal(at, new Date(app.clock.now()).toISOString());
    assert.deepEqual(receiver.hits.map(() => "POST"), ["POST", "POST"]);
    assert.equal(receiver.hits[0]!.body, receiver.hits[1]!.body);
  } finally {
    kv.close();
    await notifier;
  }
});

Deno.test("review queue ignores a notice for a missing submission and unknown messages", async (t) => {
  await using app = await createApp();
  let posts = 0;
  const deps: NotifierDeps = {
    ...notifierDeps(app, "http://127.0.0.1:9/never"),
    fetch: () => {
      posts++;
      return Promise.resolve(new Response(null, { status: 204 }));
    },
  };

  await t.step("a missing submission: warned by id, nothing posted or stored", async () => {
    const id = newRequestId("lead", app.clock.now());
    await deliverReviewNotice(deps, notice(id));
    assert.equal(posts, 0);
    assert.equal((await getSubmission(app.kv, id)).versionstamp, null);
    assert.deepEqual(app.logs.at(-1), {
      level: "warn",
      msg: "review notice for a missing submission",
      submission_id: id,
    });
  });

  for (
    const msg of [
      null,
      "review_notice",
      42,
      {},
      { type: "something_else", request_id: "lead_x" },
      { type: "review_notice" },
      { type: "review_notice", request_id: 7 },
    ]
  ) {
    await t.step(`unknown shape ${JSON.stringify(msg)}: ignored without throwing`, async () => {
      const logged = app.logs.length;
      await deliverReviewNotice(deps, msg);
      assert.equal(posts, 0);
      assert.deepEqual(app.logs.slice(logged), [
        { level: "warn", msg: "unknown queue message ignored" },
      ]);
    });
  }
  assert.equal((await Array.fromAsync(app.kv.list({ prefix: [] }))).length, 0);
});
