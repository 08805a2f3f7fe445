// @ts-check
/// <reference lib="dom" />
// The console's passkey ceremonies: sign-in and enrolment, with the platform's WebAuthn API
// (PublicKeyCredential.parse…OptionsFromJSON and credential.toJSON(); no library). The page's
// form names its two endpoints: data-options (the challenge) and data-answer (the passkey's
// answer, which sets the session cookie). An invite link's token is read from the fragment
// (#invite=…), which the browser never sends to the server in a URL.

const form = /** @type {HTMLFormElement | null} */ (
  document.querySelector("form[data-ceremony]")
);
const statusLine = document.getElementById("passkey-status");

/** @param {string} text */
function say(text) {
  if (statusLine) statusLine.textContent = text;
}

/**
 * POSTs JSON to the console; the answer's JSON, or an Error with the console's message.
 * @param {string} path
 * @param {unknown} body
 * @returns {Promise<Record<string, any>>}
 */
async function postJson(path, body) {
  const res = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(answer.message ?? `the console answered ${res.status}`);
  return answer;
}

/** The invite token of the link's fragment, if any. */
function inviteToken() {
  return new URLSearchParams(location.hash.slice(1)).get("invite") ?? "";
}

/**
 * Sign-in: a challenge, then the passkey the person picks.
 * @param {HTMLFormElement} f
 */
async function signIn(f) {
  const begin = await postJson(f.dataset.options ?? "", {});
  const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(begin.options);
  return await navigator.credentials.get({ publicKey });
}

/**
 * Enrolment: with the invite of the fragment, else the code and name typed; then a new passkey.
 * @param {HTMLFormElement} f
 */
async function enrol(f) {
  const fields = new FormData(f);
  const invite = String(fields.get("invite") ?? "");
  const body = invite
    ? { invite }
    : { code: String(fields.get("code") ?? ""), name: String(fields.get("name") ?? "") };
  const begin = await postJson(f.dataset.options ?? "", body);
  say(`Creating a passkey for ${begin.name}…`);
  const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(begin.options);
  return await navigator.credentials.create({ publicKey });
}

/** @param {unknown} err */
function explain(err) {
  if (err instanceof DOMException && err.name === "NotAllowedError") {
    return "The passkey request was cancelled or timed out. Try again.";
  }
  if (err instanceof DOMException && err.name === "InvalidStateError") {
    return "This device already holds a passkey for you here: sign in instead.";
  }
  return err instanceof Error ? err.message : String(err);
}

/** @param {HTMLFormElement} f */
function start(f) {
  const button = f.querySelector("button");
  if (typeof PublicKeyCredential?.parseRequestOptionsFromJSON !== "function") {
    say("This browser cannot use passkeys here: use a current Chrome, Edge, Firefox or Safari.");
    if (button) button.disabled = true;
    return;
  }
  const invite = inviteToken();
  const inviteField = /** @type {HTMLInputElement | null} */ (f.elements.namedItem("invite"));
  if (invite && inviteField) {
    inviteField.value = invite;
    for (const el of f.querySelectorAll(".by-code")) el.remove();
    for (const el of f.querySelectorAll(".by-invite")) el.removeAttribute("hidden");
  }
  f.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (button) button.disabled = true;
    say("Waiting for your passkey…");
    try {
      const credential = f.dataset.ceremony === "enrol" ? await enrol(f) : await signIn(f);
      if (!(credential instanceof PublicKeyCredential)) throw new Error("No passkey was given.");
      const done = await postJson(f.dataset.answer ?? "", credential.toJSON());
      say("Signed in.");
      location.assign(done.location);
    } catch (err) {
      say(explain(err));
      if (button) button.disabled = false;
    }
  });
}

if (form) start(form);
