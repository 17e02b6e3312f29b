'use strict';
// Shared helpers for the dataset builders (tokenizer, seeded PRNG,
// duplicate removal, class balance, stratified split, vocabulary, encoding,
// intermediate output).
// Everything here is deterministic: no Date, no Math.random, no
// locale-dependent comparisons.

const fs = require('fs');
const path = require('path');

const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];
const PAD = 1, UNK = 2, CLS = 3, SEP = 4;

const TOKENIZER_DESC =
  'NFKD-normalise and drop combining marks (accents), lowercase, delete ' +
  'apostrophes between letters/digits (don\'t -> dont); tokens are maximal ' +
  'runs of [a-z0-9] (runs longer than 30 chars are dropped: hashes, ' +
  'base64 residue), plus one "!" token per run of "!" and one "$" token ' +
  'per run of "$"; everything else is a separator';
const MAX_TOKEN_LEN = 30;

// The text rule (tokenizer, vocabulary, encoding) is libcore's
// (libcore/ee_text.h), run through its filter program tools/ee_text, so
// that the datasets and the Octave gateways (ee_tokenize, ee_vocab) cannot
// drift apart. Build it first (tools/build.sh); EE_TEXT may name another.
const EE_TEXT = process.env.EE_TEXT || path.join(__dirname, '..', '..', 'tools', 'ee_text');

function runText(args, input) {
  if (!fs.existsSync(EE_TEXT)) {
    throw new Error(`${EE_TEXT} not found: build the project first (tools/build.sh)`);
  }
  const r = require('child_process').spawnSync(EE_TEXT, args, { input, maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`ee_text ${args[0]} failed: ${r.stderr.toString().trim()}`);
  return r.stdout;
}

/** Texts as records: uint32 little-endian byte count, then the UTF-8 (a
 * lone surrogate becomes U+FFFD, which separates words as it did in JS). */
function textRecords(texts) {
  const parts = [];
  for (const t of texts) {
    const b = Buffer.from(t, 'utf8');
    const h = Buffer.alloc(4);
    h.writeUInt32LE(b.length);
    parts.push(h, b);
  }
  return Buffer.concat(parts);
}

/** Tokenize JS strings (see TOKENIZER_DESC): an array of token arrays. */
function tokenizeAll(texts) {
  const lines = runText(['tokenize'], textRecords(texts)).toString('latin1').split('\n');
  if (lines.length !== texts.length + 1) throw new Error('ee_text tokenize: wrong number of lines');
  return texts.map((_, i) => (lines[i] === '' ? [] : lines[i].split(' ')));
}

/** Tokenize one string (one process per call: use tokenizeAll for many). */
function tokenize(text) { return tokenizeAll([text])[0]; }

const docLines = docs => Buffer.from(docs.map(d => d.join(' ') + '\n').join(''), 'latin1');

/** mulberry32: small, well-known 32-bit seeded PRNG, returns [0,1). */
function mulberry32(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** In-place Fisher-Yates shuffle driven by rng(). */
function shuffle(arr, rng) {
  for (let i = arr.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const t = arr[i]; arr[i] = arr[j]; arr[j] = t;
  }
  return arr;
}

/**
 * Deterministic subsample: keep at most `cap` of the indices `idx`
 * (chosen by a seeded shuffle), returned in ascending order.
 */
function subsample(idx, cap, rng) {
  if (idx.length <= cap) return idx.slice();
  return shuffle(idx.slice(), rng).slice(0, cap).sort((a, b) => a - b);
}

/**
 * Duplicates by token sequence, for candidates {label (0-based), toks, ...}
 * in their order: the first of identical token sequences is kept, the
 * others counted in nDup; when copies carry different labels, every copy is
 * dropped (nConflict counts them). Returns the kept candidates by class
 * (perClass[c], in input order), all of them (kept, in input order), and
 * the counts.
 */
function dedupeByClass(cand, nClasses) {
  const keys = cand.map(x => x.toks.join(' '));
  const labelsOf = new Map();
  cand.forEach((x, i) => {
    if (!labelsOf.has(keys[i])) labelsOf.set(keys[i], new Set());
    labelsOf.get(keys[i]).add(x.label);
  });
  const seen = new Set();
  let nDup = 0, nConflict = 0;
  const perClass = Array.from({ length: nClasses }, () => []);
  const kept = [];
  cand.forEach((x, i) => {
    if (labelsOf.get(keys[i]).size > 1) { nConflict++; return; }
    if (seen.has(keys[i])) { nDup++; return; }
    seen.add(keys[i]);
    perClass[x.label].push(x);
    kept.push(x);
  });
  return { perClass, kept, nDup, nConflict };
}

/**
 * Balance: at most maxPerClass items of each class perClass[c], chosen by a
 * seeded Fisher-Yates shuffle (one stream mulberry32(seed XOR 0x9E3779B9)
 * shared across the classes in class order) and kept in their order; the
 * kept items of class 0, then class 1, ...
 */
function balancePerClass(perClass, maxPerClass, seed) {
  const rng = mulberry32((seed ^ 0x9E3779B9) >>> 0);
  const kept = [];
  for (const items of perClass) {
    for (const i of subsample(items.map((_, k) => k), maxPerClass, rng)) kept.push(items[i]);
  }
  return kept;
}

/**
 * Unlabelled rows from what the labelled rows left out: the items (in their
 * order) whose id is not a kept row's and that have at least minWords
 * tokens, as {id, toks, text}.
 */
function notKept(items, kept, minWords = 0) {
  const keptIds = new Set(kept.map(x => x.id));
  return items.filter(x => !keptIds.has(x.id) && x.toks.length >= minWords)
    .map(x => ({ id: x.id, toks: x.toks, text: x.text }));
}

/** Version of an installed Debian package (from /var/lib/dpkg/status), else 'unknown'. */
function debianVersion(pkg) {
  try {
    const st = fs.readFileSync('/var/lib/dpkg/status', 'latin1');
    for (const para of st.split(/\n\n+/)) {
      if (new RegExp('^Package: ' + pkg + '$', 'm').test(para) && /^Status: .* installed$/m.test(para)) {
        const m = /^Version: (.+)$/m.exec(para);
        if (m) return m[1];
      }
    }
  } catch (e) { /* not a dpkg system */ }
  return 'unknown';
}

/**
 * Stratified split. labels: 0-based class per row. For each class c (in
 * class order) the rows of that class (ascending) are shuffled with one
 * PRNG stream (mulberry32(seed), shared across classes in class order);
 * the first round(f_train*n) go to train, the next round(f_valid*n) to
 * valid, the rest to test. Returns 0-based row indices, each sorted.
 */
function stratifiedSplit(labels, nClasses, fractions, seed) {
  const rng = mulberry32(seed);
  const split = { train: [], valid: [], test: [] };
  const counts = [];
  for (let c = 0; c < nClasses; c++) {
    const rows = [];
    for (let i = 0; i < labels.length; i++) if (labels[i] === c) rows.push(i);
    shuffle(rows, rng);
    const n = rows.length;
    const nTr = Math.round(fractions[0] * n);
    const nVa = Math.min(n - nTr, Math.round(fractions[1] * n));
    split.train.push(...rows.slice(0, nTr));
    split.valid.push(...rows.slice(nTr, nTr + nVa));
    split.test.push(...rows.slice(nTr + nVa));
    counts.push([nTr, nVa, n - nTr - nVa]);
  }
  for (const k of Object.keys(split)) split[k].sort((a, b) => a - b);
  return { split, counts };
}

/** Code-unit (byte-wise for ASCII) comparison; locale independent. */
function cmpStr(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

/**
 * Vocabulary from the (already truncated) token lists of the training rows:
 * words with count >= minCount, sorted by count descending then
 * alphabetically, capped to `cap` words; ids 5.. after the 4 specials
 * (libcore's rule, through ee_text vocab).
 */
function buildVocab(docs, trainRows, minCount, cap) {
  const out = runText(['vocab', String(minCount), String(cap)], docLines(trainRows.map(r => docs[r])))
    .toString('latin1').split('\n');
  out.pop();
  const [types, eligible, minKept] = out[0].split(' ').map(Number);
  const vocab = out.slice(1);
  if (vocab.slice(0, 4).join() !== SPECIALS.join()) throw new Error('ee_text vocab: specials missing');
  return { vocab, nTrainTypes: types, nEligible: eligible, minKeptCount: minKept };
}

/** Truncate word lists to T-2 tokens; returns {docs, nTruncated flags}. */
function truncateDocs(docs, T) {
  const maxWords = T - 2;
  const truncated = docs.map(d => d.length > maxWords);
  return { docs: docs.map(d => (d.length > maxWords ? d.slice(0, maxWords) : d)), truncated };
}

/** Encode truncated docs into a row-major Int32Array N*T (1-based ids). */
function encode(docs, vocab, T) {
  for (const d of docs) if (d.length > T - 2) throw new Error('encode: doc longer than T-2');
  const vfile = path.join(require('os').tmpdir(), `ee_text_vocab_${process.pid}.txt`);
  fs.writeFileSync(vfile, vocab.join('\n') + '\n', 'latin1');
  let bytes;
  try { bytes = runText(['encode', String(T), vfile], docLines(docs)); } finally { fs.unlinkSync(vfile); }
  const N = docs.length;
  if (bytes.length !== N * T * 4) throw new Error('ee_text encode: wrong output size');
  const out = new Int32Array(N * T);
  for (let k = 0; k < N * T; k++) out[k] = bytes.readInt32LE(4 * k);
  // [UNK] per row among its words (positions 1..length)
  const unkPerRow = new Int32Array(N);
  for (let r = 0; r < N; r++) {
    for (let k = 0; k < docs[r].length; k++) if (out[r * T + 1 + k] === UNK) unkPerRow[r]++;
  }
  return { tokens: out, unkPerRow };
}

/** Per-split OOV (UNK) rate over word tokens. */
function oovRates(docs, unkPerRow, split) {
  const res = {};
  for (const k of ['train', 'valid', 'test']) {
    let n = 0, u = 0;
    for (const r of split[k]) { n += docs[r].length; u += unkPerRow[r]; }
    res[k] = n ? u / n : 0;
  }
  return res;
}

/**
 * The raw texts behind the rows, for tests/octave/test_text_datasets.m
 * (which tokenizes them with ee_tokenize and compares with the .mat):
 *   <base>.texts.bin   the texts, then the extra texts, each as a uint32
 *                      little-endian byte count and its UTF-8 (the bytes
 *                      the tokenizer was given; NULs and all)
 *   <base>.texts.json  {n_texts, n_extra, unlabelled: [[src, start], ...]}:
 *                      unlabelled row k holds words start+1.. of text src
 *                      (0-based, counting the extra texts after the N rows)
 * Builders pass `texts` (one per doc) to finish(), and unlabelled items
 * carry `row` (a doc's text) or `text`, and `start` (0 when absent).
 */
function writeTexts(base, texts, unlItems) {
  const extra = [], unl = [];
  for (const u of unlItems) {
    if (u.text !== undefined) { unl.push([texts.length + extra.length, u.start || 0]); extra.push(u.text); }
    else unl.push([u.row, u.start || 0]);
  }
  fs.writeFileSync(base + '.texts.bin', textRecords(texts.concat(extra)));
  fs.writeFileSync(base + '.texts.json', JSON.stringify({ n_texts: texts.length, n_extra: extra.length, unlabelled: unl }));
}

/**
 * Write the intermediate files read by write_mat.m:
 *   <base>.tokens.i32      int32 little-endian, row-major N x T
 *   <base>.unlabelled.i32  the same for the M unlabelled rows (may be empty)
 *   <base>.json            {N, M, T, labels(1-based), vocab, classes, split(1-based), info}
 */
function writeIntermediate(base, obj, tokens, unlTokens) {
  fs.mkdirSync(path.dirname(base), { recursive: true });
  if (require('os').endianness() !== 'LE') throw new Error('big-endian host not supported');
  const bytes = a => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  fs.writeFileSync(base + '.tokens.i32', bytes(tokens));
  fs.writeFileSync(base + '.unlabelled.i32', bytes(unlTokens || new Int32Array(0)));
  fs.writeFileSync(base + '.json', JSON.stringify(obj));
}

/** Parse --key=value / --key value command-line options. */
function parseArgs(argv, defaults) {
  const opts = Object.assign({}, defaults);
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([A-Za-z_]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m || !(m[1] in defaults)) throw new Error('unknown option: ' + argv[i]);
    let v = m[2] !== undefined ? m[2] : argv[++i];
    if (v === undefined) throw new Error('missing value for --' + m[1]);
    const d = defaults[m[1]];
    if (typeof d === 'number') {
      v = Number(v);
      if (!Number.isFinite(v)) throw new Error('bad number for --' + m[1]);
    } else if (Array.isArray(d)) {
      v = v.split(',').filter(Boolean);
      if (typeof d[0] === 'number') v = v.map(Number);
    }
    opts[m[1]] = v;
  }
  return opts;
}

/** Validate common options (T, min_count, vocab_cap, fractions, seed). */
function checkCommonOpts(o) {
  if (!Number.isInteger(o.T) || o.T < 3) throw new Error('T must be an integer >= 3');
  if (!Number.isInteger(o.min_count) || o.min_count < 1) throw new Error('min_count must be >= 1');
  if (!Number.isInteger(o.vocab_cap) || o.vocab_cap < 1) throw new Error('vocab_cap must be >= 1');
  if (!Number.isInteger(o.seed) || o.seed < 0 || o.seed > 0xFFFFFFFF) throw new Error('seed must be a uint32');
  const f = o.split;
  if (f.length !== 3 || f.some(x => !(x >= 0)) || Math.abs(f[0] + f[1] + f[2] - 1) > 1e-9) {
    throw new Error('split must be three non-negative fractions summing to 1');
  }
}

/**
 * Unlabelled rows: token lists that are not part of the labelled split
 * (explainer training data needs no labels), truncated to T-2 words and
 * encoded with the vocabulary. A row whose ids equal a labelled row's or an
 * earlier unlabelled row's is dropped (compared after encoding, since
 * different words can become the same [UNK] ids), so that no test sequence
 * can be seen in training through them.
 */
function encodeUnlabelled(list, labelledTokens, vocab, T) {
  const rowKey = (a, r) => Buffer.from(a.buffer, a.byteOffset + r * T * 4, T * 4).toString('base64');
  const seen = new Set();
  for (let r = 0; r < labelledTokens.length / T; r++) seen.add(rowKey(labelledTokens, r));
  const all = encode(list.map(u => u.toks.slice(0, T - 2)), vocab, T).tokens;
  const keep = [];
  for (let r = 0; r < list.length; r++) {
    const k = rowKey(all, r);
    if (seen.has(k)) continue;
    seen.add(k);
    keep.push(r);
  }
  const tokens = new Int32Array(keep.length * T);
  keep.forEach((r, i) => tokens.set(all.subarray(r * T, (r + 1) * T), i * T));
  return { tokens, ids: keep.map(r => list[r].id), keep, nDup: list.length - keep.length };
}

/**
 * Shared tail of the builders: split, vocab, encode, write. `rows`: the
 * labelled rows in order, each {id, label (0-based), toks, text} (text: the
 * raw text, written with the unlabelled rows' sources, see writeTexts).
 * `unlabelled` (optional) is a function (split, docs) -> [{id, toks}] of
 * extra in-domain texts without labels (docs: the rows' token lists); they
 * are encoded with the vocabulary of the train split and written as a
 * separate matrix.
 */
function finish({ name, outBase, rows, classes, opts, info, unlabelled }) {
  const docs = rows.map(x => x.toks), texts = rows.map(x => x.text);
  const labels = rows.map(x => x.label), docIds = rows.map(x => x.id);
  const C = classes.length;
  const { split, counts } = stratifiedSplit(labels, C, opts.split, opts.seed);
  const lengths = docs.map(d => d.length);
  const { docs: tdocs, truncated } = truncateDocs(docs, opts.T);
  const voc = buildVocab(tdocs, split.train, opts.min_count, opts.vocab_cap);
  const { tokens, unkPerRow } = encode(tdocs, voc.vocab, opts.T);
  const nTruncSplit = {};
  for (const k of ['train', 'valid', 'test']) nTruncSplit[k] = split[k].reduce((s, r) => s + (truncated[r] ? 1 : 0), 0);
  const sorted = lengths.slice().sort((a, b) => a - b);
  const q = p => sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))];
  const fullInfo = Object.assign({ name }, info, {
    T: opts.T,
    min_count: opts.min_count,
    vocab_cap: opts.vocab_cap,
    vocab_order: 'specials [PAD] [UNK] [CLS] [SEP], then train-split words with count >= min_count (counted after truncation) by count desc, ties by code-point order, capped at vocab_cap',
    split_fractions: opts.split,
    split_method: 'stratified per class: rows of each class (in class order) shuffled by Fisher-Yates with one mulberry32(seed) stream, first round(f_train*n) -> train, next round(f_valid*n) -> valid, rest -> test; indices sorted ascending; rows are in source order (shuffle before training)',
    seed: opts.seed,
    tokenizer: TOKENIZER_DESC,
    N: docs.length,
    V: voc.vocab.length,
    n_train_types: voc.nTrainTypes,
    n_vocab_eligible: voc.nEligible,
    vocab_min_kept_count: voc.minKeptCount,
    counts: counts,
    counts_rows: 'classes',
    counts_cols: ['train', 'valid', 'test'],
    n_truncated: truncated.reduce((s, t) => s + (t ? 1 : 0), 0),
    n_truncated_train: nTruncSplit.train,
    n_truncated_valid: nTruncSplit.valid,
    n_truncated_test: nTruncSplit.test,
    doc_len_words_min: sorted[0],
    doc_len_words_median: q(0.5),
    doc_len_words_p90: q(0.9),
    doc_len_words_max: sorted[sorted.length - 1],
    oov_rate: oovRates(tdocs, unkPerRow, split),
    doc_ids: docIds,
    doc_lengths: lengths,
  });
  const unlList = unlabelled ? unlabelled(split, docs) : [];
  const unl = encodeUnlabelled(unlList, tokens, voc.vocab, opts.T);
  fullInfo.n_unlabelled = unl.ids.length;
  fullInfo.n_unlabelled_duplicates_removed = unl.nDup;
  fullInfo.unlabelled_ids = unl.ids;
  const obj = {
    N: docs.length,
    M: unl.ids.length,
    T: opts.T,
    labels: labels.map(l => l + 1),
    vocab: voc.vocab,
    classes,
    split: {
      train: split.train.map(r => r + 1),
      valid: split.valid.map(r => r + 1),
      test: split.test.map(r => r + 1),
    },
    info: fullInfo,
  };
  writeIntermediate(outBase, obj, tokens, unl.tokens);
  writeTexts(outBase, texts, unl.keep.map(r => unlList[r]));
  const line = classes.map((c, i) => `${c}=${counts[i].join('/')}`).join(' ');
  process.stderr.write(`${name}: N=${docs.length} V=${voc.vocab.length} T=${opts.T} ` +
    `truncated=${fullInfo.n_truncated} [train/valid/test] ${line}\n`);
  return obj;
}

module.exports = {
  SPECIALS, PAD, UNK, CLS, SEP, TOKENIZER_DESC,
  tokenize, tokenizeAll, mulberry32, shuffle, subsample, dedupeByClass, balancePerClass, notKept,
  debianVersion,   stratifiedSplit, buildVocab,
  truncateDocs, encode, writeIntermediate, writeTexts, encodeUnlabelled, parseArgs, checkCommonOpts, finish, cmpStr,
};
