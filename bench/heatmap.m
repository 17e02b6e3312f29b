## bench/heatmap.m: how ee_heatmap's time grows with the length of the text
## (a benchmark, not a test; issue 25: 10,000 words once took over 300 s,
## one graphics object per word). Run from the repository root:
##
##   octave-cli bench/heatmap.m            # 1,000 and 10,000 words
##   octave-cli --eval "words = [100 1000 10000 20000]; run bench/heatmap.m"
##   octave-cli --eval "root = '/other/checkout'; words = 1000; run bench/heatmap.m"
##
## (root: the checkout whose mex/ and scripts/ are timed, default this one;
## fmt: '.png' (default, 300 dpi) or '.pdf').
## One row per length: the words, the seconds of one ee_heatmap call (two
## maps, a PNG at 300 dpi, colour bar) and the seconds per 1,000 words.
if (! exist ('words', 'var'))
  words = [1000 10000];
end
if (! exist ('root', 'var'))
  root = fileparts (fileparts (mfilename ('fullpath')));
end
if (! exist ('fmt', 'var'))
  fmt = '.png';
end
addpath (fullfile (root, 'mex'), fullfile (root, 'scripts'));
V = [{'[PAD]', '[UNK]', '[CLS]', '[SEP]'}, arrayfun(@(k) sprintf ('w%d', k), 1:300, 'uniformoutput', false), ...
     {"caf\xc3\xa9", "na\xc3\xafve", 'extraordinarily', 'a', 'of'}];
rand ('seed', 25);
out = [tempname() fmt];
printf ('%-12s %8s %10s %14s\n', 'bench', 'words', 'seconds', 's/1000 words');
for n = words
  x = [3, randi([5 numel(V)], 1, n), 4];
  top = randn (size (x)); bottom = randn (size (x));
  t0 = tic ();
  ee_heatmap (out, x, V, top, bottom, 'title', sprintf ('%d words', n), 'labels', {'top', 'bottom'});
  s = toc (t0);
  info = dir (out);
  printf ('%-12s %8d %10.2f %14.3f   (%.1f MB %s)\n', 'ee_heatmap', n, s, 1000 * s / n, info.bytes / 2^20, fmt);
  fflush (stdout);
  delete (out);
end
