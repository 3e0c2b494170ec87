// The TypeScript client of the `oauth` feature fixture fetching its own OAuth2 tokens from a
// token endpoint written here (node's http module): client credentials (HTTP Basic, scopes
// from the flow), cached, fetched again before expiry and once after a 401; a refresh token
// (rotated by the server); an OpenID Connect discovery document; credentials refused for a
// plain-HTTP token URL that is not loopback; a static token still sent as it is.
import assert from "node:assert/strict";
import http from "node:http";

const setup = JSON.parse(process.env.SCENARIO);
const { Client } = await import(setup.client);

const tokens = []; // every token request: { grant, basic, form }
const valid = new Set();
const api = []; // the Authorization header of every API request
let lifetime = 3600;
let refresh = "r1";
let refuseAll = false;

const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  let text = "";
  req.on("data", (part) => (text += part));
  req.on("end", () => {
    const json = (status, body) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (url.pathname === "/.well-known/openid-configuration") return json(200, { token_endpoint: "/oauth/token" });
    if (url.pathname === "/oauth/token") {
      const form = Object.fromEntries(new URLSearchParams(text));
      const basic = (req.headers.authorization ?? "").replace(/^Basic /, "");
      tokens.push({ grant: form.grant_type, basic: Buffer.from(basic, "base64").toString(), form });
      if (form.grant_type === "refresh_token" && form.refresh_token !== refresh) return json(400, { error: "invalid_grant" });
      const token = `t${tokens.length}`;
      valid.add(token);
      const answer = { access_token: token, token_type: "bearer", expires_in: lifetime };
      if (form.grant_type === "refresh_token") answer.refresh_token = refresh = `r${tokens.length + 1}`;
      return json(200, answer);
    }
    api.push(req.headers.authorization);
    const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    if (refuseAll || !valid.has(token)) return json(401, { detail: "not authenticated" });
    return json(200, url.pathname === "/things" ? [{ name: "a" }] : { name: url.pathname });
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}`;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const checked = [];

try {
  // client credentials: fetched once, cached, form-encoded in HTTP Basic, the flow's scopes
  const client = new Client({ baseUrl, partnerClientId: "id 1", partnerClientSecret: "s&cret" });
  assert.deepEqual(await client.things.listThings(), [{ name: "a" }]);
  assert.deepEqual(await client.things.listThings(), [{ name: "a" }]);
  assert.equal(tokens.length, 1);
  assert.deepEqual(tokens[0], { grant: "client_credentials", basic: "id+1:s%26cret", form: { grant_type: "client_credentials", scope: "read write" } });
  assert.deepEqual(api, ["Bearer t1", "Bearer t1"]);
  // calls waiting for a token at once share one token request
  const together = new Client({ baseUrl, partnerClientId: "id", partnerClientSecret: "s" });
  await Promise.all([together.things.listThings(), together.things.listThings(), together.things.listThings()]);
  assert.equal(tokens.length, 2);
  checked.push("client-credentials");

  // a 401: one fresh token, the call sent once more; refused again, the error is thrown
  valid.delete("t1");
  api.length = 0;
  assert.deepEqual(await client.things.listThings(), [{ name: "a" }]);
  assert.deepEqual(api, ["Bearer t1", "Bearer t3"]);
  refuseAll = true;
  await assert.rejects(client.things.listThings(), (error) => error.status === 401);
  assert.equal(tokens.length, 4, "one token fetched for the second 401, no loop");
  refuseAll = false;
  checked.push("401");

  // renewed before expiry (a tenth of a short lifetime early)
  lifetime = 0.2;
  const brief = new Client({ baseUrl, partnerClientId: "id", partnerClientSecret: "s" });
  await brief.things.listThings();
  await brief.things.listThings();
  const before = tokens.length;
  await pause(250);
  await brief.things.listThings();
  assert.equal(tokens.length, before + 1);
  lifetime = 3600;
  checked.push("expiry");

  // a refresh token of the authorization-code flow, rotated by the server
  const user = new Client({ baseUrl, userRefreshToken: "r1" });
  assert.deepEqual(await user.things.getMe(), { name: "/me" });
  assert.equal(tokens.at(-1).form.refresh_token, "r1");
  valid.clear();
  assert.deepEqual(await user.things.getMe(), { name: "/me" });
  assert.notEqual(tokens.at(-1).form.refresh_token, "r1", "the rotated refresh token is used");
  checked.push("refresh");

  // OpenID Connect: the token endpoint read from the discovery document
  const sso = new Client({ baseUrl, ssoClientId: "id", ssoClientSecret: "s" });
  assert.deepEqual(await sso.things.getSso(), { name: "/sso" });
  assert.equal(tokens.at(-1).grant, "client_credentials");
  checked.push("discovery");

  // credentials go to HTTPS or loopback only; a static token is sent as it is
  const sent = [];
  const recording = async (input, init) => {
    sent.push(String(input));
    return fetch(input, init);
  };
  const plain = new Client({ baseUrl: "http://api.example.test", partnerClientId: "id", partnerClientSecret: "s", fetch: recording });
  await assert.rejects(plain.things.listThings(), /refusing to send OAuth2 credentials to http:\/\/api\.example\.test\/oauth\/token/);
  assert.deepEqual(sent, []);
  const fixed = tokens.length;
  valid.add("static");
  api.length = 0;
  await new Client({ baseUrl, partnerToken: "static", partnerClientId: "id", partnerClientSecret: "s" }).things.listThings();
  assert.deepEqual(api, ["Bearer static"]);
  assert.equal(tokens.length, fixed);
  checked.push("https-only");
} finally {
  server.close();
}
console.log(JSON.stringify({ checked }));
