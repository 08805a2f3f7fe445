/**
 * @module
 * The test host's two origins: the host page (host.html and host.ts, bundled for the browser
 * with `deno bundle` when the test starts) at `http://localhost:PORT`, and the sandbox proxy
 * (sandbox.html, sandbox.js) at `http://127.0.0.1:OTHER_PORT`, as a web host serves its
 * sandbox from a domain of its own. Each server notes every path it is asked for.
 */

import assert from "node:assert/strict";

const HERE = new URL("./", import.meta.url);
const ROOT = new URL("../../../", import.meta.url);

/** One origin serving fixed files, and what was asked of it. */
export interface Origin extends AsyncDisposable {
  origin: string;
  /** Every path requested, in order. */
  hits: string[];
}

/** The host page's script, bundled for the browser from the locked npm packages. */
async function bundleHost(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-app-host-" });
  try {
    const out = `${dir}/host.js`;
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--platform=browser",
        "--lock=deno.dev.lock",
        "--frozen",
        "--output",
        out,
        new URL("host.ts", HERE).pathname,
      ],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
    }).output();
    assert.equal(code, 0, `deno bundle host.ts: ${new TextDecoder().decode(stderr)}`);
    return await Deno.readTextFile(out);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function _serve(host: string, files: Record<string, [string, string]>): Origin {
  const hits: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const { pathname } = new URL(req.url);
    hits.push(pathname);
    const file = files[pathname];
    if (!file || req.method !== "GET") return new Response("not here", { status: 404 });
    return new Response(file[1], {
      headers: { "content-type": file[0], "cache-control": "no-store" },
    });
  });
  return {
    origin: `http://${host}:${server.addr.port}`,
    hits,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

const HTML = "text/html; charset=utf-8";
const JS = "text/javascript; charset=utf-8";

/** The host page's origin, serving `/` and `/host.js`. */
export async function serveHost(): Promise<Origin> {
  const [page, script] = await Promise.all([
    Deno.readTextFile(new URL("host.html", HERE)),
    bundleHost(),
  ]);
  return _serve("localhost", { "/": [HTML, page], "/host.js": [JS, script] });
}

/** The sandbox proxy's origin, serving `/sandbox.html` and `/sandbox.js`. */
export async function serveSandbox(): Promise<Origin> {
  const [page, script] = await Promise.all([
    Deno.readTextFile(new URL("sandbox.html", HERE)),
    Deno.readTextFile(new URL("sandbox.js", HERE)),
  ]);
  return _serve("127.0.0.1", { "/sandbox.html": [HTML, page], "/sandbox.js": [JS, script] });
}
