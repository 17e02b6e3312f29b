#!/usr/bin/env node
'use strict';
// Build the intermediate files for fortunes.mat: topic classification of
// fortune cookies by the Debian `fortunes` file they come from.
//
//   node datasets/make_fortunes.js [--out build/fortunes] [--T 64]
//        [--min_count 2] [--vocab_cap 20000] [--seed 20240601]
//        [--split 0.7,0.1,0.2] [--dir /usr/share/games/fortunes]
//        [--categories computers,politics,law,food,sports,startrek] [--max_per_class 300]
//        [--min_words 3] [--unlabelled_exclude ascii-art,translate-me]
//
// Writes <out>.json, <out>.tokens.i32 (and <out>.texts.json, the raw texts
// for the tokenizer test); datasets/write_mat.m turns them
// into the .mat file. See datasets/README.md.

const fs = require('fs');
const path = require('path');
const common = require('./lib/common.js');

const DEFAULT_CATEGORIES = ['computers', 'politics', 'law', 'food', 'sports', 'startrek'];

const opts = common.parseArgs(process.argv.slice(2), {
  out: path.join(__dirname, 'build', 'fortunes'),
  T: 64,
  min_count: 2,
  vocab_cap: 20000,
  seed: 20240601,
  split: [0.7, 0.1, 0.2],
  dir: '/usr/share/games/fortunes',
  categories: DEFAULT_CATEGORIES,
  max_per_class: 300,
  min_words: 3,
  unlabelled_exclude: ['ascii-art', 'translate-me'],
});
common.checkCommonOpts(opts);
if (opts.categories.length < 2) throw new Error('need at least two categories');
if (!Number.isInteger(opts.max_per_class) || opts.max_per_class < 1) throw new Error('bad max_per_class');

// A fortune file: entries separated by lines consisting of a single "%".
// Overstrike sequences (x BACKSPACE y, used for underlining) are resolved
// to the overstriking character; bytes are decoded as UTF-8 if valid else
// Windows-1252.
function readFortunes(file) {
  const buf = fs.readFileSync(file);
  let s;
  try { s = new TextDecoder('utf-8', { fatal: true }).decode(buf); } catch (e) { s = new TextDecoder('windows-1252').decode(buf); }
  s = s.replace(/\r\n?/g, '\n').replace(/[^\n]\x08/g, '');
  const entries = [];
  let cur = [];
  for (const line of s.split('\n')) {
    if (line === '%') { entries.push(cur.join('\n')); cur = []; } else cur.push(line);
  }
  if (cur.join('').trim() !== '') entries.push(cur.join('\n'));
  return entries;
}

const t0 = Date.now();
const classes = opts.categories;
const cand = [];
const nRaw = [], nShort = [];
for (let c = 0; c < classes.length; c++) {
  const file = path.join(opts.dir, classes[c]);
  if (!fs.existsSync(file)) {
    throw new Error(`missing ${file}: install the Debian package "fortunes" (apt-get install fortunes)`);
  }
  const entries = readFortunes(file);
  nRaw.push(entries.length);
  let short = 0;
  const toks = common.tokenizeAll(entries);
  entries.forEach((e, i) => {
    if (toks[i].length < opts.min_words) { short++; return; }
    cand.push({ id: `${classes[c]}:${i + 1}`, label: c, toks: toks[i], text: e });
  });
  nShort.push(short);
}

// Duplicates (same token sequence): keep the first; drop all copies when
// they come from different files.
const { perClass, nDup, nConflict } = common.dedupeByClass(cand, classes.length);

// Balance: at most max_per_class entries per class, chosen by a seeded
// shuffle (stream mulberry32(seed ^ 0x9E3779B9)), kept in file order.
const nAvail = perClass.map(a => a.length);
const kept = common.balancePerClass(perClass, opts.max_per_class, opts.seed);

// Unlabelled rows: every other entry of the package's fortune files (the
// files outside the categories, and the entries of the categories that the
// balance left out), for explainer training; duplicates of labelled rows
// are dropped in common.finish.
const rest = [];
const otherFiles = fs.readdirSync(opts.dir).filter(f => !f.includes('.') &&
  !opts.unlabelled_exclude.includes(f) && fs.statSync(path.join(opts.dir, f)).isFile())
  .sort(common.cmpStr);
for (const f of otherFiles) {
  const entries = readFortunes(path.join(opts.dir, f));
  const toks = common.tokenizeAll(entries);
  entries.forEach((text, i) => rest.push({ id: `${f}:${i + 1}`, toks: toks[i], text }));
}

const version = common.debianVersion('fortunes');
common.finish({
  name: 'fortunes',
  outBase: opts.out,
  rows: kept,
  classes,
  opts,
  unlabelled: () => common.notKept(rest, kept, opts.min_words),
  info: {
    unlabelled_rule: 'every entry (>= min_words tokens) of the plain fortune files in the directory except unlabelled_exclude, that is not a labelled row (files outside the categories, and entries of the categories left out by the balance); files in code-point order, entries in file order; truncated to T-2 words; duplicates of labelled rows and of earlier unlabelled rows dropped',
    unlabelled_exclude: opts.unlabelled_exclude,
    source: `Debian package fortunes ${version} (${opts.dir})`,
    source_package: 'fortunes',
    source_version: version,
    source_dir: opts.dir,
    builder: 'datasets/make_fortunes.js',
    categories: classes,
    category_rule: 'class = fortune file the entry comes from; entries separated by lines "%"; overstrike (x BACKSPACE y) resolved; attribution lines kept',
    n_raw_per_class: nRaw,
    min_words: opts.min_words,
    n_short_removed_per_class: nShort,
    n_duplicates_removed: nDup,
    n_conflicting_duplicates_removed: nConflict,
    n_available_per_class: nAvail,
    max_per_class: opts.max_per_class,
    balance_rule: 'after dropping short entries (< min_words tokens) and duplicates, at most max_per_class entries per class are kept, chosen by a Fisher-Yates shuffle with mulberry32(seed XOR 0x9E3779B9), kept in file order',
    dedup_rule: 'duplicates = identical token sequence; first kept; all copies dropped when they come from different files',
  },
});
process.stderr.write(`fortunes: raw ${nRaw.join('/')}, short ${nShort.join('/')}, ` +
  `available ${nAvail.join('/')}, dups ${nDup}, conflicting ${nConflict} (${Date.now() - t0} ms)\n`);
