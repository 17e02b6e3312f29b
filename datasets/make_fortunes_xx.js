#!/usr/bin/env node
'use strict';
// Build the intermediate files for fortunes_de.mat / fortunes_es.mat: topic
// classification of German or Spanish fortune cookies by the fortune file
// they come from (Debian packages fortunes-de, fortunes-es). The same rules
// as make_fortunes.js (English), with per-language defaults.
//
//   node datasets/make_fortunes_xx.js --lang de|es [--out build/fortunes_<lang>]
//        [--T 64] [--min_count 2] [--vocab_cap 20000] [--seed 20240601]
//        [--split 0.7,0.1,0.2] [--dir /usr/share/games/fortunes/<lang>]
//        [--categories ...] [--max_per_class 300] [--min_words 3]
//        [--unlabelled_exclude ...]
//
// Writes <out>.json, <out>.tokens.i32, <out>.unlabelled.i32 (and
// <out>.texts.bin/.json, the raw texts for the tokenizer test);
// datasets/write_mat.m turns them into the .mat file. See datasets/README.md.

const fs = require('fs');
const path = require('path');
const common = require('./lib/common.js');

// Per language: Debian package, folder, how a fortune file is named
// (fortunes-de: plain names like the English package; fortunes-es:
// <topic>.fortunes, plus an "off" subfolder of offensive ones, never read),
// the default categories (chosen with the naive-Bayes check on the valid
// split, see datasets/README.md) and the files left out of the unlabelled
// rows (ASCII art, and the files that are not fortunes of the language).
const LANGS = {
  de: {
    pkg: 'fortunes-de',
    dir: '/usr/share/games/fortunes/de',
    suffix: '',
    categories: ['computer', 'fussball', 'mathematiker', 'regeln', 'sprichworte', 'woerterbuch'],
    unlabelled_exclude: ['asciiart', 'translations'],
  },
  es: {
    pkg: 'fortunes-es',
    dir: '/usr/share/games/fortunes/es',
    suffix: '.fortunes',
    categories: ['informatica', 'leydemurphy', 'familia', 'amistad', 'arte', 'libertad'],
    unlabelled_exclude: [],
  },
};

const argv = process.argv.slice(2);
let lang = 'de';
for (let i = 0; i < argv.length; i++) {
  const m = /^--lang(?:=(.*))?$/.exec(argv[i]);
  if (m) { lang = m[1] !== undefined ? m[1] : argv[i + 1]; argv.splice(i, m[1] !== undefined ? 1 : 2); break; }
}
if (!LANGS[lang]) throw new Error(`--lang must be one of ${Object.keys(LANGS).join(', ')}`);
const L = LANGS[lang];
const name = 'fortunes_' + lang;

const opts = common.parseArgs(argv, {
  out: path.join(__dirname, 'build', name),
  T: 64,
  min_count: 2,
  vocab_cap: 20000,
  seed: 20240601,
  split: [0.7, 0.1, 0.2],
  dir: L.dir,
  categories: L.categories,
  max_per_class: 300,
  min_words: 3,
  unlabelled_exclude: L.unlabelled_exclude,
});
common.checkCommonOpts(opts);
if (opts.categories.length < 2) throw new Error('need at least two categories');
if (!Number.isInteger(opts.max_per_class) || opts.max_per_class < 1) throw new Error('bad max_per_class');

// A fortune file (as in make_fortunes.js): entries separated by lines
// consisting of a single "%"; overstrikes (x BACKSPACE y) resolved; UTF-8 if
// valid, else Windows-1252. Other control characters (fortunes-es has a
// few ANSI escape sequences) become spaces.
function readFortunes(file) {
  const buf = fs.readFileSync(file);
  let s;
  try { s = new TextDecoder('utf-8', { fatal: true }).decode(buf); } catch (e) { s = new TextDecoder('windows-1252').decode(buf); }
  s = s.replace(/\r\n?/g, '\n').replace(/[^\n]\x08/g, '').replace(/\x1b\[[0-9;]*[A-Za-z]/g, ' ')
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, ' ');
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
  const file = path.join(opts.dir, classes[c] + L.suffix);
  if (!fs.existsSync(file)) {
    throw new Error(`missing ${file}: install the Debian package "${L.pkg}" (apt-get install ${L.pkg})`);
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

// Unlabelled rows: every other entry of the language's fortune files in the
// folder (not its subfolders), as in make_fortunes.js.
const isFortuneFile = f => (L.suffix ? f.endsWith(L.suffix) && !f.slice(0, -L.suffix.length).includes('.')
  : !f.includes('.'));
const rest = [];
const otherFiles = fs.readdirSync(opts.dir).filter(f => isFortuneFile(f) &&
  !opts.unlabelled_exclude.includes(f.slice(0, f.length - L.suffix.length)) &&
  fs.statSync(path.join(opts.dir, f)).isFile()).sort(common.cmpStr);
for (const f of otherFiles) {
  const base = f.slice(0, f.length - L.suffix.length);
  const entries = readFortunes(path.join(opts.dir, f));
  const toks = common.tokenizeAll(entries);
  entries.forEach((text, i) => rest.push({ id: `${base}:${i + 1}`, toks: toks[i], text }));
}

const version = common.debianVersion(L.pkg);
common.finish({
  name,
  outBase: opts.out,
  rows: kept,
  classes,
  opts,
  unlabelled: () => common.notKept(rest, kept, opts.min_words),
  info: {
    language: lang,
    unlabelled_rule: `every entry (>= min_words tokens) of the fortune files${L.suffix ? ' (*' + L.suffix + ')' : ''} directly in the directory (not its subfolders) except unlabelled_exclude, that is not a labelled row (files outside the categories, and entries of the categories left out by the balance); files in code-point order, entries in file order; truncated to T-2 words; duplicates of labelled rows and of earlier unlabelled rows dropped`,
    unlabelled_exclude: opts.unlabelled_exclude,
    source: `Debian package ${L.pkg} ${version} (${opts.dir})`,
    source_package: L.pkg,
    source_version: version,
    source_dir: opts.dir,
    builder: 'datasets/make_fortunes_xx.js',
    categories: classes,
    category_rule: `class = fortune file the entry comes from (<category>${L.suffix}); entries separated by lines "%"; overstrike (x BACKSPACE y) resolved, ANSI escape sequences and other control characters replaced by spaces; attribution lines kept`,
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
process.stderr.write(`${name}: raw ${nRaw.join('/')}, short ${nShort.join('/')}, ` +
  `available ${nAvail.join('/')}, dups ${nDup}, conflicting ${nConflict} (${Date.now() - t0} ms)\n`);
