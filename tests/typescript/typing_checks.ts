// Compiled (never run) by test_typescript_compiles.py against this repository's client: the
// types a user writes against. A `@ts-expect-error` line that compiles fails the test.
import { Client } from "outreach-client";
import type { ApiKey, ApiKeyMode, ApiKeyModeInput, WebhookEventKind } from "outreach-client";

const client = new Client({ baseUrl: "http://127.0.0.1:8000/api/v1", apiKey: "k" });

// enums are open in answers: a value the API adds later still types, the known ones still name
export const later: ApiKeyMode = "sandbox";
export const known: ApiKeyMode = "live";
export const kind: WebhookEventKind = "campaign.archived";
export function mode(key: ApiKey): string {
  switch (key.mode) {
    case "live":
      return "live";
    default:
      return key.mode;
  }
}

// ... and closed in requests
export const closed: ApiKeyModeInput = "test";
// @ts-expect-error: not a mode the spec declares
export const refused: ApiKeyModeInput = "sandbox";

export async function calls(): Promise<void> {
  // a method takes one object: its parameters and the body's fields, camelCase
  await client.apiKeys.create({ name: "ci", mode: "test" });
  // @ts-expect-error: request enums are closed
  await client.apiKeys.create({ name: "ci", mode: "sandbox" });
  await client.suppressions.bulkAdd({ contactIds: [1, 2] });
  // @ts-expect-error: the wire name is not the method's key
  await client.suppressions.bulkAdd({ contact_ids: [1, 2] });
  // @ts-expect-error: a required body field is required
  await client.lists.create({ name: "x" });
  await client.lists.create({ name: "x", type: "contacts" });
  await client.contacts.get({ contactId: 1 });
  await client.webhooks.update({ webhookId: "wh_1", isActive: false });
}

export async function raw(): Promise<number> {
  // the HTTP response beside the typed data
  const { data, response } = await client.contacts.get({ contactId: 1 }).withResponse();
  const id: number = data.id;
  const paced = new Client({ apiKey: "k", pacing: true });
  await paced.apiKeys.list();
  return id + response.status;
}

// a paginated list's pages: typed items, the whole answer and the HTTP response
export async function pages(): Promise<number> {
  let statuses = 0;
  for await (const page of client.contacts.list({ limit: 2 }).pages()) {
    statuses += page.response.status;
    for (const contact of page.data) {
      // @ts-expect-error: the items are the spec's item schema, not text
      const text: string = contact;
      statuses += text.length;
    }
  }
  return statuses;
}
