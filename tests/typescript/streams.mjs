// The TypeScript client of the `event_streams` feature fixture against a server written here
// (node's http module) that sends its streams in small chunks split mid-line, a CRLF split
// across chunks too: typed and untyped server-sent events, JSON Lines, NDJSON and a JSON text
// sequence read item by item, and a stream the caller stops early cancelled (the server sees
// its connection closed). Prints what it checked.
import assert from "node:assert/strict";
import http from "node:http";

const setup = JSON.parse(process.env.SCENARIO);
const { Client } = await import(setup.client);

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let closed = 0;

async function send(res, type, text, size = 5) {
  res.writeHead(200, { "content-type": type });
  for (let at = 0; at < text.length; at += size) {
    res.write(text.slice(at, at + size));
    await pause(2);
  }
  res.end();
}

const CHAT = [
  ": keep-alive\r\n\r\n",
  'event: delta\r\nid: 1\r\ndata: {"text": "Hel"}\r\n\r\n',
  'data: {"text": "lo",\r\ndata:  "finishReason": "stop"}\r\n\r\n',
  "retry: 300\ndata: [DONE]\n\n",
  'data: {"text": "after done"}\n\n',
].join("");
const ROWS = [{ id: 1, name: "ä one" }, { id: 2, name: "two\nlines" }, { id: 3 }];

const server = http.createServer(async (req, res) => {
  const path = new URL(req.url, "http://x").pathname;
  if (path.startsWith("/endless/")) {
    res.on("close", () => {
      closed += 1;
    });
    res.writeHead(200, { "content-type": "application/jsonl" });
    for (let n = 0; !res.destroyed && n < 500; n++) {
      res.write('{"id": ');
      await pause(5);
      res.write(`${n}}\n`);
      await pause(5);
    }
    res.end();
  } else if (path === "/chat") await send(res, "text/event-stream", CHAT, 7);
  else if (path === "/ticks") await send(res, "text/event-stream", "data: {\"seq\": 1}\n\ndata: {\"seq\": 2}\n\n");
  else if (path === "/log") await send(res, "text/event-stream", "\uFEFFdata: first\n\ndata: second\ndata: line\nid: 9\n\ndata: no id given\n\ndata: unfinished");
  else if (path === "/rows.jsonl") await send(res, "application/jsonl", ROWS.map((r) => JSON.stringify(r)).join("\r\n") + "\r\n\r\n", 4);
  else if (path === "/rows.ndjson") await send(res, "application/x-ndjson", ROWS.map((r) => JSON.stringify(r)).join("\n"), 3);
  else if (path === "/rows.seq") await send(res, "application/json-seq", "\x1e{\"n\": 1}\n\x1e{\n \"n\": 2\n}\n\x1e3\n", 4);
  else res.writeHead(404).end();
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}`;
const client = new Client({ baseUrl });
const all = async (iterable) => {
  const out = [];
  for await (const item of iterable) out.push(item);
  return out;
};
const checked = [];

try {
  // typed events: the data parsed, multi-line data joined, the last ID kept, [DONE] ends it
  const chat = await all(await client.streams.streamChat());
  assert.deepEqual(chat, [
    { event: "delta", id: "1", data: { text: "Hel" }, raw: '{"text": "Hel"}' },
    { event: "message", id: "1", data: { text: "lo", finishReason: "stop" }, raw: '{"text": "lo",\n "finishReason": "stop"}' },
  ]);
  assert.deepEqual((await all(await client.streams.streamTicks())).map((e) => e.data.seq), [1, 2]);
  // untyped events: the text, a leading BOM dropped, an unfinished event at the end dropped
  const log = await all(await client.streams.streamLog());
  assert.deepEqual(log.map((e) => [e.data, e.id]), [["first", undefined], ["second\nline", "9"], ["no id given", "9"]]);
  checked.push("events");

  assert.deepEqual(await all(await client.streams.exportJsonl()), ROWS);
  assert.deepEqual(await all(await client.streams.exportNdjson()), ROWS);
  assert.deepEqual(await all(await client.streams.exportSeq()), [{ n: 1 }, { n: 2 }, 3]);
  checked.push("json-lines");

  // a loop stopped early cancels the stream: the server sees the connection closed
  const endless = new Client({ baseUrl: `${baseUrl}/endless` });
  const got = [];
  for await (const row of await endless.streams.exportJsonl()) {
    got.push(row.id);
    if (got.length === 3) break;
  }
  assert.deepEqual(got, [0, 1, 2]);
  for (let waited = 0; closed === 0 && waited < 3000; waited += 20) await pause(20);
  assert.equal(closed, 1, "the server's connection was closed when the loop stopped");
  checked.push("cancelled");
} finally {
  server.close();
  server.closeAllConnections();
}
console.log(JSON.stringify({ checked }));
