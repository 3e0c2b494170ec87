// The TypeScript client against the real outreach-server, with node: the Python client's
// end-to-end scenario (tests/client/test_client_http.py, test_client_webhooks.py,
// test_client_retries.py, tests/features/test_uploads.py). Run by test_typescript_e2e.py,
// which starts the servers and passes where they are in SCENARIO (JSON); prints one JSON
// line of what it checked, exits non-zero on the first failed check.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";

const setup = JSON.parse(process.env.SCENARIO);
const ts = await import(setup.client);
const uploads = await import(setup.uploadsClient);
const { Client, NotFoundError, RateLimitError, InternalServerError, APITimeoutError, events, webhooks } = ts;
const checked = [];

const client = new Client({ baseUrl: setup.baseUrl, apiKey: setup.apiKey });

// keys: a test key minted, listed, and used
const created = await client.apiKeys.create({ name: "ts-client", mode: "test" });
assert.match(created.api_key_token, /^outreach_test_/);
const keys = await client.apiKeys.list();
assert.ok(keys.keys.some((k) => k.api_key_id === created.api_key_id));
const testClient = new Client({ baseUrl: setup.baseUrl, apiKey: created.api_key_token });
assert.ok((await testClient.apiKeys.list()).keys.length >= 1);
checked.push("keys");

// contacts listed across pages of two
const contacts = [];
for await (const contact of client.contacts.list({ limit: 2 })) contacts.push(contact);
assert.ok(contacts.length >= 5, `walked ${contacts.length} contacts`);
let pages = 0;
for await (const page of client.contacts.list({ limit: 2 }).pages()) {
  assert.ok(page.data.length <= 2);
  pages += 1;
}
assert.ok(pages >= 3, `${pages} pages`);
assert.equal(new Set(contacts.map((c) => c.id)).size, contacts.length);
const [first, second] = [contacts[0].id, contacts[1].id];
const one = await client.contacts.get({ contactId: first });
assert.equal(one.id, first);
// the HTTP response beside the typed data (the Python client's with_raw_response)
const { data: same, response } = await client.contacts.get({ contactId: first }).withResponse();
assert.equal(same.id, first);
assert.equal(response.status, 200);
assert.match(response.headers.get("x-ratelimit-remaining"), /^\d+$/);
const unread = await client.contacts.get({ contactId: first }).asResponse();
assert.equal((await unread.json()).data.id, first);
const [page] = await client.contacts.list({ limit: 2 }).pages().next().then((r) => [r.value]);
assert.equal(page.response.status, 200);
checked.push("contacts");

// suppress and the ledger
assert.deepEqual((await client.suppressions.status({ contactId: first })).channels, []);
await client.suppressions.suppress({ contactId: first });
assert.notDeepEqual((await client.suppressions.status({ contactId: first })).channels, []);
await client.suppressions.bulkAdd({ contactIds: [second] });
const ledger = await client.suppressions.list({ limit: 1 }).toArray();
const suppressed = new Set(ledger.map((row) => row.contact_id));
assert.ok(suppressed.has(first) && suppressed.has(second), JSON.stringify(ledger));
await client.suppressions.unsuppress({ contactId: first });
await client.suppressions.reinstate({ contactIds: [second] });
assert.deepEqual((await client.suppressions.status({ contactId: second })).channels, []);
checked.push("suppressions");

// a webhook created and its delivery's signature verified (Web Crypto)
const received = [];
const receiver = createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    received.push({ headers: request.headers, body: new Uint8Array(Buffer.concat(chunks)) });
    response.writeHead(200).end("ok");
  });
});
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${receiver.address().port}/hooks`;
const hook = await client.webhooks.create({ url, events: ["campaign.created"] });
assert.ok(hook.secret);
execFileSync(setup.emit.argv[0], setup.emit.argv.slice(1), { env: setup.emit.env });
const deadline = Date.now() + 20_000;
while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
receiver.close();
assert.equal(received.length, 1, "one delivery");
const delivery = received[0];
const signature = delivery.headers[webhooks.SIGNATURE_HEADER.toLowerCase()];
assert.ok(await webhooks.verifySignature(delivery.body, signature, hook.secret));
const event = await webhooks.constructEvent(delivery.body, delivery.headers, hook.secret);
assert.equal(event.event ?? event.type ?? "campaign.created", "campaign.created");
const tampered = new Uint8Array([...delivery.body, 32]);
assert.equal(await webhooks.verifySignature(tampered, signature, hook.secret), false);
assert.equal(await webhooks.verifySignature(delivery.body, signature, "whsec_wrong"), false);
await assert.rejects(webhooks.constructEvent(delivery.body, signature, "whsec_wrong"), webhooks.WebhookSignatureError);
await assert.rejects(webhooks.constructEvent(delivery.body, {}, hook.secret), /missing/);
checked.push("webhook");

// a typed 404 with the declared error body
const missing = await client.contacts.get({ contactId: 987654321 }).catch((error) => error);
assert.ok(missing instanceof NotFoundError, String(missing));
assert.equal(missing.status, 404);
assert.equal(typeof missing.body.detail, "string");
checked.push("404");

// a 429 (the spec's real limits) and its retry after Retry-After
const timeline = [];
const recording = (input, init) => {
  timeline.push(["request", Date.now(), 0]);
  return fetch(input, init).then((response) => {
    timeline.push(["response", Date.now(), response.status, response.headers.get("retry-after")]);
    return response;
  });
};
const limited = new Client({ baseUrl: setup.limitedBaseUrl, apiKey: setup.limitedKey, maxRetries: 0 });
let refused;
for (let i = 0; i < 30 && refused === undefined; i++) {
  refused = await limited.contacts.get({ contactId: first }).then(() => undefined, (error) => error);
}
assert.ok(refused instanceof RateLimitError, String(refused));
assert.equal(refused.status, 429);
assert.ok(refused.headers.get("retry-after"));
const patient = new Client({ baseUrl: setup.limitedBaseUrl, apiKey: setup.limitedKey, maxRetries: 2, fetch: recording });
const again = await patient.contacts.get({ contactId: first });
assert.equal(again.id, first);
const statuses = timeline.filter((e) => e[0] === "response").map((e) => e[2]);
assert.equal(statuses[0], 429, JSON.stringify(timeline));
assert.equal(statuses.at(-1), 200);
const asked = Number(timeline.find((e) => e[0] === "response" && e[2] === 429)[3]);
const refusedAt = timeline.find((e) => e[0] === "response")[1];
const retriedAt = timeline.filter((e) => e[0] === "request")[1][1];
assert.ok(retriedAt - refusedAt >= asked * 1000 - 10, `waited ${retriedAt - refusedAt} ms of ${asked} s`);
checked.push("429");

// pacing: a fresh key on the rate-limited server (10 a second) sends 14 requests at once and
// none is refused (no retries allowed): the client spaces them out itself
const paced = new Client({ baseUrl: setup.limitedBaseUrl, apiKey: setup.pacedKey, maxRetries: 0, pacing: true });
const pacedStart = Date.now();
const pacedAnswers = await Promise.all(Array.from({ length: 14 }, () => paced.contacts.get({ contactId: first })));
assert.ok(pacedAnswers.every((c) => c.id === first));
assert.ok(Date.now() - pacedStart >= 900, `14 requests in ${Date.now() - pacedStart} ms`);
// an answer saying no request is left holds the next one for X-RateLimit-Reset seconds
const sentAt = [];
const exhausted = async () => {
  sentAt.push(Date.now());
  return new Response(JSON.stringify({ data: { keys: [], total: 0 } }), {
    headers: { "content-type": "application/json", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "0.3" },
  });
};
const held = new Client({ baseUrl: setup.baseUrl, apiKey: "held-key", fetch: exhausted, pacing: true });
await held.apiKeys.list();
await held.apiKeys.list();
assert.ok(sentAt[1] - sentAt[0] >= 290, `held ${sentAt[1] - sentAt[0]} ms`);
checked.push("pacing");

// an upload from the feature fixtures (tests/features/uploads): multipart, binary, text
const files = new uploads.Client({ baseUrl: setup.uploadsBaseUrl });
const payload = new Uint8Array(1024).map((_, i) => i % 256);
const stored = await files.files.uploadFile({
  body: {
    file: new Blob([payload]),
    title: "report",
    tags: ["a", "b"],
    attachments: [new Blob(["one"]), new Blob(["two"])],
  },
});
assert.deepEqual(stored, { name: "report", size: 1024, fields: { tags: "a,b" } });
const blob = await files.files.putBlob({ name: "raw", body: payload });
assert.equal(blob.size, 1024);
const note = await files.files.postNote({ body: "hello" });
assert.equal(note.name, "hello");
checked.push("upload");

// retries never repeat an unsafe operation unless asked; timeouts and AbortSignal; event
// streams (a fetch of the test's own: a 503 asking to retry at once, or no answer at all)
let calls = 0;
const unavailable = async () => {
  calls += 1;
  return new Response(JSON.stringify({ detail: "down" }), { status: 503, headers: { "retry-after": "0" } });
};
const down = new Client({ baseUrl: setup.baseUrl, apiKey: "k", fetch: unavailable, maxRetries: 2 });
await assert.rejects(down.contacts.get({ contactId: 1 }), InternalServerError);
assert.equal(calls, 3, "a safe operation: tried three times");
calls = 0;
await assert.rejects(down.suppressions.suppress({ contactId: 1 }), InternalServerError);
assert.equal(calls, 1, "POST: never repeated");
calls = 0;
await assert.rejects(down.suppressions.suppress({ contactId: 1 }, { retryUnsafe: true }), InternalServerError);
assert.equal(calls, 3, "POST with retryUnsafe");
const silent = (_, init) =>
  new Promise((_, reject) => init.signal.addEventListener("abort", () => reject(init.signal.reason)));
const hanging = new Client({ baseUrl: setup.baseUrl, apiKey: "k", fetch: silent, maxRetries: 0 });
await assert.rejects(hanging.contacts.get({ contactId: 1 }, { timeout: 50 }), APITimeoutError);
const controller = new AbortController();
const aborted = hanging.contacts.get({ contactId: 1 }, { signal: controller.signal });
controller.abort(new Error("stopped by the caller"));
await assert.rejects(aborted, /stopped by the caller/);
const stream = new Response("event: tick\ndata: 1\n\n: comment\ndata: a\ndata: b\nid: 7\n\n", {
  headers: { "content-type": "text/event-stream" },
});
const got = [];
for await (const event of events(stream)) got.push(event);
assert.deepEqual(got, [
  { event: "tick", data: "1", raw: "1" },
  { event: "message", data: "a\nb", raw: "a\nb", id: "7" },
]);
// an enum value the spec does not declare (yet) in an answer comes through as it is (the
// answer types are open: `"live" | "test" | (string & {})`)
const future = async () =>
  new Response(JSON.stringify({ data: { keys: [{ api_key_id: "k1", mode: "sandbox", tier: "enterprise" }], total: 1 } }), {
    headers: { "content-type": "application/json" },
  });
const newer = (await new Client({ baseUrl: setup.baseUrl, apiKey: "k", fetch: future }).apiKeys.list()).keys[0];
assert.deepEqual([newer.mode, newer.tier], ["sandbox", "enterprise"]);
checked.push("runtime");

console.log(JSON.stringify({ checked }));
