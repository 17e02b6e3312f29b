#!/usr/bin/env node
'use strict';
// Build the intermediate files for manpages.mat (--kind pages: the text of
// a Linux man page) or manpage_titles.mat (--kind titles: the one-line
// description of its NAME section, without the names before "\-"); the
// class is the manual section, from the Debian packages manpages and
// manpages-dev (gzipped roff in /usr/share/man/man<N>).
//
//   node datasets/make_manpages.js [--kind pages|titles] [--out build/<name>]
//        [--T 320 (pages) / 16 (titles)] [--min_count 2] [--vocab_cap 20000]
//        [--seed 20240601] [--split 0.7,0.1,0.2]
//        [--packages manpages,manpages-dev] [--sections 2,3,4+5,7]
//        [--max_per_class 300] [--min_words 20 (pages) / 2 (titles)]
//
// Pages are the regular files (not symbolic links, not ".so" redirects)
// that dpkg lists for the packages under /usr/share/man/man<N>/. The roff is
// converted to plain text here (no external formatter), see roffToText.
//
// Writes <out>.json, <out>.tokens.i32, <out>.unlabelled.i32 (and
// <out>.texts.bin/.json, the raw texts for the tokenizer test);
// datasets/write_mat.m turns them into the .mat file. See datasets/README.md.

const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const common = require('./lib/common.js');

const argv = process.argv.slice(2);
let kind = 'pages';
for (let i = 0; i < argv.length; i++) {
  const m = /^--kind(?:=(.*))?$/.exec(argv[i]);
  if (m) { kind = m[1] !== undefined ? m[1] : argv[i + 1]; argv.splice(i, m[1] !== undefined ? 1 : 2); break; }
}
if (kind !== 'pages' && kind !== 'titles') throw new Error('--kind must be pages or titles');
const name = kind === 'pages' ? 'manpages' : 'manpage_titles';

const opts = common.parseArgs(argv, {
  out: path.join(__dirname, 'build', name),
  T: kind === 'pages' ? 320 : 16,
  min_count: 2,
  vocab_cap: 20000,
  seed: 20240601,
  split: [0.7, 0.1, 0.2],
  packages: ['manpages', 'manpages-dev'],
  sections: ['2', '3', '4+5', '7'],
  max_per_class: 300,
  min_words: kind === 'pages' ? 20 : 2,
  dpkg_info: '/var/lib/dpkg/info',
});
common.checkCommonOpts(opts);
if (!Number.isInteger(opts.max_per_class) || opts.max_per_class < 1) throw new Error('bad max_per_class');

// Class names of the manual sections (man-pages(7)); a merged class is
// named by its parts joined with "+".
const SECTION_NAMES = {
  1: 'commands', 2: 'syscalls', 3: 'library', 4: 'devices', 5: 'formats',
  6: 'games', 7: 'overviews', 8: 'admin',
};
const classSections = opts.sections.map(s => s.split('+'));
for (const g of classSections) {
  for (const s of g) if (!SECTION_NAMES[s]) throw new Error(`bad section ${s} in --sections`);
}
if (classSections.length < 2) throw new Error('need at least two classes');
const classes = classSections.map(g => g.map(s => SECTION_NAMES[s]).join('+'));
const classOf = {};
classSections.forEach((g, c) => { for (const s of g) classOf[s] = c; });

// ------------------------------------------------------------ roff -> text

// Special characters \(xx and \[xx] (groff_char(7)); unknown ones become a
// space (a word separator).
const GLYPHS = {
  aq: "'", dq: '"', lq: '\u201c', rq: '\u201d', oq: '\u2018', cq: '\u2019', ga: '`', ha: '^',
  ti: '~', em: '\u2014', en: '\u2013', hy: '-', mi: '-', bu: '\u2022', co: '\u00a9', rg: '\u00ae',
  tm: '\u2122', de: '\u00b0', '+-': '\u00b1', mu: '\u00d7', di: '\u00f7', '<=': '\u2264',
  '>=': '\u2265', '!=': '\u2260', '==': '\u2261', '->': '\u2192', '<-': '\u2190', la: '\u27e8',
  ra: '\u27e9', fm: '\u2032', sd: '\u2033', dg: '\u2020', sc: '\u00a7', mc: '\u00b5', '12': '\u00bd',
  '14': '\u00bc', '34': '\u00be', rs: '\\', sl: '/', ba: '|', br: '|', or: '|', at: '@', sh: '#',
  Do: '$', ct: '\u00a2', Po: '\u00a3', Eu: '\u20ac', eu: '\u20ac', ss: '\u00df', pc: '\u00b7',
  lB: '[', rB: ']', lC: '{', rC: '}', la2: '<', ra2: '>', ul: '_', ru: '_', 'r!': '\u00a1',
  'r?': '\u00bf', Fo: '\u00ab', Fc: '\u00bb', fo: '\u2039', fc: '\u203a', OK: '\u2713',
  ps: '\u00b6', pd: '\u2202', es: '\u2205', if: '\u221e', '**': '*', pl: '+', eq: '=',
};
const ACCENTS = { "'": '\u0301', '`': '\u0300', ':': '\u0308', '^': '\u0302', '~': '\u0303', ',': '\u0327', o: '\u030a' };
function glyph(n) {
  if (Object.prototype.hasOwnProperty.call(GLYPHS, n)) return GLYPHS[n];
  let m = /^u([0-9A-Fa-f]{4,6}(?:_[0-9A-Fa-f]{4,6})*)$/.exec(n);
  if (m) return m[1].split('_').map(h => String.fromCodePoint(parseInt(h, 16))).join('').normalize('NFC');
  m = /^(['`:^~,o])([A-Za-z])$/.exec(n);
  if (m) return (m[2] + ACCENTS[m[1]]).normalize('NFC');
  return ' ';
}
// Predefined strings \*x, \*(xx, \*[xx] (the man macros' and the pages'
// own .ds definitions that matter for the text); others are empty.
const STRINGS = { lq: '\u201c', rq: '\u201d', R: '\u00ae', Tm: '\u2122', '-': '-', q: '"' };

/** Roff escapes of one text line -> plain text. */
function unescape(s) {
  let out = '';
  let i = 0;
  // argument of an escape: one char, (xx, [xxx], or a delimited 'xxx'
  const arg = () => {
    const c = s[i];
    if (c === undefined) return '';
    if (c === '(') { const r = s.substr(i + 1, 2); i += 3; return r; }
    if (c === '[') { const e = s.indexOf(']', i); const r = e < 0 ? s.slice(i + 1) : s.slice(i + 1, e); i = e < 0 ? s.length : e + 1; return r; }
    i++;
    return c;
  };
  const delimited = () => {
    const d = s[i];
    if (d === undefined) return '';
    const e = s.indexOf(d, i + 1);
    const r = e < 0 ? s.slice(i + 1) : s.slice(i + 1, e);
    i = e < 0 ? s.length : e + 1;
    return r;
  };
  while (i < s.length) {
    const c = s[i++];
    if (c !== '\\') { out += c; continue; }
    const e = s[i++];
    if (e === undefined) break;
    switch (e) {
      case '"': return out;                           // comment to end of line
      case '\\': case 'e': case 'E': out += '\\'; break;
      case '-': case '_': case '.': case "'": case '`': out += e; break;
      case ' ': case '~': case '0': case 't': out += ' '; break;
      case '&': case '|': case '^': case '%': case ':': case 'c': case '/': case ',':
      case ')': case '{': case '}': case 'z': case 'r': case 'a': case 'd': case 'u': case 'p':
        break;                                         // zero-width / layout only
      case 'f': case 'F': case 'k': case 'n': case 'g': case 'm': case 'M': case 'V': case 'Y':
        if (e === 'n' && (s[i] === '+' || s[i] === '-')) i++;
        arg();                                         // font, register: no text
        break;
      case 's':                                        // size \s+N \s-N \sN \s(NN \s[N]
        if (s[i] === '+' || s[i] === '-') i++;
        if (s[i] === '(' || s[i] === '[') arg(); else while (/[0-9]/.test(s[i] || '')) i++;
        break;
      case '*': { const n = arg(); out += Object.prototype.hasOwnProperty.call(STRINGS, n) ? STRINGS[n] : ''; break; }
      case '(': case '[': { i--; out += glyph(arg()); break; }
      case '$': arg(); break;                          // macro argument
      case 'N': { const n = delimited(); out += /^[0-9]+$/.test(n) ? String.fromCodePoint(Number(n)) : ' '; break; }
      case 'o': out += delimited(); break;             // overstrike: keep the characters
      case 'w': case 'h': case 'v': case 'l': case 'L': case 'D': case 'X': case 'b': case 'x':
      case 'Z': case 'A': case 'B': case 'C': case 'R': case 'S': case 'H': case 'O':
        delimited();                                   // motions, widths, device control
        break;
      default: out += e;                               // \X -> X for any other X
    }
  }
  return out;
}

/** Macro arguments: white-space separated, "..." quoted ("" inside = "). */
function macroArgs(s) {
  const args = [];
  let i = 0;
  while (i < s.length) {
    while (s[i] === ' ' || s[i] === '\t') i++;
    if (i >= s.length) break;
    if (s[i] === '"') {
      let a = '';
      i++;
      while (i < s.length) {
        if (s[i] === '"' && s[i + 1] === '"') { a += '"'; i += 2; continue; }
        if (s[i] === '"') { i++; break; }
        if (s[i] === '\\' && i + 1 < s.length) { a += s[i] + s[i + 1]; i += 2; continue; }
        a += s[i++];
      }
      args.push(a);
    } else {
      let a = '';
      while (i < s.length && s[i] !== ' ' && s[i] !== '\t') {
        if (s[i] === '\\' && i + 1 < s.length) { a += s[i] + s[i + 1]; i += 2; continue; }
        a += s[i++];
      }
      args.push(a);
    }
  }
  return args;
}

// Macros whose arguments are text: joined by spaces, or (alternating-font
// macros) joined directly. .IP keeps its tag (first argument), .q is
// tzfile(5)'s quoting macro, .UR/.MT drop the address and keep the link
// text lines that follow.
const TEXT_SPACED = new Set(['B', 'I', 'SM', 'SB', 'SH', 'SS', 'SY', 'OP', 'UE', 'ME', 'TQ']);
const TEXT_JOINED = new Set(['BR', 'IR', 'RB', 'RI', 'BI', 'IB']);

/**
 * Roff (man macros) -> plain text. Drops comment lines, .TH (its section
 * number is the label) and every request or macro without text (.PP, .TP,
 * .nf, .RS, .sp, ...); keeps the text arguments of the font and heading
 * macros; .de/.ig blocks are skipped; .if/.ie/.el are evaluated with "n"
 * true (as man(1) on a terminal) and every other condition false; tables
 * (.TS/.TE): format lines dropped, cells separated by spaces, T{ T} removed.
 * Returns [{section, text}] per output line (section = the current .SH).
 */
function roffToText(src) {
  const raw = src.replace(/\r\n?/g, '\n').split('\n');
  // escaped newlines: join with the next line
  const lines = [];
  for (let k = 0; k < raw.length; k++) {
    let l = raw[k];
    while (/(^|[^\\])(\\\\)*\\$/.test(l) && k + 1 < raw.length) l = l.slice(0, -1) + raw[++k];
    lines.push(l);
  }
  const out = [];
  let section = '';
  let skipUntilDots = false;
  let table = null;                                    // {state: 'opts'|'format'|'data', tab}
  let falseDepth = 0;                                  // inside a false \{ ... \} block
  let lastIe = false;
  const emit = t => {
    const x = t.replace(/[\t ]+/g, ' ').trim();
    if (x) out.push({ section, text: x });
  };
  const braceBalance = l => (l.match(/\\\{/g) || []).length - (l.match(/\\\}/g) || []).length;

  const processLine = line => {
    if (falseDepth > 0) { falseDepth += braceBalance(line); if (falseDepth < 0) falseDepth = 0; return; }
    if (skipUntilDots) { if (/^[.']\s*\.\s*$/.test(line)) skipUntilDots = false; return; }
    line = line.replace(/\\\}/g, '');                  // end of a true block
    if (table && table.state !== 'data') {
      if (table.state === 'opts') {
        table.state = 'format';
        if (/;\s*$/.test(line)) {
          const m = /tab\s*\((.)\)/.exec(line);
          if (m) table.tab = m[1];
          return;
        }
      }
      if (/\.\s*$/.test(line)) table.state = 'data';
      return;
    }
    if (/^[.']\s*\\"/.test(line) || /^\\"/.test(line)) return;          // comment line
    const cm = /^[.']\s*(\S*)\s*(.*)$/.exec(line);
    if (!cm) {
      if (table) {
        if (/^\s*[_=]\s*$/.test(line)) return;
        line = line.split(table.tab).join(' ').replace(/T\{|T\}/g, ' ');
      }
      emit(unescape(line));
      return;
    }
    const mac = cm[1], rest = cm[2];
    if (mac === 'if' || mac === 'ie' || mac === 'el') {
      let cond, body;
      if (mac === 'el') { cond = !lastIe; body = rest; } else {
        const m = /^(!?)(\S+)\s*(.*)$/.exec(rest);
        if (!m) return;
        // nroff (n) and groff (\n(.g) true; t, o, e, strings, numbers: false
        let v = m[2] === 'n' || m[2] === '\\n(.g' || m[2] === '\\n[.g]';
        if (m[1]) v = !v;
        cond = v; body = m[3];
        if (mac === 'ie') lastIe = cond;
      }
      const opens = /^\\\{/.test(body);
      if (opens) body = body.slice(2);
      if (cond) { if (body.trim()) processLine(body); } else if (opens) {
        falseDepth = 1 + braceBalance(body);
        if (falseDepth < 0) falseDepth = 0;
      }
      return;
    }
    if (mac === 'de' || mac === 'de1' || mac === 'am' || mac === 'ig') { skipUntilDots = true; return; }
    if (mac === 'TS') { table = { state: 'opts', tab: '\t' }; return; }
    if (mac === 'TE') { table = null; return; }
    if (mac === 'T&') { if (table) table.state = 'format'; return; }
    const args = macroArgs(rest);
    if (mac === 'SH') section = unescape(args.join(' ')).trim().toUpperCase();
    if (TEXT_SPACED.has(mac)) emit(args.map(unescape).join(' '));
    else if (TEXT_JOINED.has(mac)) emit(args.map(unescape).join(''));
    else if (mac === 'IP') { if (args.length) emit(unescape(args[0])); }
    else if (mac === 'q') emit(unescape((args[2] || '') + '\u201c' + (args[0] || '') + '\u201d' + (args[1] || '')));
    // everything else (.TH, .PP, .TP, .nf, .RS, .sp, .UR url, ...): no text
  };
  for (const l of lines) processLine(l);
  return out;
}

/** A page that only redirects to another (.so) once comments are dropped. */
function isRedirect(src) {
  const l = src.split('\n').filter(x => x.trim() !== '' && !/^[.']\s*\\"/.test(x));
  return l.length >= 1 && l.length <= 2 && l.some(x => /^\.so\s/.test(x));
}

/**
 * NAME section description: the raw lines of the NAME section (text
 * arguments of font macros included), joined, after the first "\-" between
 * white space (the page names before it are dropped; a "\-" inside a name,
 * as in ld\-linux.so, is not the separator).
 */
function nameDescription(src) {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  let i = lines.findIndex(l => /^\.SH\s+"?NAME"?\s*$/i.test(l));
  if (i < 0) return null;
  const body = [];
  for (i++; i < lines.length && !/^\.S[HS]\b/.test(lines[i]); i++) {
    if (/^[.']\s*\\"/.test(lines[i])) continue;
    const m = /^[.']\s*(\S*)\s*(.*)$/.exec(lines[i]);
    if (m) { if (TEXT_SPACED.has(m[1]) || TEXT_JOINED.has(m[1])) body.push(macroArgs(m[2]).join(' ')); continue; }
    body.push(lines[i]);
  }
  const m = /\s\\-\s+([^]*)$/.exec(body.join(' '));
  if (!m) return null;
  return unescape(m[1]).replace(/\s+/g, ' ').trim();
}

// ------------------------------------------------------------ read pages

const t0 = Date.now();
const files = [];
for (const pkg of opts.packages) {
  const list = path.join(opts.dpkg_info, pkg + '.list');
  if (!fs.existsSync(list)) {
    throw new Error(`missing ${list}: install the Debian packages ${opts.packages.join(' ')} (apt-get install ${opts.packages.join(' ')})`);
  }
  for (const f of fs.readFileSync(list, 'utf8').split('\n')) {
    const m = /^\/usr\/share\/man\/man(\d)\/([^/]+)\.gz$/.exec(f);
    if (m) files.push({ file: f, sec: m[1], id: `man${m[1]}/${m[2]}`, pkg });
  }
}
files.sort((a, b) => common.cmpStr(a.id, b.id));
let nLinks = 0, nRedirect = 0, nNoName = 0;
const pages = [];
for (const f of files) {
  if (fs.lstatSync(f.file).isSymbolicLink()) { nLinks++; continue; }
  const src = zlib.gunzipSync(fs.readFileSync(f.file)).toString('utf8');
  if (isRedirect(src)) { nRedirect++; continue; }
  let text;
  if (kind === 'pages') {
    text = roffToText(src).map(l => l.text).join('\n');
  } else {
    text = nameDescription(src);
    if (text === null) { nNoName++; continue; }
  }
  pages.push({ id: f.id, sec: f.sec, text });
}
const toks = common.tokenizeAll(pages.map(p => p.text));
pages.forEach((p, i) => { p.toks = toks[i]; p.label = classOf[p.sec]; });

// Labelled candidates: pages of the class sections with >= min_words words.
const nRawPerClass = classes.map(() => 0), nShort = classes.map(() => 0);
const cand = [];
for (const p of pages) {
  if (p.label === undefined) continue;
  nRawPerClass[p.label]++;
  if (p.toks.length < opts.min_words) { nShort[p.label]++; continue; }
  cand.push(p);
}
// Duplicates (same token sequence): keep the first; drop all copies when
// they belong to different classes.
const { perClass, nDup, nConflict } = common.dedupeByClass(cand, classes.length);
// Balance: at most max_per_class pages per class, chosen by a seeded
// shuffle (stream mulberry32(seed ^ 0x9E3779B9)), kept in id order.
const nAvail = perClass.map(a => a.length);
const kept = common.balancePerClass(perClass, opts.max_per_class, opts.seed);

const versions = opts.packages.map(p => `${p} ${common.debianVersion(p)}`);
common.finish({
  name,
  outBase: opts.out,
  rows: kept,
  classes,
  opts,
  // every other page of the packages (other sections, and the pages the
  // balance or the short rule left out), in id order
  unlabelled: () => common.notKept(pages, kept, 3),
  info: {
    kind,
    source: `Debian packages ${versions.join(', ')} (/usr/share/man/man<N>)`,
    source_package: opts.packages.join(','),
    source_version: versions.join(', '),
    builder: `datasets/make_manpages.js --kind ${kind}`,
    categories: classes,
    category_rule: `class = manual section of the page (directory man<N>): ${classes.map((c, i) => `${c} = section ${classSections[i].join('+')}`).join(', ')}`,
    class_sections: opts.sections,
    page_rule: 'the regular files that dpkg lists for the packages under /usr/share/man/man<N>/ (symbolic links and pages that are only a .so redirect are skipped), in id order (man<N>/<file> without .gz)',
    text_rule: kind === 'pages'
      ? 'roff converted to text: comment lines, .TH (holds the section number) and requests/macros without text dropped; text arguments of .B .I .BR .IR .RB .RI .BI .IB .SM .SB .SH .SS .SY .OP .TQ .UE .ME and the tag of .IP kept; .de/.ig skipped; .if/.ie/.el with n true, other conditions false; tables: format lines dropped, cells joined by spaces; escapes: fonts/sizes/registers/motions dropped, \\- -> -, \\e -> \\, \\(xx \\[xx] -> the character, unknown -> space, \\" comments dropped'
      : 'the one-line description of the NAME section: its text after the first \\- between white space (the page names before it are dropped), escapes converted as for manpages.mat; pages without a NAME section or without \\- are skipped',
    n_files: files.length,
    n_symlinks_skipped: nLinks,
    n_redirects_skipped: nRedirect,
    n_without_name_description: nNoName,
    n_raw_per_class: nRawPerClass,
    min_words: opts.min_words,
    n_short_removed_per_class: nShort,
    n_duplicates_removed: nDup,
    n_conflicting_duplicates_removed: nConflict,
    n_available_per_class: nAvail,
    max_per_class: opts.max_per_class,
    balance_rule: 'after dropping short pages (< min_words tokens) and duplicates, at most max_per_class pages per class are kept, chosen by a Fisher-Yates shuffle with mulberry32(seed XOR 0x9E3779B9), kept in id order',
    unlabelled_rule: 'every other page of the packages (sections outside the classes, pages left out by the balance or the min_words rule) with at least 3 tokens, in id order; truncated to T-2 words; duplicates of labelled rows and of earlier unlabelled rows dropped',
    dedup_rule: 'duplicates = identical token sequence; first kept; all copies dropped when they belong to different classes',
  },
});
process.stderr.write(`${name}: ${files.length} files, ${nLinks} links, ${nRedirect} redirects, ` +
  `${nNoName} without description; raw ${nRawPerClass.join('/')}, short ${nShort.join('/')}, ` +
  `available ${nAvail.join('/')}, dups ${nDup}, conflicting ${nConflict} (${Date.now() - t0} ms)\n`);
