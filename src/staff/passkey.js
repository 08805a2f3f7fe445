// @ts-check
/// <reference lib="dom" />
// The console's passkey ceremonies: sign-in and enrolment, with the platform's WebAuthn API.
