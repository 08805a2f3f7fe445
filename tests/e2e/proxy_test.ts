/**
 * The nginx configuration of docs/operations.md, run as printed (only its two ports
 * changed) in front of the real service: what Deno's server cannot bound, the proxy does.
 * Needs Debian's nginx; CI installs it and sets REQUIRE_NGINX=1, elsewhere a missing
 * nginx skips this file with a warning.
 */
import assert from "node:assert/strict";
import { documentedBlock } from "../_docs.ts";
import { awayFromMinuteEdge, freePort, startService } from "../_service.ts";

const NGINX = "/usr/sbin/nginx";
const encoder = new TextEncoder();
const hasNginx = await Deno.stat(NGINX).then(() => true, () => false);
if (!hasNginx) {
  if (Deno.env.get("REQUIRE_NGINX")) throw new Error(`${NGINX} is missing (REQUIRE_NGINX is set)`);
  console.warn(
    `warning: ${NGINX} not found; the proxy tests are skipped (apt-get install nginx-light)`,
  );
}

/** nginx with the documented server block on `listen`, proxying to `upstream`. */
async function startNginx(listen: number, upstream: number, extra = "") {
  const block = (await documentedBlock("docs/operations.md", "nginx"))
    .replace("listen 80;", `listen 127.0.0.1:${listen};`)
    .replace("server 127.0.0.1:8000;", `server 127.0.0.1:${upstream};`);
  assert.ok(block.includes(`listen 127.0.0.1:${listen};`), "the block listens on port 80");
  assert.ok(block.includes(`server 127.0.0.1:${upstream};`), "the block proxies to 8000");
  const dir = await Deno.makeTempDir({ prefix: "dcfs-nginx-" });
  await Deno.chmod(dir, 0o777); // nginx's workers run as an unprivileged user
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    .map((name) => `${name}_temp_path ${dir}/${name};`).join("\n  ");
  const conf = `${dir}/nginx.conf`;
  await Deno.writeTextFile(
    conf,
    `daemon off;\nworker_processes 1;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\n` +
      `events {}\nhttp {\n  access_log off;\n  ${temp}\n${block}\n${extra}\n}\n`,
  );
  const check = await new Deno.Command(NGINX, { args: ["-t", "-p", dir, "-c", conf] }).output();
  assert.equal(check.code, 0, new TextDecoder().decode(check.stderr));
  const child = new Deno.Command(NGINX, {
    args: ["-p", dir, "-c", conf],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const base = `http://127.0.0.1:${listen}`;
  for (let i = 0; i < 100; i++) {
    try {
      const res = await fetch(`${base}/healthz`);
      await res.body?.cancel();
      if (res.status === 200) break;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    base,
    async [Symbol.asyncDispose]() {
      child.kill("SIGQUIT");
      await child.status;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Resolves with how long the server took to close the connection, or null if it did not. */
async function closedWithin(conn: Deno.Conn, ms: number): Promise<number | null> {
  const started = Date.now();
  const buf = new Uint8Array(4096);
  const deadline = new Promise<"open">((r) => setTimeout(() => r("open"), ms));
  while (true) {
    const read = conn.read(buf).catch(() => null);
    const got = await Promise.race([read, deadline]);
    if (got === "open") return null;
    if (got === null) return Date.now() - started; // EOF or reset
  }
}

Deno.test({
  name:
    "behind the documented nginx: slow and idle connections are closed and capped per address, forged addresses gain nothing, oversize bodies stop at the proxy",
  ignore: !hasNginx,
  fn: async (t) => {
    const proxyPort = freePort();
    await using service = await startService({
      TRUST_PROXY: "true",
      BASE_URL: `http://127.0.0.1:${proxyPort}`,
      RATE_LIMIT_REGISTER: "2",
    });
    await using proxy = await startNginx(proxyPort, Number(new URL(service.baseUrl).port));

    await t.step("nginx's request id reaches the service and its log", async () => {
      const res = await fetch(`${proxy.base}/healthz`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
      const id = res.headers.get("x-request-id") ?? "";
      assert.match(id, /^[0-9a-f]{32}$/);
      await service.waitFor((r) => r.request_id === id);
    });

    await awayFromMinuteEdge();
    await t.step("a forged X-Forwarded-For gains no fresh budget", async () => {
      const register = async (forged: string) => {
        const res = await fetch(`${proxy.base}/agent/identity`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Forwarded-For": forged },
          body: '{"type":"anonymous"}',
        });
        await res.body?.cancel();
        return res.status;
      };
      const statuses = [];
      for (let i = 1; i <= 4; i++) statuses.push(await register(`198.51.100.${i}`));
      assert.deepEqual(statuses, [201, 201, 429, 429], "all counted as 127.0.0.1");
    });

    await t.step(
      "a body over 64 KiB is refused by nginx and never reaches the service",
      async () => {
        const before = service.logs.filter((r) => r.path === "/api/v1/intake").length;
        const res = await fetch(`${proxy.base}/api/v1/intake`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ email: "a@example.com", description: "x".repeat(100_000) }),
        });
        assert.equal(res.status, 413);
        await res.body?.cancel();
        const health = await fetch(`${proxy.base}/healthz`); // a request after, to sync the log
        await health.body?.cancel();
        await service.waitFor((r) => r.path === "/healthz" && r.status === 200);
        assert.equal(service.logs.filter((r) => r.path === "/api/v1/intake").length, before);
      },
    );

    await t.step("more than 32 requests at once from one address get 503 from nginx", async () => {
      // 40 submissions whose bodies never finish: nginx holds each while it waits, up to
      // its cap per address; past it, it answers 503 at once.
      const held: Deno.Conn[] = [];
      for (let i = 0; i < 40; i++) {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: proxyPort });
        await conn.write(encoder.encode(
          "POST /api/v1/intake HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
            'Content-Length: 1000\r\n\r\n{"email":',
        ));
        held.push(conn);
      }
      const firstLine = async (conn: Deno.Conn) => {
        const buf = new Uint8Array(256);
        const n = await Promise.race([
          conn.read(buf),
          new Promise<"silent">((r) => setTimeout(() => r("silent"), 2_000)),
        ]);
        return n === "silent"
          ? n
          : new TextDecoder().decode(buf.subarray(0, n ?? 0)).split("\r\n")[0];
      };
      const lines = await Promise.all(held.map(firstLine));
      const waiting = lines.filter((l) => l === "silent").length;
      const refused = lines.filter((l) => /^HTTP\/1\.1 503 /.test(l ?? "")).length;
      // Another connection of this address may still count (the 413's, being discarded).
      assert.ok(waiting <= 32 && waiting >= 30, `${waiting} held: ${JSON.stringify(lines)}`);
      assert.equal(refused, 40 - waiting, JSON.stringify(lines));
      for (const c of held) c.close();
      let after = 0;
      for (let i = 0; i < 100 && after !== 200; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const res = await fetch(`${proxy.base}/healthz`);
        await res.body?.cancel();
        after = res.status;
      }
      assert.equal(after, 200, "once they go, requests are served again");
    });

    await t.step("silent, half-sent and idle keep-alive connections are closed", async () => {
      const connect = () => Deno.connect({ hostname: "127.0.0.1", port: proxyPort });
      const silent = await connect();
      const halfSent = await connect();
      await halfSent.write(encoder.encode("GET /healthz HTTP/1.1\r\nHost: x\r\n"));
      const idle = await connect();
      await idle.write(encoder.encode("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
      // client_header_timeout is 10 s, keepalive_timeout 15 s; allow for a slow machine,
      // but never "open forever", which is what Deno alone does.
      const conns = [silent, halfSent, idle];
      const closed = await Promise.all(conns.map((c) => closedWithin(c, 40_000)));
      for (const c of conns) c.close();
      assert.notEqual(closed[0], null, "the silent connection is still open after 40 s");
      assert.notEqual(closed[1], null, "the half-sent connection is still open after 40 s");
      assert.notEqual(closed[2], null, "the idle keep-alive connection is still open after 40 s");
    });
  },
});

Deno.test({
  name: "the documented nginx counts connections per IPv4 address and per IPv6 /64",
  ignore: !hasNginx,
  fn: async (t) => {
    // A test-only server beside the documented one: it takes the client address from a
    // header (nginx's realip module) and answers the documented map's key for it.
    const probe = freePort();
    const extra = `server {\n  listen 127.0.0.1:${probe};\n  set_real_ip_from 127.0.0.1;\n` +
      `  real_ip_header X-Test-Address;\n  location / { return 200 "$dcfs_client"; }\n}`;
    await using nginx = await startNginx(freePort(), freePort(), extra);
    assert.ok(nginx.base);
    const key = async (address: string) => {
      const res = await fetch(`http://127.0.0.1:${probe}/`, {
        headers: { "X-Test-Address": address },
      });
      return await res.text();
    };
    const cases: [string, string][] = [
      ["2001:db8:1:2:a:b:c:d", "v6:2001:db8:1:2"],
      ["2001:db8:1:2::d", "v6:2001:db8:1:2"],
      ["2001:db8:1::d", "v6:2001:db8:1:0"],
      ["2001:db8:1:0:5:6:7:8", "v6:2001:db8:1:0"],
      ["2001:db8::1", "v6:2001:db8:0:0"],
      ["2001::1", "v6:2001:0:0:0"],
      ["::1", "v6:0:0:0:0"],
    ];
    for (const [address, expected] of cases) {
      await t.step(`${address} counts as ${expected}`, async () => {
        assert.equal(await key(address), expected);
      });
    }
    await t.step("IPv4 addresses count one by one", async () => {
      assert.notEqual(await key("192.0.2.1"), await key("192.0.2.2"));
      assert.doesNotMatch(await key("192.0.2.1"), /^v6:/);
    });
  },
});
