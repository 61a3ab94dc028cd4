// The official JavaScript client, @youversion/platform-core, used against
// this platform's API. Run it against `make run`:
//
//   npm ci
//   BASE_URL=http://127.0.0.1:8080 APP_KEY=$(jq -r .app_key ../../.run/demo.json) node reader.mjs
//
// The client was written for another service whose API ours follows; two
// names differ, and the fetch wrapper below changes those two and nothing
// else:
//
//   the App Key header   X-YVP-App-Key        -> X-SVC-App-Key
//   a Bible field        youversion_deep_link <- platform_deep_link
//
// The client always speaks https to apiHost; against a local plain-HTTP
// edge the wrapper also sends the request over http. Against an edge
// behind HTTPS leave BASE_URL's scheme https and nothing else changes.
//
// The acceptance suite runs this file (acceptance/sdk_test.go), so it keeps
// working with every change to the API.
import { ApiClient, BibleClient, LanguagesClient } from '@youversion/platform-core';

const base = new URL(process.env.BASE_URL ?? 'http://127.0.0.1:8080');
const appKey = process.env.APP_KEY;
if (!appKey) {
  console.error('APP_KEY is not set (make run prints the demo App Key and writes it to .run/demo.json)');
  process.exit(2);
}

// --- The two renamed names. ---
function renameDeepLink(v) {
  if (Array.isArray(v)) return v.map(renameDeepLink);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k === 'platform_deep_link' ? 'youversion_deep_link' : k, renameDeepLink(x)]),
    );
  }
  return v;
}
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init = {}) => {
  const url = new URL(typeof input === 'string' ? input : input.url);
  url.protocol = base.protocol; // the client always says https
  const fields = url.searchParams.getAll('fields[]');
  if (fields.includes('youversion_deep_link')) {
    url.searchParams.delete('fields[]');
    for (const f of fields) url.searchParams.append('fields[]', f === 'youversion_deep_link' ? 'platform_deep_link' : f);
  }
  const headers = new Headers(init.headers);
  if (headers.has('X-YVP-App-Key')) {
    headers.set('X-SVC-App-Key', headers.get('X-YVP-App-Key'));
    headers.delete('X-YVP-App-Key');
  }
  const res = await realFetch(url, { ...init, headers });
  if (!(res.headers.get('content-type') ?? '').includes('application/json')) return res;
  return new Response(JSON.stringify(renameDeepLink(await res.json())), {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
};

// --- Using the client as its documentation shows. ---
const api = new ApiClient({ apiHost: base.host, appKey });
const bibles = new BibleClient(api);
const languages = new LanguagesClient(api);

const list = await bibles.getVersions('en');
console.log(`Bibles in English: ${list.data.map((b) => `${b.id} ${b.abbreviation}`).join(', ')}`);

const web = await bibles.getVersion(list.data[0].id);
console.log(`${web.title}: ${web.books.length} books, ${web.youversion_deep_link}`);

const index = await bibles.getIndex(web.id);
const john = index.books.find((b) => b.id === 'JHN') ?? index.books[0];
console.log(`${john.title}: ${john.chapters.length} chapters`);

const verse = await bibles.getPassage(web.id, `${john.id}.3.16`);
console.log(`${verse.reference}: ${verse.content.trim()}`);

const chapter = await bibles.getPassage(web.id, `${john.id}.3`, 'html', true, true);
console.log(`${chapter.reference} as HTML: ${chapter.content.length} characters (style it with /assets/passage.css)`);

const votd = await bibles.getVOTD(2);
console.log(`Verse of the day 2: ${votd.passage_id}`);

const he = await languages.getLanguage('he');
console.log(`Language he: ${he.text_direction}`);

// Errors come back as exceptions carrying the HTTP status.
try {
  await bibles.getPassage(web.id, 'JHN.99');
} catch (err) {
  console.log(`JHN.99: ${err.status ?? ''} ${err.message}`.trim());
}
console.log('ok');
