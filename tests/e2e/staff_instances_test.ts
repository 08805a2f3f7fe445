/**
 * The staff console on two real service processes sharing one KV file (issue 28, point 2,
 * "Sessions"): a member removed on one instance has their open session refused by the other
 * on its very next request, with no cache to wait out; and nothing personal reaches either
 * process's log.
 */

import assert from "node:assert/strict";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { overHttp } from "../_helpers.ts";
import { reviewCli, type Service, startService } from "../_service.ts";
import { SoftAuthenticator } from "../staff/_authenticator.ts";
import { enrolWith, memberOf, signInWith, staffer } from "../staff/_ceremony.ts";
import type { StaffMember } from "../../src/store/staff.ts";

const BASE_URL = "https://api.staff-instances.example";
const CODE = "two-instances-enrol-code-0123456789";

/** What the ceremony fixtures need of a real process: requests over HTTP, the base URL. */
function requester(s: Service) {
  return { ...overHttp(s.baseUrl), config: { baseUrl: BASE_URL } };
}

/** The status of a staff page asked for with `cookie`, on `s`. */
async function members(s: Service, cookie: string): Promise<number> {
  const res = await fetch(`${s.baseUrl}${STAFF_PATHS.members}`, {
    headers: { Cookie: cookie },
    redirect: "manual",
  });
  await res.body?.cancel();
  return res.status;
}

Deno.test({
  name: "a member removed on one instance: their open session is refused by the other at once",
  // Several processes share one SQLite file; the locking is POSIX-specific.
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "dcfs-staff-instances-" });
    try {
      const env = {
        KV_PATH: `${dir}/kv.sqlite3`,
        BASE_URL,
        STAFF_ENROL_CODE: CODE,
        RATE_LIMIT_STAFF: "100",
      };
      await using a = await startService(env);
      await using b = await startService(env);

      // Ada enrols on A with the code; Kim on B, from an invite the real CLI printed.
      const ada = await enrolWith(requester(a), new SoftAuthenticator(BASE_URL), {
        code: CODE,
        name: "Ada Lindqvist",
      });
      assert.equal(ada.res.status, 200, await ada.res.clone().text());
      const cli = await reviewCli(env.KV_PATH, "invite", "--name", "Kim Oyelaran");
      assert.equal(cli.code, 0, cli.stderr);
      const token = cli.stdout.trim().split("#invite=")[1]!;
      const kimAuth = new SoftAuthenticator(BASE_URL);
      const kim = await enrolWith(requester(b), kimAuth, { invite: token });
      assert.equal(kim.res.status, 200, await kim.res.clone().text());
      const kimOnB = await signInWith(requester(b), kimAuth);
      assert.equal(kimOnB.res.status, 200);
      for (const s of [a, b]) {
        for (const c of [ada.cookie!, kim.cookie!, kimOnB.cookie!]) {
          assert.equal(await members(s, c), 200, "every session opens the console everywhere");
        }
      }

      // Ada removes Kim through A's staff page.
      const kimId = memberOf(kim.cookie!);
      const adaVisit = staffer({ member_id: memberOf(ada.cookie!) } as StaffMember, ada.cookie!);
      const removed = await fetch(
        `${a.baseUrl}${STAFF_PATHS.removeMember.replace(":member_id", kimId)}`,
        {
          method: "POST",
          headers: {
            Origin: BASE_URL,
            Cookie: ada.cookie!,
            "Content-Type": "application/x-www-form-urlencoded",
          },
          body: new URLSearchParams({ csrf: adaVisit.csrf }),
          redirect: "manual",
        },
      );
      assert.equal(removed.status, 303, await removed.clone().text());
      await removed.body?.cancel();

      // B refuses Kim's sessions on the very next request; A too; Ada's goes on.
      assert.equal(await members(b, kimOnB.cookie!), 303);
      assert.equal(await members(b, kim.cookie!), 303);
      assert.equal(await members(a, kim.cookie!), 303);
      assert.equal(await members(b, ada.cookie!), 200);
      const begin = await fetch(`${b.baseUrl}${STAFF_PATHS.signInOptions}`, {
        method: "POST",
        headers: { Origin: BASE_URL, "Content-Type": "application/json" },
        body: "{}",
      });
      const answer = await kimAuth.get((await begin.json()).options);
      const again = await fetch(`${b.baseUrl}${STAFF_PATHS.signIn}`, {
        method: "POST",
        headers: { Origin: BASE_URL, "Content-Type": "application/json" },
        body: JSON.stringify(answer),
      });
      assert.equal(again.status, 400, "Kim's passkey signs in no more");
      assert.equal((await again.json()).error, "unknown_passkey");

      // Nothing personal or secret in either process's log.
      const secrets = ["Ada", "Lindqvist", "Kim", "Oyelaran", CODE, token];
      for (const c of [ada.cookie!, kim.cookie!, kimOnB.cookie!]) secrets.push(c.split("=")[1]!);
      const lines = [...a.logs, ...b.logs].map((r) => JSON.stringify(r));
      assert.ok(lines.some((l) => l.includes('"staff ceremony refused"')), "the refusal is logged");
      for (const line of lines) {
        for (const secret of secrets) assert.ok(!line.includes(secret), `${secret} in ${line}`);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
