// The reader page: a small Bible reader that uses the public API exactly as
// any app would, with an App Key in X-SVC-App-Key. No framework, no build
// step. State lives in the URL fragment: #/<bible_id>/<BOOK>.<chapter>.
//
// The key comes from /reader/config.json, which the edge serves only when
// it was started with --reader-app-key (make run does); otherwise the page
// asks for one and keeps it in this browser's localStorage.

const $ = (id) => document.getElementById(id);
const keyStore = 'reader.appKey';
let key = '';
const state = { bibles: [], bible: null, info: null, index: null, flat: [], at: -1 };

// --- The API ---------------------------------------------------------------

class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// api GETs a path and returns its JSON, null for 204; an error answer is
// thrown as an APIError carrying the message the API gave, whichever of its
// error shapes it used ({message}, 422 {detail[]}, the 401 fault envelope,
// 429 text/plain).
async function api(path) {
  let res;
  try {
    res = await fetch(path, { headers: { 'X-SVC-App-Key': key } });
  } catch (err) {
    throw new APIError(0, `The API cannot be reached (${err.message}).`);
  }
  if (res.status === 204) return null;
  if (res.ok) return res.json();
  let msg = `${res.status} ${res.statusText}`.trim();
  try {
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('json')) {
      const b = await res.json();
      if (typeof b.message === 'string') msg = b.message;
      else if (Array.isArray(b.detail)) msg = b.detail.map((d) => `${(d.loc ?? []).join('.')}: ${d.msg}`).join('; ');
      else if (b.fault) msg = b.fault.faultstring;
    } else {
      const t = (await res.text()).trim();
      if (t && !t.startsWith('<')) msg = t;
    }
  } catch {
    // keep the status line
  }
  throw new APIError(res.status, msg);
}

function status(text, isError = false) {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('error', isError);
}

// --- The App Key -----------------------------------------------------------

async function loadKey() {
  try {
    const res = await fetch('/reader/config.json');
    if (res.ok) {
      const c = await res.json();
      if (c.app_key) return c.app_key;
    }
  } catch {
    // no config: ask
  }
  const saved = localStorage.getItem(keyStore);
  if (saved) return saved;
  const form = $('keyform');
  form.hidden = false;
  return new Promise((resolve) => {
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const k = $('key').value.trim();
      if (!k) return;
      localStorage.setItem(keyStore, k);
      form.hidden = true;
      resolve(k);
    });
  });
}

// --- Choosing --------------------------------------------------------------

function option(value, label) {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = label;
  return o;
}

async function loadBibles() {
  const list = [];
  let token = '';
  do {
    const q = new URLSearchParams({ 'language_ranges[]': '*', page_size: '99' });
    for (const f of ['id', 'abbreviation', 'localized_title']) q.append('fields[]', f);
    if (token) q.set('page_token', token);
    const page = await api(`/v1/bibles?${q}`);
    if (!page) break;
    list.push(...page.data);
    token = page.next_page_token ?? '';
  } while (token);
  state.bibles = list;
  const sel = $('bible');
  sel.replaceChildren(...list.map((b) => option(b.id, `${b.abbreviation} — ${b.localized_title}`)));
}

async function openBible(id) {
  if (state.bible === id) return;
  const [info, index] = await Promise.all([api(`/v1/bibles/${id}`), api(`/v1/bibles/${id}/index`)]);
  state.bible = id;
  state.info = info;
  state.index = index;
  state.flat = [];
  for (const b of index.books) {
    for (const c of b.chapters) state.flat.push({ book: b, chapter: c });
  }
  $('bible').value = String(id);
  $('book').replaceChildren(...index.books.map((b) => option(b.id, b.title)));
  $('copyright').textContent = info.copyright;
  const dir = index.text_direction === 'rtl' ? 'rtl' : 'ltr';
  for (const el of [$('passage'), $('reference'), $('notes')]) {
    el.dir = dir;
    el.lang = info.language_tag;
  }
}

function fillChapters(book) {
  const b = state.index.books.find((x) => x.id === book);
  $('book').value = book;
  $('chapter').replaceChildren(...(b ? b.chapters : []).map((c) => option(c.passage_id, c.title)));
}

// --- Reading ---------------------------------------------------------------

function markerFor(i) {
  let s = '';
  for (i += 1; i > 0; i = Math.floor((i - 1) / 26)) s = String.fromCharCode(97 + ((i - 1) % 26)) + s;
  return s;
}

// numberNotes turns each note into a lettered marker in the text (the
// stylesheet hides its text there) and lists the notes below the passage.
function numberNotes(article) {
  const items = [];
  article.querySelectorAll('.yv-n').forEach((n, i) => {
    const m = markerFor(i);
    n.dataset.marker = m;
    n.tabIndex = 0;
    n.id = `note-${m}`;
    n.setAttribute('role', 'note');
    const li = document.createElement('li');
    const mark = document.createElement('span');
    mark.className = 'marker';
    mark.textContent = m;
    const ref = n.querySelector('.fr, .xo')?.textContent ?? '';
    const body = [...n.children].filter((c) => !c.matches('.fr, .xo')).map((c) => c.textContent).join(' ');
    li.append(mark, `${ref}${body}`);
    n.setAttribute('aria-label', `note ${m}: ${body}`);
    items.push(li);
  });
  $('notes').replaceChildren(...items);
}

async function show(bibleID, passageID) {
  document.body.dataset.state = 'loading';
  status('Loading…');
  try {
    await openBible(bibleID);
    const [book] = passageID.split('.');
    fillChapters(book);
    $('chapter').value = passageID;
    const q = 'format=html&include_headings=true&include_notes=true';
    const p = await api(`/v1/bibles/${bibleID}/passages/${encodeURIComponent(passageID)}?${q}`);
    const article = $('passage');
    article.innerHTML = p.content;
    numberNotes(article);
    $('reference').textContent = p.reference;
    document.title = `${p.reference} (${state.info.abbreviation})`;
    state.at = state.flat.findIndex((x) => x.chapter.passage_id === passageID);
    $('prev').disabled = state.at <= 0;
    $('next').disabled = state.at < 0 || state.at >= state.flat.length - 1;
    status('');
    document.body.dataset.passage = `${bibleID}/${p.id}`;
    document.body.dataset.state = 'ready';
  } catch (err) {
    status(err.message, true);
    document.body.dataset.state = 'error';
  }
}

function go(bibleID, passageID) {
  location.hash = `#/${bibleID}/${passageID}`;
}

function route() {
  const m = /^#\/(\d+)\/([0-9A-Za-z]{3}\.[0-9A-Za-z_]+)$/.exec(location.hash);
  if (m) return show(Number(m[1]), m[2].toUpperCase());
  const first = state.bibles[0];
  if (!first) {
    status('The App Key is not licensed for any Bible.', true);
    return;
  }
  return api(`/v1/bibles/${first.id}/index`).then((idx) => go(first.id, idx.books[0].chapters[0].passage_id));
}

// --- Searching -------------------------------------------------------------

async function search(query) {
  const box = $('results');
  box.hidden = true;
  box.replaceChildren();
  status('Searching…');
  document.body.dataset.search = 'loading';
  try {
    const q = new URLSearchParams({ query, bible_id: String(state.bible) });
    const r = await api(`/v1/search-verses?${q}`);
    const verses = r?.verses ?? [];
    const head = document.createElement('p');
    head.textContent = verses.length ? `Verses for “${query}”:` : `No verse matches “${query}”.`;
    box.append(head);
    if (r?.did_you_mean?.length) {
      const dym = document.createElement('p');
      dym.textContent = `Did you mean: ${r.did_you_mean.join(', ')}?`;
      box.append(dym);
    }
    const ol = document.createElement('ol');
    const texts = await Promise.all(verses.slice(0, 20).map((v) =>
      api(`/v1/bibles/${state.bible}/passages/${v.reference}`).catch(() => null)));
    verses.slice(0, 20).forEach((v, i) => {
      const li = document.createElement('li');
      const a = document.createElement('a');
      const [b, c] = v.reference.split('.');
      a.href = `#/${state.bible}/${b}.${c}`;
      a.textContent = texts[i]?.reference ?? v.reference;
      li.append(a, ' ', texts[i]?.content ?? '');
      ol.append(li);
    });
    box.append(ol);
    box.hidden = false;
    status('');
    document.body.dataset.search = 'done';
  } catch (err) {
    status(`Search failed: ${err.message}`, true);
    document.body.dataset.search = 'error';
  }
}

// --- Wiring ----------------------------------------------------------------

async function main() {
  key = await loadKey();
  try {
    await loadBibles();
  } catch (err) {
    status(err.message, true);
    if (err.status === 401) localStorage.removeItem(keyStore);
    document.body.dataset.state = 'error';
    return;
  }
  $('bible').addEventListener('change', async (ev) => {
    const id = Number(ev.target.value);
    const idx = await api(`/v1/bibles/${id}/index`).catch((err) => status(err.message, true));
    if (idx) go(id, idx.books[0].chapters[0].passage_id);
  });
  $('book').addEventListener('change', (ev) => {
    const b = state.index.books.find((x) => x.id === ev.target.value);
    if (b) go(state.bible, b.chapters[0].passage_id);
  });
  $('chapter').addEventListener('change', (ev) => go(state.bible, ev.target.value));
  $('prev').addEventListener('click', () => state.at > 0 && go(state.bible, state.flat[state.at - 1].chapter.passage_id));
  $('next').addEventListener('click', () =>
    state.at < state.flat.length - 1 && go(state.bible, state.flat[state.at + 1].chapter.passage_id));
  $('choose').addEventListener('submit', (ev) => ev.preventDefault());
  $('search').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const q = $('query').value.trim();
    if (q) search(q);
  });
  window.addEventListener('hashchange', route);
  await route();
}

main();
