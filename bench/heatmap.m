## bench/heatmap.m: how ee_heatmap's cost grows with the length of the text
## (a benchmark, not a test; issue 25: 10,000 words once took over 300 s,
## one graphics object per word; target: under 1 s of CPU per 1,000 words).
## Run from the repository root:
##
##   octave-cli bench/heatmap.m            # 1,000 and 10,000 words
##   octave-cli --eval "words = [100 1000 10000 20000]; run bench/heatmap.m"
##   octave-cli --eval "root = '/other/checkout'; words = 1000; run bench/heatmap.m"
##
## (root: the checkout whose mex/ and scripts/ are timed, default this one;
## fmts: the formats, default {'.png', '.pdf', '.svg'}, one call each).
## One row per length and format: the words, the CPU seconds of one
## ee_heatmap call (two maps, colour bar; the PNG at 300 dpi, or less where
## a side would pass 32,000 pixels), its wall seconds, the CPU seconds per
## 1,000 words and the file's size.  CPU is this process and the programs
## it waited for (the converters it runs, gnuplot), from /proc/self/stat:
## wall time on a shared machine measures the neighbours too.
if (! exist ('words', 'var'))
  words = [1000 10000];
end
if (! exist ('root', 'var'))
  root = fileparts (fileparts (mfilename ('fullpath')));
end
if (! exist ('fmts', 'var'))
  fmts = {'.png', '.pdf', '.svg'};
end
addpath (fullfile (root, 'mex'), fullfile (root, 'scripts'));
## CPU seconds of this process and its waited-for children
function t = heatmap_bench_cpu ()
  s = fileread (sprintf ('/proc/%d/stat', getpid ()));
  f = strsplit (s(find (s == ')', 1, 'last') + 2:end), ' ');
  t = sum (str2double (f(12:15))) / 100;     # utime stime cutime cstime, in clock ticks (USER_HZ 100)
end
V = [{'[PAD]', '[UNK]', '[CLS]', '[SEP]'}, arrayfun(@(k) sprintf ('w%d', k), 1:300, 'uniformoutput', false), ...
     {"caf\xc3\xa9", "na\xc3\xafve", 'extraordinarily', 'a', 'of'}];
## one short call first, so that no row pays for reading the scripts
warm = [tempname() '.pdf'];
ee_heatmap (warm, [3 5 4], V, [0 1 0]);
delete (warm);
printf ('%-12s %8s %6s %9s %9s %14s %9s\n', 'bench', 'words', 'format', 'cpu s', 'wall s', 'cpu s/1000 w', 'MB');
for n = words
  rand ('seed', 25); randn ('seed', 25);
  x = [3, randi([5 numel(V)], 1, n), 4];
  top = randn (size (x)); bottom = randn (size (x));
  for f = fmts
    out = [tempname() f{1}];
    c0 = heatmap_bench_cpu (); t0 = tic ();
    ee_heatmap (out, x, V, top, bottom, 'title', sprintf ('%d words', n), 'labels', {'top', 'bottom'});
    s = toc (t0); c = heatmap_bench_cpu () - c0;
    info = dir (out);
    printf ('%-12s %8d %6s %9.2f %9.2f %14.3f %9.2f\n', 'ee_heatmap', n, f{1}(2:end), c, s, 1000 * c / n, ...
            info.bytes / 2^20);
    fflush (stdout);
    delete (out);
  end
end
