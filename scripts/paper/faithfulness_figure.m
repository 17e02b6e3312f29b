## -*- texinfo -*-
## @deftypefn  {} {@var{R} =} faithfulness_figure ()
## @deftypefnx {} {@var{R} =} faithfulness_figure (@var{preset})
## @deftypefnx {} {@var{R} =} faithfulness_figure (@var{preset}, @var{name}, @var{value}, @dots{})
## Faithfulness against cost: for the classifier of each dataset of
## Figure 5's @var{preset} (default @qcode{'default'}), every attribution
## method of the project on the same test rows, with ERASER
## comprehensiveness (higher is more faithful), sufficiency and the
## deletion area (lower is more faithful) of its maps
## (@code{ee_faithfulness}) over its wall seconds per explanation (log
## scale).
##
## The methods: IG at a few s (@code{ee_ig}), Shapley Value Sampling at a
## few s (@code{ee_sv}), the gradient maps of @code{ee_gradient}
## (saliency, signed, absolute and L2, gradient x input, SmoothGrad of the
## saliency, GradientSHAP with the dataset's other test rows as its
## background, and DeepLIFT where the classifier is a cnn or an mlp: it is
## not defined on the transformer), feature ablation and occlusion of
## windows of tokens (@code{ee_occlusion}), KernelSHAP (@code{ee_sv}'s
## @qcode{'kernelshap'}) and LIME (@code{ee_lime}) at a few coalition
## counts (m coalitions per player: max(ceil(m n), n + 16) for a row of n
## real tokens, so that the fit is determined on long rows and short rows
## are not starved; a row per call, KernelSHAP exact where that reaches
## all 2^n - 2 coalitions), the panel's Empirical Explainer(s) (@code{ee_explain}) and a
## random map (the dashed line: no cost).  A method's sample counts are
## joined by a line.  The classifiers, the test
## rows and the explainers come from Figure 5's results
## (@file{results/<preset>/figure5.mat} and the cache beside it, of
## @code{figure5}/@code{main_job}; run first when missing): a panel's
## explainer is the cached model whose maps of the test rows are that
## run's (a warning, and that run's maps and timing, when none is).  Every
## method is timed here, one call over the rows after a warm-up pass, so
## the seconds of one figure come from one machine and one load.
##
## Writes @file{faithfulness.png}, @file{.pdf}, @file{.svg} (through
## @code{ee_save_figure}) and @file{faithfulness.csv} (one row per
## dataset and method: family, s, rows, passes and seconds per
## explanation, the means of comprehensiveness, sufficiency, deletion and
## insertion areas) into the figures folder.
##
## Options (name/value):
## @table @asis
## @item 'rows'
## test rows per dataset (default 20; the first of Figure 5's test subset).
## @item 'ig_steps', 'sv_samples'
## the s of IG (default [2 5 20]) and of SV (default [1 3 10]).
## @item 'noise_samples'
## samples of SmoothGrad and GradientSHAP (default 10).
## @item 'kernelshap_samples', 'lime_samples'
## m, the coalitions per player of KernelSHAP and of LIME (default
## [1.5 3] each, about the passes of SV at s = 1.5 and 3; [] leaves the
## method out).
## @item 'occlusion_window'
## the tokens per occluded window, stride 1 (default 3; 0 leaves it out);
## feature ablation (window 1) is always drawn.
## @item 'seed'
## of SV, the noise and the random map (default 1).
## @item 'results', 'figures'
## folders (defaults @file{results/<preset>} and @file{figures}).
## @item 'verbose'
## progress lines (default true).
## @end table
##
## @var{R}.rows is the table of the CSV (a struct array), @var{R}.files the
## files written, @var{R}.seconds the run time.
## @seealso{ee_faithfulness, figure5, ee_save_figure}
## @end deftypefn

function R = faithfulness_figure (varargin)
  t_start = tic ();
  root = fileparts (fileparts (fileparts (mfilename ('fullpath'))));   # the checkout: scripts/paper/ is two below it
  addpath (fullfile (root, 'mex'), fullfile (root, 'scripts'));   # the gateways and the toolbox
  me = 'faithfulness_figure';
  P = struct ('preset', 'default', 'rows', 20, 'ig_steps', [2 5 20], 'sv_samples', [1 3 10], ...
              'noise_samples', 10, 'kernelshap_samples', [1.5 3], 'lime_samples', [1.5 3], ...
              'occlusion_window', 3, 'seed', 1, 'results', '', 'figures', fullfile (root, 'figures'), 'verbose', true);
  args = varargin;
  if (mod (numel (args), 2) == 1)
    if (! ischar (args{1}))
      error ('ee:badInput', '%s: the preset must be a name (default, tiny, full)', me);
    end
    P.preset = args{1};
    args = args(2:end);
  end
  P = ee_options (P, args, me);
  if (isempty (P.results))
    P.results = fullfile (root, 'results', P.preset);
  end
  if (! (isscalar (P.rows) && P.rows >= 1 && P.rows == fix (P.rows)))
    error ('ee:badInput', '%s: ''rows'' must be a positive integer', me);
  end
  for nm = {'kernelshap_samples', 'lime_samples'}
    v = P.(nm{1});
    if (! (isnumeric (v) && isreal (v) && (isempty (v) || isvector (v)) && all (v > 0 & v < 1e6)))
      error ('ee:badInput', '%s: ''%s'' must be a list of numbers > 0 (coalitions per player)', me, nm{1});
    end
  end
  w = P.occlusion_window;
  if (! (isnumeric (w) && isreal (w) && isscalar (w) && w >= 0 && w == fix (w)))
    error ('ee:badInput', '%s: ''occlusion_window'' must be a whole number >= 0 (0: no occlusion)', me);
  end
  f5 = fullfile (P.results, 'figure5.mat');
  if (exist (f5, 'file') != 2)
    say (P, '%s: no %s; running figure5 (''%s'') first\n', me, f5, P.preset);
    figure5 (P.preset, 'results', P.results, 'figures', P.figures, 'verbose', P.verbose);
  end
  z = load (f5);
  panels = z.R.panels;
  dsets = unique ({panels.dataset}, 'stable');
  T = struct ([]);
  for k = 1:numel (dsets)
    T = [T, dataset_rows(P, panels(strcmp ({panels.dataset}, dsets{k})))];
  end
  R = struct ('preset', P.preset, 'settings', P, 'rows', T);
  R.files = ee_draw_figure (P.figures, 'faithfulness', 1500, 420 * numel (dsets), ...
                            @(fig) draw (T, dsets), {'.png', '.pdf', '.svg'});
  R.files{end+1} = write_csv (P, T);
  R.seconds = toc (t_start);
  say (P, '== %s done in %.1f s: %s\n', me, R.seconds, R.files{1});
end

## Every method on the first rows of the dataset's test subset.
function T = dataset_rows (P, ps)
  p1 = ps(1);
  ds = p1.dataset;
  cf = fullfile (P.results, ds, ['classifier_' p1.keys.classifier '.mat']);
  c = load (cf);
  clf = c.v.model;
  n = min (P.rows, rows (p1.X));
  X = p1.X(1:n, :);
  bg = p1.X(n+1:end, :);
  if (isempty (bg))
    bg = X;
  end
  say (P, '\n== %s: %s classifier, %d test rows\n', ds, clf.kind, n);
  ee_predict (clf, X(1, :));                        # warm-up: threads, pages
  M = {};
  for s = P.ig_steps
    M(end+1, :) = {sprintf('IG s=%d', s), 'ig', s, @() ee_ig (clf, X, 'steps', s, 'verbose', false)};
  end
  for s = P.sv_samples
    M(end+1, :) = {sprintf('SV s=%d', s), 'sv', s, @() ee_sv (clf, X, 'samples', s, 'seed', P.seed, 'verbose', false)};
  end
  for m = {'saliency', 'saliency_abs', 'saliency_l2', 'gradxinput'}
    M(end+1, :) = {m{1}, 'gradient', 1, @() ee_gradient (clf, X, 'method', m{1}, 'verbose', false)};
  end
  ns = P.noise_samples;
  M(end+1, :) = {sprintf('SmoothGrad n=%d', ns), 'gradient', ns, ...
                 @() ee_gradient (clf, X, 'method', 'saliency', 'noise', 'smoothgrad', 'samples', ns, ...
                                  'seed', P.seed, 'verbose', false)};
  M(end+1, :) = {sprintf('GradientSHAP n=%d', ns), 'gradient', ns, ...
                 @() ee_gradient (clf, X, 'method', 'gradientshap', 'background', bg, 'samples', ns, ...
                                  'seed', P.seed, 'verbose', false)};
  if (! strcmp (clf.kind, 'transformer'))   # DeepLIFT's rescale rule is defined on the cnn and the mlp
    M(end+1, :) = {'DeepLIFT', 'gradient', 1, @() ee_gradient (clf, X, 'method', 'deeplift', 'verbose', false)};
  end
  M(end+1, :) = {'feature ablation', 'occlusion', 1, @() ee_occlusion (clf, X, 'verbose', false)};
  if (P.occlusion_window > 1)
    w = P.occlusion_window;
    M(end+1, :) = {sprintf('occlusion w=%d', w), 'occlusion', w, ...
                   @() ee_occlusion (clf, X, 'window', w, 'stride', 1, 'verbose', false)};
  end
  for s = P.kernelshap_samples(:)'
    M(end+1, :) = {sprintf('KernelSHAP m=%g', s), 'kernelshap', s, ...
                   @() per_row (X, s, @(i, k) ee_sv (clf, X, 'rows', i, 'method', 'kernelshap', 'samples', k, ...
                                                     'seed', P.seed, 'verbose', false))};
  end
  for s = P.lime_samples(:)'
    M(end+1, :) = {sprintf('LIME m=%g', s), 'lime', s, ...
                   @() per_row (X, s, @(i, k) ee_lime (clf, X, 'rows', i, 'samples', k, 'seed', P.seed, ...
                                                       'verbose', false))};
  end
  T = struct ([]);
  for j = 1:rows (M)
    t0 = tic ();
    [A, info] = M{j, 4} ();
    sec = toc (t0) / n;
    T = [T, measure(P, clf, X, A, ds, M{j, 1}, M{j, 2}, M{j, 3}, info.passes / n, sec)];
  end
  ## the Empirical Explainers of the dataset's panels, on the same rows
  for q = ps
    if (! isequal (q.X(1:n, :), X))
      warning ('ee:notSupported', 'faithfulness_figure: the %s panel''s test rows differ; its explainer is left out', ...
               q.name);
      continue;
    end
    name = sprintf ('Empirical Explainer (%s)', upper (q.method));
    ex = panel_explainer (P, q, X);
    if (isempty (ex))                  # not found: figure5's maps and timing
      warning ('ee:notSupported', ['faithfulness_figure: the %s panel''s explainer is not among its cached ' ...
               'models; its maps and seconds are those of the figure5 run'], q.name);
      C = q.curve;
      T = [T, measure(P, clf, X, q.empirical(1:n, :), ds, name, 'explainer', 1, C.explainer_passes, ...
                      C.explainer_seconds / rows (q.X))];
      continue;
    end
    ee_explain (ex, X(1, :));           # warm-up, as for the others
    t0 = tic ();
    [A, info] = ee_explain (ex, X);
    sec = toc (t0) / n;
    T = [T, measure(P, clf, X, A, ds, name, 'explainer', 1, info.passes / n, sec)];
  end
  old = rand ('state');
  rand ('state', P.seed);
  A = rand (size (X));
  rand ('state', old);
  T = [T, measure(P, clf, X, A, ds, 'random map', 'random', 0, 0, 0)];
end

## A coalition method with m coalitions per player: row i of X alone with
## max(ceil(m n), n + 16) coalitions, n its real tokens (its own stream,
## keyed by the row, as in one call); the passes summed.
function [A, info] = per_row (X, m, run)
  A = zeros (size (X), 'single');
  passes = 0;
  for i = 1:rows (X)
    if (isinteger (X))                 # the players: the real tokens (not PAD, [CLS], [SEP])
      n = sum (X(i,:) != 1 & X(i,:) != 3 & X(i,:) != 4);
    else                               # an mlp's features
      n = columns (X);
    end
    [A(i,:), q] = run (i, max (ceil (m * n), n + 16));
    passes += q.passes;
  end
  info = struct ('passes', passes);
end

## The panel's Empirical Explainer: the model among the cached explainers
## and students of its folder whose maps of the first rows are figure5's
## (its maps of the test rows, q.empirical), so that it is timed here
## like every other method; [] when none is.
function ex = panel_explainer (P, q, X)
  ex = [];
  dir_ = fullfile (P.results, [q.dataset '_' q.method]);
  m = min (2, rows (X));
  want = double (q.empirical(1:m, :));
  for f = [dir(fullfile (dir_, 'student_*.mat')); dir(fullfile (dir_, 'explainer_*.mat'))]'
    z = load (fullfile (dir_, f.name));
    if (! (isfield (z, 'v') && isfield (z.v, 'model')))
      continue;
    end
    try
      A = double (ee_explain (z.v.model, X(1:m, :)));
    catch
      continue;                        # a model these rows do not fit
    end
    if (isequal (size (A), size (want)) && max (abs (A(:) - want(:))) <= 1e-6 * max (1, max (abs (want(:)))))
      ex = z.v.model;
      return;
    end
  end
end

function r = measure (P, clf, X, A, ds, name, family, s, passes, sec)
  F = ee_faithfulness (clf, X, A, 'verbose', false);
  m = @(v) mean (v(! isnan (v)));
  r = struct ('dataset', ds, 'method', name, 'family', family, 's', s, 'n_rows', rows (X), ...
              'passes', passes, 'seconds', sec, 'comprehensiveness', m (F.comprehensiveness), ...
              'sufficiency', m (F.sufficiency), 'deletion_auc', m (F.deletion_auc), ...
              'insertion_auc', m (F.insertion_auc));
  say (P, '%-28s %8.1f passes %9.4f s  comp %.3f  suff %.3f  del %.3f\n', name, passes, sec, ...
          r.comprehensiveness, r.sufficiency, r.deletion_auc);
end

function f = write_csv (P, T)
  f = fullfile (P.figures, 'faithfulness.csv');
  txt = ['dataset,method,family,s,n_rows,passes_per_explanation,seconds_per_explanation,' ...
         'comprehensiveness,sufficiency,deletion_auc,insertion_auc' "\n"];
  for r = T
    txt = [txt, sprintf('%s,%s,%s,%g,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n', r.dataset, r.method, r.family, r.s, ...
                        r.n_rows, r.passes, r.seconds, r.comprehensiveness, r.sufficiency, r.deletion_auc, ...
                        r.insertion_auc)];
  end
  ee_atomic_text (f, txt, 'faithfulness_figure');
end

## A row of three axes per dataset: comprehensiveness, sufficiency and the
## deletion area over the seconds per explanation.
function draw (T, dsets)
  what = {'comprehensiveness', 'sufficiency', 'deletion_auc'};
  ttl = {'comprehensiveness (higher: more faithful)', 'sufficiency (lower: more faithful)', ...
         'deletion AUC (lower: more faithful)'};
  colour = struct ('ig', [0 0.35 0.75], 'sv', [0.8 0.15 0.1], 'gradient', [0.1 0.55 0.2], ...
                   'occlusion', [0.55 0.3 0.65], 'kernelshap', [0.9 0.5 0], 'lime', [0 0.6 0.65], ...
                   'explainer', [0 0 0], 'random', [0.45 0.45 0.45]);
  marker = struct ('ig', 'o', 'sv', 's', 'gradient', '^', 'occlusion', 'v', 'kernelshap', 'd', 'lime', 'h', ...
                   'explainer', 'p', 'random', 'none');
  nd = numel (dsets);
  for k = 1:nd
    D = T(strcmp ({T.dataset}, dsets{k}));
    timed = D([D.seconds] > 0);
    xl = [min([timed.seconds]) / 3, max([timed.seconds]) * 3];
    for c = 1:3
      ax = axes ('position', [0.06 + (c - 1) * 0.325, 1 - k / nd + 0.13 / nd, 0.27, 0.72 / nd]);
      hold (ax, 'on');
      y = [D.(what{c})];
      for fam = {'ig', 'sv', 'kernelshap', 'lime'}   # the sample counts of one method, joined
        J = strcmp ({D.family}, fam{1});
        if (any (J))
          plot (ax, [D(J).seconds], y(J), '-', 'color', colour.(fam{1}), 'linewidth', 1);
        end
      end
      for j = 1:numel (D)
        f = D(j).family;
        if (strcmp (f, 'random'))
          plot (ax, xl, [y(j) y(j)], '--', 'color', colour.random, 'linewidth', 1);
          text (ax, xl(1) * 1.2, y(j), 'random map', 'color', colour.random, 'fontsize', 8, ...
                'verticalalignment', 'bottom');
          continue;
        end
        plot (ax, D(j).seconds, y(j), marker.(f), 'color', colour.(f), 'markerfacecolor', colour.(f), ...
              'markersize', ifelse (strcmp (f, 'explainer'), 11, 6));
        text (ax, D(j).seconds * ifelse (strcmp (f, 'explainer'), 1.5, 1.25), y(j), strrep (D(j).method, 'Empirical Explainer', 'EE'), ...
              'fontsize', 7, 'color', colour.(f), 'interpreter', 'none');
      end
      set (ax, 'xscale', 'log', 'xlim', xl, 'box', 'on', 'fontsize', 9);
      if (k == nd)
        xlabel (ax, 'wall seconds per explanation', 'fontsize', 10);
      end
      title (ax, sprintf ('%s: %s', dsets{k}, ttl{c}), 'fontsize', 10, 'interpreter', 'none');
    end
  end
end
