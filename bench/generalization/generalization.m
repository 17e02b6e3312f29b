## -*- texinfo -*-
## @deftypefn  {} {@var{T} =} generalization ()
## @deftypefnx {} {@var{T} =} generalization (@var{name}, @var{value}, @dots{})
## The generalization suite: the project's defaults on data and models it
## was never tuned on (doc/GENERALIZATION.md).  For every data set and
## seed of the explainer it runs the expensive explainer's convergence
## curve, trains the Empirical Explainer with the defaults and measures it
## as figure5 measures its panels: the classifier's test accuracy (R^2
## for a regression), the explainer's MSE and its multiple of the floor,
## the MSE of a map of zeros and of the expensive explainer at s = 1, the
## crossing (the smallest s at which the expensive explainer is as
## accurate) and the equal-accuracy speed-up in wall time and in passes.
##
## The data sets: text (figure5's own-data path, @code{'data_ig'} and
## @code{'data_sv'}, a transformer classifier): @file{sotu} (4 eras),
## @file{manpages} (long documents), @file{manpage_titles} (under 10
## words), @file{fortunes_de}, @file{fortunes_es} (German, Spanish), built
## by @file{datasets/build.sh}; tabular (a network trained here in plain
## Octave, explained through a handle by SV, its absent values the
## training rows' mean): @file{carbig} (regression of MPG on 6 columns in
## their own units) and @file{fisheriris} (3 species from 4 measures) of
## Octave's statistics package; images: Fashion-MNIST as 49 patches of 4 x
## 4 pixels (the mlp of @file{scripts/examples/fashion_patches.m}).
##
## Options: @qcode{'seeds'} (default 1:3, the explainer's seeds; the
## classifier and the targets are shared), @qcode{'preset'}
## (@qcode{'default'}; @qcode{'tiny'} is the smoke test's),
## @qcode{'datasets'} (a cell of names, default all), @qcode{'results'}
## (default @file{results/generalization}), @qcode{'out'} (where the tables
## and the figures go, default the results folder),
## @qcode{'verbose'} (true).  Every figure5 run is cached under
## @qcode{'results'}, so an interrupted suite resumes.
##
## @var{T} is a struct array, one element per data set, method and seed;
## @file{generalization.csv} holds it and @file{generalization_summary.csv}
## the median and the worst seed per data set and method.
## @end deftypefn
function T = generalization (varargin)
  here = fileparts (mfilename ('fullpath'));
  root = fileparts (fileparts (here));
  addpath (fullfile (root, 'mex'), fullfile (root, 'scripts'), fullfile (root, 'scripts', 'paper'));
  o = struct ('seeds', 1:3, 'preset', 'default', 'datasets', {all_datasets()}, ...
              'results', fullfile (root, 'results', 'generalization'), ...
              'out', '', 'verbose', true);
  for k = 1:2:numel (varargin)
    nm = lower (varargin{k});
    if (! isfield (o, nm) || k == numel (varargin))
      error ('ee:badInput', 'generalization: unknown option or missing value ''%s''', varargin{k});
    end
    o.(nm) = varargin{k+1};
  end
  if (isempty (o.out)) o.out = o.results; end
  if (ischar (o.datasets)) o.datasets = {o.datasets}; end
  bad = setdiff (o.datasets, all_datasets ());
  if (! isempty (bad))
    error ('ee:badInput', 'generalization: unknown data set ''%s'' (%s)', bad{1}, strjoin (all_datasets (), ', '));
  end
  if (! exist (o.out, 'dir')) mkdir (o.out); end
  T = [];
  t0 = time ();
  ## seed by seed, so that a suite stopped early has every data set at its first seeds
  for seed = o.seeds
    for d = o.datasets
      if (o.verbose)
        printf ('generalization: %s, seed %d (%.0f s so far)\n', d{1}, seed, time () - t0);
      end
      if (any (strcmp (d{1}, text_datasets ())))
        got = text_rows (root, d{1}, seed, o);
      else
        got = feature_rows (root, d{1}, seed, o);
      end
      T = [T, got];
      write_tables (T, o.out);       # after every run: a stopped suite keeps what it measured
    end
  end
  generalization_figure (T, o.out);
  if (o.verbose)
    printf ('generalization: done in %.0f s; %s\n', time () - t0, fullfile (o.out, 'generalization_summary.csv'));
  end
end

## (the long documents last: their SV panel costs most)
function n = all_datasets ()
  t = text_datasets ();
  n = [t(1:end-1), {'carbig', 'fisheriris', 'fashion_patches'}, t(end)];
end

function n = text_datasets ()
  n = {'sotu', 'manpage_titles', 'fortunes_de', 'fortunes_es', 'manpages'};
end

## One row of the table from a figure5 panel (its curve C: the expensive
## explainer's MSE C.curve over s, its target C.target or the panel's) and
## its equal-accuracy speed-up sp (figure5's summary row, or ee_speedup's).
function r = row_of (dataset, kind, seed, method, C, target, sp, accuracy)
  r = struct ('dataset', dataset, 'kind', kind, 'method', method, 'seed', seed, 'accuracy', accuracy, ...
              'explainer_mse', C.explainer_curve, 'floor', C.floor, 'over_floor', C.explainer_curve / C.floor, ...
              'zero_mse', mean (mean (double (target) .^ 2, 2)), 's1_mse', C.curve(1), 'crossing', sp.crossing, ...
              'lower_bound', sp.bound, 'speedup_time', sp.speedup_time, 'speedup_passes', sp.speedup_passes, ...
              'explainer_passes', C.explainer_passes);
end

## Text: both panels of figure5's own-data path on the data set, with the
## preset's defaults; the rows per split are capped alike for every data
## set (the suite must fit in an hour on 2 cores): the training and
## unlabelled rows at 10^5 tokens (200 to 2000 rows), the SV panel's
## validation rows at 3000 tokens (10 to 100 rows) and its test rows at
## 1500 (5 to 100: its curve costs s n passes per row of n tokens).
function out = text_rows (root, name, seed, o)
  file = fullfile (root, 'datasets', [name '.mat']);
  if (! exist (file, 'file'))
    error ('ee:ioError', 'generalization: %s is missing (datasets/build.sh builds it)', file);
  end
  d = load (file, 'tokens', 'split');
  len = mean (sum (d.tokens(d.split.test, :) != 1, 2));
  tiny = strcmp (o.preset, 'tiny');
  rows_by_len = @(budget, lo, hi) max (lo, min (hi, round (budget / len)));
  n = rows_by_len (1e5, 200, 2000);    # training and unlabelled rows: 10^5 tokens each at most
  ig = struct ('n_train', n, 'n_unlabelled', n, 'n_valid', 200, 'n_test', 100, 'expl', struct ('seed', seed));
  sv = struct ('n_train', n, 'n_unlabelled', n, 'n_valid', rows_by_len (3000, 10, 100), ...
               'n_test', rows_by_len (1500, 5, 100), 'expl', struct ('seed', seed));
  if (tiny)
    ig = struct ('expl', struct ('seed', seed)); sv = ig;
  end
  R = figure5 (o.preset, 'data_ig', file, 'data_sv', file, 'panels', {'ig', 'sv'}, 'ig', ig, 'sv', sv, ...
               'verbose', o.verbose, 'heatmaps', 0, 'retime', false, 'results', fullfile (o.results, o.preset), ...
               'figures', fullfile (o.out, sprintf ('%s_seed%d', name, seed)));
  out = [];
  for k = 1:numel (R.panels)
    p = R.panels(k); sp = R.summary(k);
    sp.bound = sp.lower_bound;
    out = [out, row_of(name, 'text', seed, p.method, p.curve, p.target, sp, p.test_accuracy)];
  end
end

## Feature vectors: a model, its explainer by ee_train (@f, X, 'sv') with
## the defaults (validation rows given), figure5's 'model' panel on held-out rows.
function out = feature_rows (root, name, seed, o)
  tiny = strcmp (o.preset, 'tiny');
  opts = {};
  switch (name)
    case {'carbig', 'fisheriris'}
      [X, y, regression] = statistics_data (name);
      rand ('seed', 11); idx = randperm (rows (X));
      n = rows (X); ntr = round (0.6 * n); nva = round (0.15 * n);
      tr = idx(1:ntr); va = idx(ntr+1:ntr+nva); te = idx(ntr+nva+1:end);
      net = plain_mlp (X(tr,:), y(tr), regression, 16, 3000);
      f = @(x) plain_mlp_eval (net, x);
      if (regression)
        acc = 1 - mean ((f (X(te,:)) - y(te)) .^ 2) / var (y(te), 1);
      else
        [~, pred] = max (f (X(te,:)), [], 2);
        acc = mean (pred == y(te));
      end
      opts = {'baseline', mean(X(tr,:))};
      Xtr = X(tr,:); Xva = X(va,:); Xte = X(te,:);
    case 'fashion_patches'
      d = load (fullfile (root, 'datasets', 'fashion.mat'));
      m = ee_train (struct ('kind', 'mlp', 'hidden', 128), d.x(d.split.train(1:6000), :), ...
                    d.labels(d.split.train(1:6000)), 'epochs', 3, 'seed', 1, 'verbose', false);
      te = d.split.test;
      acc = mean (ee_predict (m, d.x(te(1:2000), :)) == d.labels(te(1:2000)));
      f = @(x) mlp_logits (m, x);
      [j, i] = meshgrid (1:28, 1:28);
      groups = reshape ((ceil (i / 4) - 1) * 7 + ceil (j / 4), 1, []);
      opts = {'groups', groups};
      Xtr = double (d.x(d.split.train(6001:7000), :)); Xva = double (d.x(d.split.valid(1:100), :));
      Xte = double (d.x(te(2001:2100), :));
  end
  if (tiny)
    Xtr = Xtr(1:min (60, end), :); Xva = Xva(1:min (10, end), :); Xte = Xte(1:min (10, end), :);
  end
  E = ee_train (f, Xtr, 'sv', opts{:}, 'validation', {Xva}, 'seed', seed, 'verbose', false);
  M = struct ('f', f, 'X', Xte, 'explainer', E, 'method', 'sv', 'S', 20 - 15 * tiny, 'name', name);
  R = figure5 ('model', M, 'verbose', o.verbose, 'figures', fullfile (o.out, sprintf ('%s_seed%d', name, seed)));
  C = R.panels(1).curve;
  ## (one timed run of each s: figure5's model panel does not alternate them)
  sp = ee_speedup (struct ('mse', C.curve, 'seconds', C.seconds / C.N, 'passes', C.passes), ...
                   struct ('mse', C.explainer_curve, 'seconds', C.explainer_seconds / C.N, ...
                           'passes', C.explainer_passes));
  out = row_of (name, 'features', seed, 'sv', C, C.target, sp, acc);
end

function [X, y, regression] = statistics_data (name)
  l = pkg ('list', 'statistics');
  if (isempty (l))
    error ('ee:ioError', 'generalization: the statistics package is not installed (Debian: octave-statistics)');
  end
  d = load (fullfile (l{1}.dir, 'datasets', [name '.mat']));
  if (strcmp (name, 'carbig'))
    X = [d.Acceleration d.Cylinders d.Displacement d.Horsepower d.Weight d.Model_Year];
    y = d.MPG;
    ok = all (isfinite ([X y]), 2);
    X = X(ok,:); y = y(ok); regression = true;
  else
    X = d.meas;
    [~, ~, y] = unique (d.species);
    regression = false;
  end
end

## A one-hidden-layer tanh network trained by full-batch Adam in plain
## Octave, on its own z-scored inputs (as a user's model would be):
## squared error for a regression, softmax cross entropy for classes.
function net = plain_mlp (X, y, regression, H, iters)
  mu = mean (X); sd = std (X); sd(sd == 0) = 1;
  Z = (X - mu) ./ sd;
  C = 1; Y = y;
  if (! regression)
    C = max (y); Y = full (sparse (1:numel (y), y, 1, numel (y), C));
  end
  randn ('seed', 3);
  F = columns (X);
  p = {randn(F, H) / sqrt(F), zeros(1, H), randn(H, C) / sqrt(H), zeros(1, C)};
  if (regression) p{4} = mean (y); end
  m = cellfun (@(a) 0 * a, p, 'uniformoutput', false); v = m;
  n = rows (X);
  for it = 1:iters
    h = tanh (Z * p{1} + p{2}); out = h * p{3} + p{4};
    if (regression)
      e = (out - Y) / n;
    else
      q = exp (out - max (out, [], 2)); q ./= sum (q, 2); e = (q - Y) / n;
    end
    dh = (e * p{3}') .* (1 - h .^ 2);
    g = {Z'*dh, sum(dh, 1), h'*e, sum(e, 1)};
    for k = 1:4
      m{k} = 0.9 * m{k} + 0.1 * g{k}; v{k} = 0.999 * v{k} + 0.001 * g{k} .^ 2;
      p{k} -= 0.01 * (m{k} / (1 - 0.9 ^ it)) ./ (sqrt (v{k} / (1 - 0.999 ^ it)) + 1e-8);
    end
  end
  net = struct ('mu', mu, 'sd', sd, 'p', {p});
end

function y = plain_mlp_eval (net, x)
  y = tanh (((x - net.mu) ./ net.sd) * net.p{1} + net.p{2}) * net.p{3} + net.p{4};
end

function y = mlp_logits (m, x)
  [~, lg] = ee_predict (m, single (x));
  y = double (lg);
end

## generalization.csv (every row) and generalization_summary.csv (per data
## set and method: the median over the seeds and the worst seed)
function write_tables (T, out)
  f = {'dataset', 'kind', 'method', 'seed', 'accuracy', 'explainer_mse', 'floor', 'over_floor', 'zero_mse', ...
       's1_mse', 'crossing', 'lower_bound', 'speedup_time', 'speedup_passes', 'explainer_passes'};
  lines = {strjoin(f, ',')};
  for r = T
    lines{end+1} = sprintf ('%s,%s,%s,%d,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%d,%d,%.4g,%.4g,%.4g', r.dataset, r.kind, ...
                            r.method, r.seed, r.accuracy, r.explainer_mse, r.floor, r.over_floor, r.zero_mse, ...
                            r.s1_mse, r.crossing, r.lower_bound, r.speedup_time, r.speedup_passes, r.explainer_passes);
  end
  ee_atomic_text (fullfile (out, 'generalization.csv'), [strjoin(lines, "\n") "\n"]);
  keys = unique (cellfun (@(a, b) [a ',' b], {T.dataset}, {T.method}, 'uniformoutput', false), 'stable');
  lines = {'dataset,method,seeds,accuracy,beats_zero_and_s1,median_over_floor,worst_over_floor,median_crossing,worst_crossing,median_speedup_time,worst_speedup_time,median_speedup_passes,worst_speedup_passes'};
  for k = 1:numel (keys)
    sel = T(strcmp (cellfun (@(a, b) [a ',' b], {T.dataset}, {T.method}, 'uniformoutput', false), keys{k}));
    beats = all ([sel.explainer_mse] < [sel.zero_mse] & [sel.explainer_mse] < [sel.s1_mse]);
    lines{end+1} = sprintf ('%s,%d,%.3f,%d,%.3g,%.3g,%g,%g,%.3g,%.3g,%.3g,%.3g', keys{k}, numel (sel), ...
                            median ([sel.accuracy]), beats, median ([sel.over_floor]), max ([sel.over_floor]), ...
                            median ([sel.crossing]), min ([sel.crossing]), median ([sel.speedup_time]), ...
                            min ([sel.speedup_time]), median ([sel.speedup_passes]), min ([sel.speedup_passes]));
  end
  ee_atomic_text (fullfile (out, 'generalization_summary.csv'), [strjoin(lines, "\n") "\n"]);
end
