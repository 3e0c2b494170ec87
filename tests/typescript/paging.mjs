// The TypeScript client of the `pagination` feature fixture against a server written here as
// real APIs page (node's http module, not the generated server): a cursor in the body or a
// header, the Link header, offset/limit with has-more, page numbers with a page count or a
// total, x-speakeasy-pagination, x-fern-pagination and an x-pagination mapping. Every request
// is recorded, so each check sees how many pages the client fetched. Prints what it checked.
import assert from "node:assert/strict";
import http from "node:http";

const setup = JSON.parse(process.env.SCENARIO);
const { Client, linkNext } = await import(setup.client);

const EVENTS = [0, 1, 2, 3, 4].map((n) => ({ id: `e${n}` }));
const LOGS = [0, 1, 2, 3, 4, 5, 6].map((n) => `line ${n}`);
const REPOS = [0, 1, 2, 3, 4].map((n) => ({ id: n, name: `repo${n}` }));
const CHARGES = [0, 1, 2, 3, 4].map((n) => ({ id: `ch${n}`, amount: n * 100 }));
const AUDITS = [0, 1, 2, 3, 4].map((n) => `audit ${n}`);

function chunk(items, start, size) {
  const end = start + size;
  return [items.slice(start, end), end < items.length ? end : null];
}

let seen = [];
const server = http.createServer((req, res) => {
  const url = new URL(req.url, `http://${req.headers.host}`);
  seen.push(`${url.pathname}?${url.search.slice(1)}`);
  const q = (name, fallback) => url.searchParams.get(name) ?? fallback;
  const headers = { "content-type": "application/json" };
  let body;
  if (url.pathname === "/events") {
    const [page, after] = chunk(EVENTS, Number(q("cursor", "0")), Number(q("limit", "2")));
    body = { data: page, next_cursor: after === null ? null : String(after) };
  } else if (url.pathname === "/logs") {
    const [page, after] = chunk(LOGS, Number(q("page_token", "0")), 3);
    if (after !== null) headers["X-Next-Page-Token"] = String(after);
    body = page;
  } else if (url.pathname === "/repos") {
    const page = Number(q("page", "1"));
    const perPage = Number(q("per_page", "2"));
    const [items, after] = chunk(REPOS, (page - 1) * perPage, perPage);
    const links = [`<http://${req.headers.host}/repos?page=1>; rel="first"`];
    if (after !== null) links.push(`</repos?page=${page + 1}&per_page=${perPage}>; rel="next"`);
    headers.Link = links.join(", ");
    body = items;
  } else if (url.pathname === "/charges") {
    const [page, after] = chunk(CHARGES, Number(q("offset", "0")), Number(q("limit", "2")));
    body = { items: page, has_more: after !== null };
  } else if (url.pathname === "/orders") {
    const perPage = Number(q("per_page", "2"));
    const [items] = chunk(CHARGES, (Number(q("page", "1")) - 1) * perPage, perPage);
    body = { results: items, meta: { total_pages: Math.ceil(CHARGES.length / perPage) } };
  } else if (url.pathname === "/invoices") {
    const perPage = Number(q("per_page", "2"));
    const [items] = chunk(CHARGES, (Number(q("page", "1")) - 1) * perPage, perPage);
    body = { invoices: items, meta: { total: CHARGES.length } };
  } else if (url.pathname === "/tickets") {
    const [page, next] = chunk(EVENTS, Number(q("after", "0")), Number(q("size", "2")));
    body = { tickets: page, archived: ["x"], paging: { next_after: next && String(next) } };
  } else if (url.pathname === "/users") {
    const [page, after] = chunk(REPOS, Number(q("skip", "0")), Number(q("take", "2")));
    body = { users: page, more: after !== null };
  } else if (url.pathname === "/audits") {
    const [page, after] = chunk(AUDITS, Number(q("at", "0")), 2);
    const next = after === null ? null : `http://${req.headers.host}/audits?at=${after}`;
    body = { entries: page, links: { next } };
  } else if (url.pathname === "/notes") {
    body = { data: ["a", "b"], next_cursor: "ignored" };
  } else {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, headers).end(JSON.stringify(body));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}`;
const client = new Client({ baseUrl });
const queries = () => seen.map((s) => s.split("?")[1]);
const checked = [];

try {
  // a cursor in the body, walked lazily: the first page is one request
  const pages = client.events.listEvents().pages();
  const first = (await pages.next()).value;
  assert.deepEqual(first.data.map((e) => e.id), ["e0", "e1"]);
  assert.deepEqual(seen, ["/events?"]);
  assert.equal(first.body.next_cursor, "2");
  assert.equal(first.response.status, 200);
  await pages.return(undefined);
  seen = [];
  const events = await client.events.listEvents().toArray();
  assert.deepEqual(events.map((e) => e.id), ["e0", "e1", "e2", "e3", "e4"]);
  assert.deepEqual(queries(), ["", "cursor=2", "cursor=4"]);
  seen = [];
  for await (const event of client.events.listEvents()) {
    assert.equal(event.id, "e0");
    break;
  }
  assert.equal(seen.length, 1, "stopping the loop fetches no further page");
  checked.push("cursor");

  // a cursor in an answer header; the answer is the list
  seen = [];
  const logPages = [];
  for await (const page of client.logs.listLogs().pages()) logPages.push(page.data);
  assert.deepEqual(logPages, [LOGS.slice(0, 3), LOGS.slice(3, 6), LOGS.slice(6)]);
  assert.deepEqual(queries(), ["", "page_token=3", "page_token=6"]);
  checked.push("cursor-header");

  // the Link header (a relative target)
  seen = [];
  const repos = await client.repos.listRepos({ perPage: 2 }).toArray();
  assert.deepEqual(repos, REPOS);
  assert.deepEqual(queries(), ["per_page=2", "page=2&per_page=2", "page=3&per_page=2"]);
  checked.push("link");

  // offset and limit with has_more
  seen = [];
  const charges = await client.charges.listCharges({ limit: 2 }).toArray();
  assert.deepEqual(charges.map((c) => c.amount), [0, 100, 200, 300, 400]);
  assert.deepEqual(queries().map((s) => s.split("&").sort()), [["limit=2"], ["limit=2", "offset=2"], ["limit=2", "offset=4"]]);
  checked.push("offset");

  // page numbers stopping at the page count, then at the total
  seen = [];
  assert.equal((await client.orders.listOrders({ perPage: 2 }).toArray()).length, 5);
  assert.equal(seen.length, 3, "no fourth request for an empty page");
  seen = [];
  const invoices = await client.invoices.listInvoices().toArray();
  assert.deepEqual(invoices.map((i) => i.id), CHARGES.map((c) => c.id));
  assert.deepEqual(queries(), ["", "page=2", "page=3"]);
  checked.push("page");

  // the vendor extensions and a declared mapping (a next URL in the body)
  seen = [];
  assert.deepEqual((await client.tickets.listTickets({ size: 2 }).toArray()).map((t) => t.id), EVENTS.map((e) => e.id));
  assert.deepEqual((await client.users.listUsers({ take: 2 }).toArray()).map((u) => u.id), REPOS.map((r) => r.id));
  assert.deepEqual(await client.audits.listAudits().toArray(), AUDITS);
  for (const path of ["/tickets", "/users", "/audits"]) {
    assert.equal(seen.filter((s) => s.startsWith(path)).length, 3, path);
  }
  checked.push("extensions");

  // a list declared unpaged is a plain answer
  seen = [];
  assert.deepEqual((await client.notes.listNotes()).data, ["a", "b"]);
  assert.equal(seen.length, 1);
  checked.push("unpaged");

  // a next link to another origin is refused, not followed with the client's credentials
  assert.equal(linkNext('<https://a.example/x?page=2>; rel="next", <https://a.example/x>; rel="first"'), "https://a.example/x?page=2");
  assert.equal(linkNext('<https://a.example/x>; rel="prev"'), undefined);
  for (const target of ["https://attacker.example/steal", `http://127.0.0.1:${server.address().port + 1}/repos?page=2`]) {
    const forged = async (input, init) => {
      const answer = await fetch(input, init);
      const headers = new Headers(answer.headers);
      headers.set("link", `<${target}>; rel="next"`);
      return new Response(await answer.text(), { status: answer.status, headers });
    };
    seen = [];
    const misled = new Client({ baseUrl, fetch: forged });
    await assert.rejects(misled.repos.listRepos({ perPage: 2 }).toArray(), /another origin/);
    assert.equal(seen.length, 1);
  }
  checked.push("other-origin");
} finally {
  server.close();
}
console.log(JSON.stringify({ checked }));
