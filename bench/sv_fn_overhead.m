## sv_fn_overhead: the cost of ee_sv (@f, X, ...) around f, per call of f,
## for a trivial f (x * w) and batches of 256 to 4096 rows: the whole call,
## the time inside the gateway's callback (calling f through the
## interpreter, checking the scores; the rows are generated straight into
## f's argument), the time inside f's call alone, and f called directly
## on a matrix of the same size (what f itself costs). Wall clock; on a
## shared machine bench_callback.m (CPU time, per batch) is steadier.
## Not a test: numbers depend on the machine.
##   octave-cli --eval "addpath (fullfile (pwd, 'mex')); run ('bench/sv_fn_overhead.m')"
1;
rand ('seed', 1); randn ('seed', 1);
printf ('%5s %5s %6s | per call (us): %8s %8s %8s %8s | outside f / f alone\n', ...
        'F', 'P', 'batch', 'total', 'callback', 'in f', 'f alone');
for c = {{16, 0, 20, 400}, {784, 16, 2, 400}}
  [F, gsize, N, s] = c{1}{:};
  w = randn (F, 1); X = randn (N, F);
  g = {}; P = F;
  if (gsize)
    g = {'groups', ceil((1:F) / gsize)}; P = F / gsize;
  end
  f = @(x) x * w;
  for B = [256 1024 4096]
    best = Inf;
    for rep = 1:3
      [~, info] = ee_sv (f, X, 'samples', s, 'batch', B, 'verbose', false, g{:});
      if (info.seconds < best) best = info.seconds; bi = info; end
    end
    Z = randn (B, F); n = 50; t = tic; for k = 1:n, y = f (Z); end; alone = toc (t) / n;
    per = @(v) 1e6 * v / bi.calls;
    printf ('%5d %5d %6d | %23s %8.1f %8.1f %8.1f %8.1f | %5.0f %%\n', F, P, B, '', per (bi.seconds), ...
            per (bi.seconds_callback), per (bi.seconds_f), 1e6 * alone, ...
            100 * (bi.seconds - bi.seconds_f) / bi.calls / alone);
  end
end
