/**
 * Crashes (issue 5, section 3): under concurrent submission and token load the real
 * service is SIGKILLed at random moments, again and again, and restarted on the same
 * KV file each time. Nothing that was acknowledged may be lost: every submission
 * answered 2xx is in `deno task review list --json`, every token answered 200 and not
 * revoked still works, every revocation answered 200 holds, and no request ever gets a
 * 5xx. Requests cut off by a kill (network errors) were never acknowledged, so what
 * became of them is not asserted. Also holds the single-burst crash test of issue 3.
 */

import assert from "node:assert/strict";
import { getOutboxEntry } from "../../src/store/outbox.ts";
import { getSubmission } from "../../src/store/submissions.ts";
import { mulberry32, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { reviewListJson, type Service, startService } from "../_service.ts";

/** Fixed, so a failure replays the same choices; `CRASH_LOOP_SEED=n` tries another. */
const SEED = Number(Deno.env.get("CRASH_LOOP_SEED") ?? 0x5eed_dcf5);
const KILLS = 12;
const WORKERS = 16;
/** Each kill comes this long after the load started, drawn uniformly. */
const KILL_AFTER_MS = [50, 1_200] as const;
/** Older tokens re-checked after each restart, beside all those of the last round. */
const TOKEN_SAMPLE = 100;

interface Client {
  client_id: string;
  client_secret: string;
}

interface Submission {
  path: string;
  body: unknown;
  idempotencyKey?: string;
}

const basic = (c: Client) => "Basic " + btoa(`${c.client_id}:${c.client_secret}`);
const form = { "Content-Type": "application/x-www-form-urlencoded" };
const jsonType = { "Content-Type": "application/json" };

function submission(n: number, idempotent: boolean): Submission {
  const sub: Submission = n % 3 === 0
    ? {
      path: "/api/v1/quotes",
      body: {
        company: `Crash Loop Ltd ${n}`,
        contact_name: "Kim Kill",
        email: `quote-${n}@example.org`,
        city: "Frankfurt",
        service_type: "remote-hands",
        description: `Quote request number ${n}`,
        engineer_count: 1 + (n % 4),
      },
    }
    : {
      path: "/api/v1/intake",
      body: { email: `lead-${n}@example.org`, description: `Lead number ${n}`, city: "Amsterdam" },
    };
  if (idempotent) sub.idempotencyKey = `crash-loop-${SEED}-${n}`;
  return sub;
}

/** What the load acknowledged, across every kill and restart. */
class Ledger {
  clients: Client[] = [];
  /** Tokens answered 200, neither revoked nor being revoked, with their client and round. */
  live = new Map<string, { client: Client; round: number }>();
  /** Tokens whose revocation was sent; a read racing with it may be refused. */
  revoking = new Set<string>();
  /** Tokens whose revocation was answered 200. */
  revoked = new Set<string>();
  /** Acknowledged submissions: request_id → what was sent. */
  accepted = new Map<string, Submission>();
  /** Idempotent submissions cut off by a kill, to be sent again after the restart. */
  cutOff: Submission[] = [];
  sent = 0;
  /** Requests cut off by a kill, per operation: never acknowledged. */
  cut = new Map<string, number>();
  /** Every 5xx, unexpected status, lost credential or connection error on a live service. */
  failures: string[] = [];
  statuses = new Map<string, number>();
}

/** One service lifetime: the load against it until it is killed. */
class Round {
  killed = false;
  readonly client = Deno.createHttpClient({});

  constructor(
    readonly n: number,
    readonly service: Service,
    readonly ledger: Ledger,
    readonly random: () => number,
  ) {}

  /** Sends one request; null when it was cut off by the kill (never acknowledged). */
  async call(
    op: string,
    path: string,
    init: RequestInit,
    expected: number[],
  ): Promise<{ status: number; text: string; headers: Headers } | null> {
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.service.baseUrl}${path}`, { ...init, client: this.client });
      text = await res.text();
    } catch (err) {
      if (!this.killed) this.ledger.failures.push(`round ${this.n} ${op}: ${err}`);
      this.ledger.cut.set(op, (this.ledger.cut.get(op) ?? 0) + 1);
      return null;
    }
    const key = `${op} ${res.status}`;
    this.ledger.statuses.set(key, (this.ledger.statuses.get(key) ?? 0) + 1);
    if (!expected.includes(res.status)) {
      this.ledger.failures.push(`round ${this.n} ${op}: ${res.status} ${text.slice(0, 200)}`);
    }
    return { status: res.status, text, headers: res.headers };
  }

  pick<T>(items: readonly T[]): T | undefined {
    return items[Math.floor(this.random() * items.length)];
  }

  async register(): Promise<void> {
    const res = await this.call("register", "/agent/identity", {
      method: "POST",
      headers: jsonType,
      body: '{"type":"anonymous"}',
    }, [201]);
    if (res?.status === 201) this.ledger.clients.push(JSON.parse(res.text));
  }

  async token(): Promise<void> {
    const client = this.pick(this.ledger.clients);
    if (!client) return this.register();
    // An acknowledged client that is refused here (401) was lost: not expected.
    const res = await this.call("token", "/oauth2/token", {
      method: "POST",
      headers: { ...form, Authorization: basic(client) },
      body: "grant_type=client_credentials",
    }, [200]);
    if (res?.status === 200) {
      this.ledger.live.set(JSON.parse(res.text).access_token, { client, round: this.n });
    }
  }

  async read(): Promise<void> {
    const token = this.pick([...this.ledger.live.keys()]);
    if (!token) return this.token();
    const res = await this.call("read", "/api/v1/agent/services", {
      headers: { Authorization: `Bearer ${token}` },
    }, [200, 401]);
    // Refused is right only when another worker revoked it meanwhile.
    if (res?.status === 401 && !this.ledger.revoking.has(token)) {
      this.ledger.failures.push(`round ${this.n} read: a live token was refused`);
    }
  }

  async revoke(): Promise<void> {
    const token = this.pick([...this.ledger.live.keys()]);
    if (!token) return this.token();
    const { client } = this.ledger.live.get(token)!;
    // From here on the token is neither live nor (until answered 200) revoked.
    this.ledger.live.delete(token);
    this.ledger.revoking.add(token);
    const res = await this.call("revoke", "/oauth2/revoke", {
      method: "POST",
      headers: { ...form, Authorization: basic(client) },
      body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
    }, [200]);
    if (res?.status === 200) this.ledger.revoked.add(token);
  }

  async submit(sub = submission(this.ledger.sent++, this.random() < 0.5)): Promise<void> {
    const headers: Record<string, string> = { ...jsonType };
    if (sub.idempotencyKey) headers["Idempotency-Key"] = sub.idempotencyKey;
    const res = await this.call("submit", sub.path, {
      method: "POST",
      headers,
      body: JSON.stringify(sub.body),
    }, [202]);
    if (!res && sub.idempotencyKey) this.ledger.cutOff.push(sub);
    if (res?.status === 202) this.ledger.accepted.set(JSON.parse(res.text).request_id, sub);
  }

  /** Sends an acknowledged idempotent submission again: the same request_id comes back. */
  async replay(): Promise<void> {
    const earlier = this.pick(
      [...this.ledger.accepted].filter(([, s]) => s.idempotencyKey),
    );
    if (!earlier) return this.submit();
    const [id, sub] = earlier;
    const res = await this.call("replay", sub.path, {
      method: "POST",
      headers: { ...jsonType, "Idempotency-Key": sub.idempotencyKey! },
      body: JSON.stringify(sub.body),
    }, [202]);
    if (res?.status === 202) {
      const replayed = JSON.parse(res.text).request_id;
      if (replayed !== id || res.headers.get("Idempotent-Replayed") !== "true") {
        this.ledger.failures.push(`round ${this.n} replay of ${id} answered ${replayed}`);
      }
    }
  }

  /** Mixed load until the kill. */
  async load(): Promise<void> {
    // Idempotent submissions cut off by the last kill are sent again first.
    const retry = this.ledger.cutOff.splice(0);
    const worker = async (w: number) => {
      for (let i = w; i < retry.length; i += WORKERS) {
        if (this.killed) this.ledger.cutOff.push(retry[i]!);
        else await this.submit(retry[i]!);
      }
      while (!this.killed) {
        const r = this.random();
        if (r < 0.08) await this.register();
        else if (r < 0.30) await this.token();
        else if (r < 0.50) await this.read();
        else if (r < 0.60) await this.revoke();
        else if (r < 0.65) await this.replay();
        else await this.submit();
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  }
}

async function readStatus(service: Service, token: string): Promise<number> {
  const res = await fetch(`${service.baseUrl}/api/v1/agent/services`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  await res.body?.cancel();
  return res.status;
}

/** Checks, on a freshly restarted service, that nothing acknowledged was lost. */
async function verify(
  service: Service,
  kvPath: string,
  ledger: Ledger,
  tokens: "all" | { since: number; sample: () => number },
): Promise<void> {
  const listed = (await reviewListJson(kvPath)).map((i) => i.request_id);
  assert.equal(new Set(listed).size, listed.length, "each submission is listed once");
  const listedSet = new Set(listed);
  const lost = [...ledger.accepted.keys()].filter((id) => !listedSet.has(id));
  assert.deepEqual(lost, [], `${lost.length} of ${ledger.accepted.size} 202'd submissions lost`);
  assert.ok(listed.length <= ledger.sent, "nothing is listed that was never sent");

  let live = [...ledger.live];
  if (tokens !== "all") {
    const older = live.filter(([, t]) => t.round < tokens.since);
    const sample = older.filter(() => tokens.sample() < TOKEN_SAMPLE / older.length);
    live = [...live.filter(([, t]) => t.round >= tokens.since), ...sample];
  }
  const revoked = tokens === "all"
    ? [...ledger.revoked]
    : [...ledger.revoked].filter(() => tokens.sample() < 0.5);
  const checks: [string, number][] = [
    ...live.map(([token]) => [token, 200] as [string, number]),
    ...revoked.map((token) => [token, 401] as [string, number]),
  ];
  const wrong: string[] = [];
  for (let i = 0; i < checks.length; i += 32) {
    await Promise.all(
      checks.slice(i, i + 32).map(async ([token, expected]) => {
        const status = await readStatus(service, token);
        if (status !== expected) {
          wrong.push(`${expected === 200 ? "live" : "revoked"} token answered ${status}`);
        }
      }),
    );
  }
  assert.deepEqual(wrong, [], `${wrong.length} of ${checks.length} tokens checked were wrong`);
}

Deno.test({
  name: `SIGKILLed ${KILLS} times under token and submission load, ` +
    "the service loses nothing it acknowledged and never answers 5xx",
  // Service.serverPid reads /proc.
  ignore: Deno.build.os !== "linux",
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "dcfs-crash-loop-" });
    const kvPath = `${dir}/kv.sqlite3`;
    const env = {
      KV_PATH: kvPath,
      // Each restart listens on a new port; the public origin (the token audience) stays.
      BASE_URL: "https://api.crash-loop.example",
      ...RATE_LIMITS_OFF,
    };
    const random = mulberry32(SEED);
    const ledger = new Ledger();
    try {
      for (let n = 1; n <= KILLS; n++) {
        await t.step(`kill ${n} of ${KILLS} (seed ${SEED})`, async () => {
          await using service = await startService(env);
          if (n > 1) {
            // Everything up to the last kill, before any new load.
            await verify(service, kvPath, ledger, { since: n - 1, sample: random });
          }
          const server = await service.serverPid();
          const round = new Round(n, service, ledger, random);
          const delay = KILL_AFTER_MS[0] + random() * (KILL_AFTER_MS[1] - KILL_AFTER_MS[0]);
          const killer = (async () => {
            await new Promise((r) => setTimeout(r, delay));
            round.killed = true;
            Deno.kill(server, "SIGKILL");
          })();
          await round.load();
          await killer;
          const status = await service.child.status;
          round.client.close();
          assert.equal(status.success, false, "deno task start ended with its killed server");
          assert.deepEqual(ledger.failures, [], "no 5xx, unexpected answer or lost credential");
        });
      }

      await t.step(
        "after the last restart: every 202'd submission is listed, every live token works, " +
          "every revoked token is refused, no notification was lost",
        async () => {
          {
            await using service = await startService(env);
            await verify(service, kvPath, ledger, "all");
            const health = await fetch(`${service.baseUrl}/healthz`);
            assert.equal(health.status, 200);
            await health.body?.cancel();
          }
          // With the service stopped: each notice was sent or still waits in the outbox.
          const kv = await Deno.openKv(kvPath);
          try {
            const dropped: string[] = [];
            for (const id of ledger.accepted.keys()) {
              const record = await getSubmission(kv, id);
              if (record.value?.notified_at) continue;
              if (!(await getOutboxEntry(kv, id)).value) dropped.push(id);
            }
            assert.deepEqual(dropped, [], "review notices neither sent nor in the outbox");
          } finally {
            kv.close();
          }
          assert.ok(ledger.accepted.size >= KILLS, `only ${ledger.accepted.size} accepted`);
          assert.ok(ledger.revoked.size > 0, "some revocations were acknowledged");
          assert.ok(ledger.live.size > 0, "some tokens stayed live");
          const cut = [...ledger.cut.values()].reduce((a, b) => a + b, 0);
          assert.ok(cut >= KILLS, `the kills cut off only ${cut} requests in flight`);
          console.log(
            `crash loop: ${ledger.sent} submissions sent, ${ledger.accepted.size} accepted, ` +
              `${ledger.clients.length} clients, ${ledger.live.size} live and ` +
              `${ledger.revoked.size} revoked tokens checked; answers:`,
            Object.fromEntries([...ledger.statuses].sort()),
            "cut off by a kill:",
            Object.fromEntries([...ledger.cut].sort()),
          );
        },
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

const BURST_TOTAL = 300;
const BURST_IN_FLIGHT = 32;
const BURST_KILL_AFTER = 100;

Deno.test({
  name: "a SIGKILL part-way through a burst of submissions loses no request that was answered 202",
  // Service.serverPid reads /proc.
  ignore: Deno.build.os !== "linux",
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "dcfs-crash-" });
    const kvPath = `${dir}/kv.sqlite3`;
    const env = { KV_PATH: kvPath, RATE_LIMIT_SUBMIT: "0" };
    const accepted: string[] = [];
    const statusesBeforeKill: number[] = [];
    let sent = 0;
    try {
      await t.step(
        `${BURST_TOTAL} submissions, ${BURST_IN_FLIGHT} in flight, ` +
          `SIGKILL after ${BURST_KILL_AFTER} answers`,
        async () => {
          await using service = await startService(env);
          const server = await service.serverPid();
          let killed = false;
          let answered = 0;
          const worker = async () => {
            while (!killed && sent < BURST_TOTAL) {
              const { path, body } = submission(sent++, false);
              try {
                const res = await fetch(`${service.baseUrl}${path}`, {
                  method: "POST",
                  headers: jsonType,
                  body: JSON.stringify(body),
                });
                const text = await res.text();
                if (!killed) statusesBeforeKill.push(res.status);
                if (res.status === 202) accepted.push(JSON.parse(text).request_id);
                if (++answered === BURST_KILL_AFTER) {
                  killed = true;
                  Deno.kill(server, "SIGKILL");
                }
              } catch {
                // A request cut off by the kill: it was never acknowledged, so it may be lost.
              }
            }
          };
          await Promise.all(Array.from({ length: BURST_IN_FLIGHT }, worker));

          assert.ok(killed, "the service was killed");
          const status = await service.child.status;
          assert.equal(status.success, false, "deno task start ended with its killed server");
          assert.equal(statusesBeforeKill.length, BURST_KILL_AFTER);
          assert.ok(statusesBeforeKill.every((s) => s === 202), `statuses: ${statusesBeforeKill}`);
          assert.ok(accepted.length >= BURST_KILL_AFTER, `only ${accepted.length} were accepted`);
          assert.ok(sent < BURST_TOTAL, "the kill came part-way through");
        },
      );

      await t.step(
        "after a restart every 202'd request_id is in deno task review list --json",
        async () => {
          await using service = await startService(env);
          const health = await fetch(`${service.baseUrl}/healthz`);
          assert.equal(health.status, 200);
          assert.deepEqual(await health.json(), { ok: true });

          const items = await reviewListJson(kvPath);
          const listed = new Set(items.map((i) => i.request_id));
          const lost = accepted.filter((id) => !listed.has(id));
          assert.deepEqual(
            lost,
            [],
            `${lost.length} of ${accepted.length} accepted submissions lost`,
          );
          assert.ok(items.length <= sent, "nothing was listed that was never sent");
          for (const item of items) {
            assert.equal(item.status, "pending");
            assert.match(item.request_id, /^(lead|quote)_/);
            assert.equal(item.kind, item.request_id.split("_")[0]);
          }
        },
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
