#!/usr/bin/env node
'use strict';
// Build the intermediate files for wordnet.mat: the lexicographer file of a
// WordNet 3.0 synset (45 classes such as noun.animal, verb.motion) predicted
// from its gloss (definition and example sentences), from the Debian package
// wordnet-base.
//
//   node datasets/make_wordnet.js [--out build/wordnet] [--T 32]
//        [--min_count 2] [--vocab_cap 20000] [--seed 20240601]
//        [--split 0.7,0.1,0.2] [--dir /usr/share/wordnet]
//
// Writes <out>.json, <out>.tokens.i32 (and <out>.texts.json, the raw texts
// for the tokenizer test); datasets/write_mat.m turns them
// into the .mat file. See datasets/README.md.

const fs = require('fs');
const path = require('path');
const common = require('./lib/common.js');

// The lexicographer files of WordNet 3.0 by file number (lexnames(5WN)).
const LEXNAMES = [
  'adj.all', 'adj.pert', 'adv.all', 'noun.Tops', 'noun.act', 'noun.animal',
  'noun.artifact', 'noun.attribute', 'noun.body', 'noun.cognition',
  'noun.communication', 'noun.event', 'noun.feeling', 'noun.food', 'noun.group',
  'noun.location', 'noun.motive', 'noun.object', 'noun.person',
  'noun.phenomenon', 'noun.plant', 'noun.possession', 'noun.process',
  'noun.quantity', 'noun.relation', 'noun.shape', 'noun.state',
  'noun.substance', 'noun.time', 'verb.body', 'verb.change', 'verb.cognition',
  'verb.communication', 'verb.competition', 'verb.consumption', 'verb.contact',
  'verb.creation', 'verb.emotion', 'verb.motion', 'verb.perception',
  'verb.possession', 'verb.social', 'verb.stative', 'verb.weather', 'adj.ppl',
];
const POS_FILES = ['noun', 'verb', 'adj', 'adv'];

const opts = common.parseArgs(process.argv.slice(2), {
  out: path.join(__dirname, 'build', 'wordnet'),
  T: 32,
  min_count: 2,
  vocab_cap: 20000,
  seed: 20240601,
  split: [0.7, 0.1, 0.2],
  dir: '/usr/share/wordnet',
});
common.checkCommonOpts(opts);

// One synset per line of data.<pos> (wndb(5WN)): "offset lex_filenum
// ss_type w_cnt word lex_id ... | gloss". Lines starting with two spaces
// are the licence header.
function readSynsets(file, pos) {
  const out = [];
  const lines = fs.readFileSync(file, 'latin1').split('\n');
  for (const line of lines) {
    if (line === '' || line.startsWith('  ')) continue;
    const bar = line.indexOf(' | ');
    if (bar < 0) throw new Error(`${file}: synset line without a gloss: ${line.slice(0, 40)}`);
    const f = line.slice(0, bar).split(' ');
    const lex = parseInt(f[1], 10);
    if (!(lex >= 0 && lex < LEXNAMES.length)) throw new Error(`${file}: bad lex_filenum ${f[1]}`);
    out.push({ id: `${pos}:${f[0]}`, label: lex, gloss: line.slice(bar + 3).trim() });
  }
  return out;
}

const t0 = Date.now();
for (const p of POS_FILES) {
  if (!fs.existsSync(path.join(opts.dir, 'data.' + p))) {
    throw new Error(`missing ${path.join(opts.dir, 'data.' + p)}: install the Debian package "wordnet-base"`);
  }
}
const cand = [];
const nRawPos = [];
for (const p of POS_FILES) {
  const syn = readSynsets(path.join(opts.dir, 'data.' + p), p);
  nRawPos.push(syn.length);
  const toks = common.tokenizeAll(syn.map(s => s.gloss));
  syn.forEach((s, i) => {
    cand.push({ id: s.id, label: s.label, toks: toks[i], text: s.gloss });
  });
}

// Empty glosses dropped; duplicates (same token sequence): keep the first;
// drop all copies when they belong to different lexicographer files.
const nonEmpty = cand.filter(x => x.toks.length > 0);
const nEmpty = cand.length - nonEmpty.length;
const { kept, nDup, nConflict } = common.dedupeByClass(nonEmpty, LEXNAMES.length);

const version = common.debianVersion('wordnet-base');
common.finish({
  name: 'wordnet',
  outBase: opts.out,
  rows: kept,
  classes: LEXNAMES,
  opts,
  info: {
    source: `Debian package wordnet-base ${version} (WordNet 3.0, ${opts.dir})`,
    source_package: 'wordnet-base',
    source_version: version,
    source_dir: opts.dir,
    builder: 'datasets/make_wordnet.js',
    categories: LEXNAMES,
    category_rule: 'class = the lexicographer file (lex_filenum) of the synset, 0..44 in lexnames(5WN) order; text = the whole gloss (definition and its quoted examples) after "| " in data.noun, data.verb, data.adj, data.adv (files in that order, synsets in file order)',
    n_raw_per_pos: nRawPos,
    pos_files: POS_FILES,
    n_duplicates_removed: nDup,
    n_conflicting_duplicates_removed: nConflict,
    n_empty_removed: nEmpty,
    dedup_rule: 'duplicates = identical token sequence; first kept; all copies dropped when they come from different lexicographer files',
    T_rule: 'T = 32: the glosses have median 11, 90th percentile 22, 99th percentile 38 words; 30 words fit, about 3 % of the glosses are truncated',
  },
});
process.stderr.write(`wordnet: raw ${nRawPos.join('/')}, dups ${nDup}, conflicting ${nConflict}, ` +
  `empty ${nEmpty} (${Date.now() - t0} ms)\n`);
