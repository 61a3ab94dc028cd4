// Prints the text of every verse of USFM files as usfm-js reads them, for
// the agreement test of build/render (usfmjs_test.go).
//
// Usage: node verses.js NODE_MODULES FILE...  (FILE may be gzipped)
//
// One JSON line per file: {"file": FILE, "chapters": {"1": {"front": …,
// "1": …, "2-3": …}}}. A verse's text is what usfm-js gives between its
// \v and the next, by USFM's own rules, independent of the Go renderer:
// the text of paragraphs, poetry and character styles; not notes (\f, \x,
// …), alternate numbers (\va, \vp, \ca), or the text of headings and
// titles (from such a marker to the next paragraph marker or verse). "front" is the
// text usfm-js keeps before a chapter's first verse, by the same rules.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const usfm = require(path.resolve(process.argv[2], 'usfm-js'));

const notes = new Set(['f', 'fe', 'ef', 'x', 'ex']);
const numbers = new Set(['va', 'vp', 'ca', 'cp', 'cat', 'fig']);
// Paragraph markers whose text is verse text.
const paragraph = /^(p|m|po|pr|cls|pmo|pm|pmc|pmr|pi\d*|mi\d*|nb|pc|ph\d*|b|q\d*|qr|qc|qm\d*|qd|li\d*|lim\d*|lh|lf)$/;
// Paragraph markers whose text is no verse text: headings, titles,
// labels, introductions.
const heading = /^(s|ms|mr|r|sr|sp|sd|d|qa|cl|cd|lit|mt|mte|imt|imte|is|ip|ipi|im|imi|ipq|imq|ipr|ipc|iq|ib|ili|iot|io|iex|ie|ilit|h|toc|toca|rem|sts)\d*$/;

// text appends the verse text of usfm-js's verse objects to out, reading
// them as usfm-js's own jsonToUsfm writes them back: a marker object is
// \tag, its text or content, its children, its end marker (endTag), then
// nextChar; an object whose tag ends in "*" is an end marker usfm-js kept
// apart (after a nested \+w), and the text after it is its endMarkerChar
// (the space after the marker) and content. st.heading
// says whether the paragraph in progress is a heading.
function text(objs, st, out) {
  for (const o of objs || []) {
    const tag = o.tag || '';
    const name = tag.replace(/^\+/, '').replace(/\*$/, '');
    if (tag.endsWith('*')) {
      if (!st.heading) {
        out.push(o.endMarkerChar || '', o.content || '');
      }
      continue;
    }
    if (paragraph.test(name) || heading.test(name)) {
      st.heading = heading.test(name);
      if (!st.heading) {
        out.push(' ', o.text || '', o.content || '');
      }
      continue;
    }
    if (st.heading) {
      continue;
    }
    if (!(o.type === 'footnote' || notes.has(name) || numbers.has(name))) {
      out.push(o.text || '');
      if (typeof o.content === 'string') {
        // \+w word|strong="G1"\+w*: usfm-js leaves the attribute list in
        // the content of a nested word.
        out.push(name === 'w' ? o.content.replace(/\|[^]*$/, '') : o.content);
      }
      text(o.children, st, out);
    }
    if (o.endTag && o.nextChar) {
      out.push(o.nextChar);
    }
  }
}

for (const file of process.argv.slice(3)) {
  let src = fs.readFileSync(file);
  if (file.endsWith('.gz')) {
    src = zlib.gunzipSync(src);
  }
  const book = usfm.toJSON(src.toString('utf8'));
  const chapters = {};
  for (const [c, verses] of Object.entries(book.chapters || {})) {
    const st = {heading: false};
    const out = {};
    // Verses in source order: numeric keys are listed first by JavaScript,
    // so "front" is taken first explicitly.
    const keys = Object.keys(verses).filter((k) => k !== 'front');
    keys.sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
    if (verses.front) {
      keys.unshift('front');
    }
    for (const v of keys) {
      // A verse marker occurs only in verse text: one that follows a
      // heading (the KJV 1611's \iex chapter summaries) ends it.
      if (v !== 'front') {
        st.heading = false;
      }
      const parts = [];
      text(verses[v].verseObjects, st, parts);
      out[v] = parts.join('');
    }
    chapters[c] = out;
  }
  process.stdout.write(JSON.stringify({file: path.basename(file), chapters}) + '\n');
}
