## -*- texinfo -*-
## @deftypefn  {} {@var{R} =} figure5 ()
## @deftypefnx {} {@var{R} =} figure5 (@var{preset})
## @deftypefnx {} {@var{R} =} figure5 (@var{preset}, @var{name}, @var{value}, @dots{})
## @deftypefnx {} {@var{R} =} figure5 (@var{name}, @var{value}, @dots{})
## Reproduce Figure 5 of "Efficient Explanations from Empirical Explainers".
##
## For each panel (IG on @file{datasets/spam.mat}, SV on
## @file{datasets/fortunes.mat}) it trains the classifier, generates the
## expensive target maps (IG s = 20 / SV s = 20) for subsets of the
## train/valid/test splits, trains the Empirical Explainer on them, computes
## the convergence curve of the expensive explainer on the test subset
## (@code{ee_convergence}) and writes into the figures folder:
## @file{figure5.png}, @file{.pdf}, @file{.svg}, @file{figure5.csv}, the
## heatmaps @file{heatmap_<dataset>_<k>.png}, @file{heatmaps_<dataset>.html}
## and the runtime report @file{runtime_<preset>.txt}.  Everything computed
## is cached under the results folder, keyed by the settings it depends on.
##
## Presets: @qcode{'default'} (fits in about 25 minutes on 2 cores),
## @qcode{'tiny'} (seconds, the smoke test), @qcode{'full'} (whole splits,
## about half an hour on an idle machine).  See doc/FIGURE5.md for sizes.
##
## Options (name/value):
## @table @asis
## @item 'preset'
## as above.
## @item 'data_ig', 'data_sv'
## .mat files in the layout of datasets/*.mat for the IG / SV panel.
## @item 'kind'
## classifier kind, @qcode{'transformer'} (default) or @qcode{'cnn'} (the
## explainer is then built on a transformer backbone trained on the same
## data, since explainer heads exist for transformers only).
## @item 'head'
## explainer head: @qcode{'token'} (the presets' choice: it generalises far
## better from a few thousand maps) or @qcode{'flat'} (the paper's design,
## the gateway's default).
## @item 'panels'
## @code{@{'ig', 'sv'@}} (default) or one of them.
## @item 'ig', 'sv'
## a struct of per-panel overrides, merged into the preset's settings
## (e.g. @code{struct ('n_train', 800, 'expl', struct ('epochs', 40))}).
## @item 'results', 'figures'
## folders (defaults @file{results/<preset>} and @file{figures} in the
## repository).
## @item 'heatmaps'
## number of heatmap PNGs per dataset (default 3).
## @item 'verbose'
## progress lines (default true).
## @end table
##
## @var{R} holds the settings, per panel the curves, crossing points,
## runtime report and cache keys, and the paths of the written files.
## @seealso{ee_convergence, ee_heatmap, ee_heatmap_html, main_job}
## @end deftypefn

function R = figure5 (varargin)
  t_start = tic ();
  root = fileparts (fileparts (mfilename ('fullpath')));
  addpath (fullfile (root, 'mex'));
  P = settings_from_args (root, varargin);
  say (P, '== figure5: preset ''%s'', results in %s, figures in %s\n', P.preset, P.results, P.figures);
  ensure_dir (P.results);
  ensure_dir (P.figures);

  R = struct ('preset', P.preset, 'settings', P, 'panels', struct ([]), 'files', {{}});
  for k = 1:numel (P.panels)
    S = run_panel (P, P.(P.panels{k}));
    if (isempty (R.panels))
      R.panels = S;
    else
      R.panels(end+1) = S;
    end
  end

  R.compute_seconds = toc (t_start);
  ## outputs
  files = {};
  files = [files, write_figure(P, R.panels)];
  files{end+1} = write_csv (P, R.panels);
  [txt, f] = write_runtime (P, R.panels);
  files{end+1} = f;
  R.runtime_text = txt;
  for k = 1:numel (R.panels)
    files = [files, write_heatmaps(P, R.panels(k))];
  end
  R.files = files;
  R.seconds = toc (t_start);
  res = rmfield (R, 'settings'); res.settings = P;  # keep the struct loadable
  atomic_save (fullfile (P.results, 'figure5.mat'), struct ('R', res));
  say (P, '\nruntime report: %s\n', f);
  for k = 1:numel (R.panels)
    p = R.panels(k);
    say (P, '%s: explainer MSE %.4g; expensive MSE at s = 1, 2, 5, 10: %s; crossing s = %s\n', ...
         upper (p.method), p.curve.explainer_curve, ...
         sprintf ('%.4g ', p.curve.curve([1 2 5 10](p.S > [1 2 5 10]))), num2str (p.curve.crossing));
  end
  say (P, '== figure5 done in %.1f s; figure: %s\n', R.seconds, files{1});
end

## ------------------------------------------------------------------ settings

function P = presets (root, name)
  tr = struct ('kind', 'transformer', 'd', 64, 'heads', 4, 'layers', 2, 'ffn', 256);
  cnn = struct ('kind', 'cnn', 'd', 64, 'filters', 100, 'widths', [3 4 5]);
  ## default: fits in about 25 minutes on 2 cores (about 10-15 minutes when
  ## the machine is not shared); see doc/FIGURE5.md
  ig = struct ('method', 'ig', 'data', fullfile (root, 'datasets', 'spam.mat'), ...
               'kind', 'transformer', 'models', struct ('transformer', tr, 'cnn', cnn), ...
               'clf', struct ('n_train', 2000, 'n_valid', 300, 'epochs', 3, 'lr', 1e-3, ...
                              'patience', 1, 'seed', 1), ...
               'n_train', Inf, 'n_valid', 200, 'n_test', 150, 'S', 20, ...
               'ig_method', 'gausslegendre', 'seed', 1, ...
               'expl', struct ('head', 'token', 'epochs', 40, 'lr', 1e-3, 'batch', 128, ...
                               'patience', 10, 'seed', 1, 'scale', 'std'));
  sv = ig;
  sv.method = 'sv';
  sv.data = fullfile (root, 'datasets', 'fortunes.mat');
  sv.clf = struct ('n_train', Inf, 'n_valid', Inf, 'epochs', 10, 'lr', 1e-3, 'patience', 3, 'seed', 1);
  sv.n_train = Inf; sv.n_valid = Inf; sv.n_test = 150;
  sv.expl.epochs = 100; sv.expl.lr = 3e-4; sv.expl.batch = 16;
  heatmaps = 3;
  switch (name)
    case 'default'
    case 'tiny'
      small = struct ('kind', 'transformer', 'd', 16, 'heads', 2, 'layers', 1, 'ffn', 32);
      smallc = struct ('kind', 'cnn', 'd', 16, 'filters', 8, 'widths', [3 4]);
      pan = {ig, sv};
      for k = 1:2
        q = pan{k};
        q.models = struct ('transformer', small, 'cnn', smallc);
        q.clf = struct ('n_train', 150, 'n_valid', 30, 'epochs', 2, 'lr', 1e-2, 'patience', 1, 'seed', 1);
        q.n_train = 24; q.n_valid = 8; q.n_test = 6; q.S = 5;
        q.expl.epochs = 2; q.expl.patience = 2; q.expl.batch = 8;
        pan{k} = q;
      end
      [ig, sv] = pan{:};
      heatmaps = 1;
    case 'full'
      ig.clf = struct ('n_train', Inf, 'n_valid', Inf, 'epochs', 10, 'lr', 5e-4, 'patience', 3, 'seed', 1);
      ig.n_train = Inf; ig.n_valid = Inf; ig.n_test = Inf;
      sv.n_test = Inf;
    otherwise
      error ('ee:badInput', 'figure5: unknown preset ''%s'' (default, tiny, full)', name);
  end
  P = struct ('preset', name, 'panels', {{'ig', 'sv'}}, 'ig', ig, 'sv', sv, ...
              'results', fullfile (root, 'results', name), 'figures', fullfile (root, 'figures'), ...
              'heatmaps', heatmaps, 'verbose', true, 'root', root);
end

function P = settings_from_args (root, args)
  preset = 'default';
  if (! isempty (args) && mod (numel (args), 2) == 1)
    preset = args{1};
    args = args(2:end);
  end
  for k = 1:2:numel (args)
    if (strcmpi (args{k}, 'preset'))
      preset = args{k+1};
    end
  end
  if (! ischar (preset))
    error ('ee:badInput', 'figure5: the preset must be a name');
  end
  P = presets (root, lower (preset));
  results_given = false;
  for k = 1:2:numel (args)
    name = args{k};
    if (! ischar (name))
      error ('ee:badInput', 'figure5: options come in name/value pairs');
    end
    v = args{k+1};
    switch (lower (name))
      case 'preset'
      case 'data_ig'
        P.ig.data = v;
      case 'data_sv'
        P.sv.data = v;
      case 'kind'
        if (! any (strcmp (v, {'transformer', 'cnn'})))
          error ('ee:badInput', 'figure5: ''kind'' must be ''transformer'' or ''cnn''');
        end
        P.ig.kind = v; P.sv.kind = v;
      case 'head'
        P.ig.expl.head = v; P.sv.expl.head = v;
      case 'panels'
        if (ischar (v)) v = {v}; end
        if (! all (ismember (v, {'ig', 'sv'})))
          error ('ee:badInput', 'figure5: ''panels'' must list ''ig'' and/or ''sv''');
        end
        P.panels = v;
      case {'ig', 'sv'}
        if (! isstruct (v))
          error ('ee:badInput', 'figure5: ''%s'' takes a struct of overrides', name);
        end
        P.(lower (name)) = merge_struct (P.(lower (name)), v);
      case 'results'
        P.results = v; results_given = true;
      case 'figures'
        P.figures = v;
      case 'heatmaps'
        P.heatmaps = v;
      case 'verbose'
        P.verbose = logical (v);
      otherwise
        error ('ee:badInput', 'figure5: unknown option ''%s''', name);
    end
  end
  for p = {'ig', 'sv'}
    if (! exist (P.(p{1}).data, 'file'))
      error ('ee:badInput', 'figure5: no data file %s', P.(p{1}).data);
    end
  end
end

function a = merge_struct (a, b)
  for f = fieldnames (b)'
    if (isfield (a, f{1}) && isstruct (a.(f{1})) && isstruct (b.(f{1})))
      a.(f{1}) = merge_struct (a.(f{1}), b.(f{1}));
    else
      a.(f{1}) = b.(f{1});
    end
  end
end

## -------------------------------------------------------------- one panel

function S = run_panel (P, q)
  t_panel = tic ();
  d = load (q.data);
  [~, dsname] = fileparts (q.data);
  dir = fullfile (P.results, [dsname '_' q.method]);
  ensure_dir (dir);
  vocab = numel (d.vocab);
  nm = upper (q.method);
  say (P, '\n== %s panel: %s (%s), kind %s\n', nm, dsname, q.data, q.kind);

  ## data identity: the file's bytes
  data_md5 = hash ('md5', fileread (q.data));

  ## subsets: evenly spaced rows of each split (deterministic, spread over
  ## the source order, which is grouped by class)
  tr = pick (d.split.train, q.clf.n_train);
  va = pick (d.split.valid, q.clf.n_valid);
  sub.train = pick (d.split.train, q.n_train);
  sub.valid = pick (d.split.valid, q.n_valid);
  sub.test = pick (d.split.test, q.n_test);

  ## 1. the classifier
  spec = q.models.(q.kind);
  ck = key ({'classifier', data_md5, spec, q.clf, vocab, numel(d.classes)});
  hits = struct ();
  [clf, hits.classifier] = cached (P, fullfile (dir, ['classifier_' ck '.mat']), 'classifier', ...
                @() train_classifier (P, spec, q.clf, d, tr, va, vocab));
  say (P, '%s classifier %s: test accuracy %.4f (%d train rows, best epoch %d, %.0f s)\n', ...
       dsname, q.kind, clf.test_accuracy, numel (tr), clf.model.history.best_epoch, clf.seconds);

  ## the explainer's backbone (a transformer; the classifier itself if it is one)
  if (strcmp (q.kind, 'transformer'))
    bb = clf; bk = ck;
  else
    bspec = q.models.transformer;
    bk = key ({'classifier', data_md5, bspec, q.clf, vocab, numel(d.classes)});
    bb = cached (P, fullfile (dir, ['classifier_' bk '.mat']), 'backbone transformer', ...
                 @() train_classifier (P, bspec, q.clf, d, tr, va, vocab));
  end

  ## 2. the targets (expensive explainer at s = S)
  expl_desc = struct ('method', q.method, 'S', q.S, 'ig_method', q.ig_method, 'seed', q.seed);
  tk = struct ();
  tg = struct ();
  for part = {'train', 'valid', 'test'}
    p = part{1};
    tk.(p) = key ({'targets', ck, expl_desc, p, sub.(p)});
    file = fullfile (dir, ['targets_' p '_' tk.(p) '.mat']);
    X = d.tokens(sub.(p), :);
    [tg.(p), hits.(['targets_' p])] = cached (P, file, sprintf ('%s targets (%s, %d rows)', nm, p, numel (sub.(p))), ...
                     @() make_targets (P, clf.model, X, q, file, ! strcmp (p, 'test')));
  end

  ## 3. the Empirical Explainer
  ek = key ({'explainer', bk, tk.train, tk.valid, q.expl});
  [ex, hits.explainer] = cached (P, fullfile (dir, ['explainer_' ek '.mat']), 'Empirical Explainer', ...
               @() train_explainer (P, bb.model, d, sub, tg, q, dsname));
  say (P, '%s explainer (%s head): best epoch %d of %d, validation MSE %.4g, %.0f s\n', ...
       nm, q.expl.head, ex.model.history.best_epoch, ex.model.history.epochs_run, ...
       min (ex.model.history.valid_mse), ex.seconds);

  ## 4. the convergence curve of the expensive explainer on the test
  ## subset (it depends on the classifier and the test targets only)
  vk = key ({'curve', tk.test});
  cfile = fullfile (dir, ['curve_' vk '.mat']);
  Xte = d.tokens(sub.test, :);
  [cv, hits.curve] = cached (P, cfile, sprintf ('%s convergence curve (%d test rows, s = 1..%d)', nm, rows (Xte), q.S), ...
               @() struct ('C', ee_convergence (clf.model, Xte, q.method, q.S, ...
                            'method', q.ig_method, 'seed', q.seed, ...
                            'target', tg.test.A, 'target_info', tg.test.info, ...
                            'checkpoint', [cfile '.partial'], 'verbose', P.verbose)));
  if (exist ([cfile '.partial'], 'file'))
    delete ([cfile '.partial']);
  end
  C = cv.C;

  ## 5. the Empirical Explainer's line: its MSE to the same targets, computed
  ## the same way (per sequence over all T positions); timed for the report
  t0 = tic ();
  [E, einfo] = ee_explain (ex.model, Xte);
  emp_seconds = toc (t0);
  C.explainer_mse = mean ((double (E) - double (C.target)) .^ 2, 2);
  C.explainer_curve = mean (C.explainer_mse);
  C.explainer_quartiles = quantiles3 (C.explainer_mse);
  C.explainer_passes = einfo.passes / rows (Xte);
  C.explainer_seconds = emp_seconds;
  C.crossing = find (C.curve < C.explainer_curve, 1);
  if (isempty (C.crossing))
    C.crossing = NaN;
  end
  say (P, '%s: Empirical Explainer MSE %.4g (median %.4g); expensive %s MSE at s = 1: %.4g, s = %d: %.4g; crossing at s = %s\n', ...
       nm, C.explainer_curve, median (C.explainer_mse), nm, C.curve(1), min (5, q.S), C.curve(min (5, q.S)), ...
       num2str (C.crossing));

  S = struct ();
  S.method = q.method;
  S.name = nm;
  S.dataset = dsname;
  S.data = q.data;
  S.kind = q.kind;
  S.spec = spec;
  S.settings = q;
  S.S = q.S;
  S.subsets = sub;
  S.n = struct ('clf_train', numel (tr), 'clf_valid', numel (va), 'train', numel (sub.train), ...
                'valid', numel (sub.valid), 'test', numel (sub.test));
  S.T = columns (d.tokens);
  S.cache_hits = hits;
  S.keys = struct ('classifier', ck, 'backbone', bk, 'targets', tk, 'explainer', ek, 'curve', vk);
  S.test_accuracy = clf.test_accuracy;
  S.classifier_seconds = clf.seconds;
  S.curve = C;
  S.X = Xte;
  S.labels = d.labels(sub.test);
  S.vocab = d.vocab;
  S.classes = d.classes;
  S.target = tg.test.A;
  S.target_class = tg.test.info.target;
  S.empirical = E;
  S.explainer_head = q.expl.head;
  S.explainer_epochs = ex.model.history.epochs_run;
  S.explainer_best_epoch = ex.model.history.best_epoch;
  S.explainer_scale = ex.scale;

  ## runtime report (seconds as measured when each item was computed)
  rt = struct ();
  for p = {'train', 'valid', 'test'}
    rt.(['targets_' p{1} '_seconds']) = tg.(p{1}).info.seconds;
    rt.(['targets_' p{1} '_passes']) = tg.(p{1}).info.passes;
  end
  rt.targets_seconds = rt.targets_train_seconds + rt.targets_valid_seconds + rt.targets_test_seconds;
  rt.targets_passes = rt.targets_train_passes + rt.targets_valid_passes + rt.targets_test_passes;
  rt.explainer_seconds = ex.seconds;
  h = ex.model.history;
  rt.explainer_passes = h.epochs_run * (2 * numel (sub.train) + numel (sub.valid));
  rt.empirical_seconds = emp_seconds;
  rt.empirical_passes = einfo.passes;
  rt.n_test = numel (sub.test);
  rt.expensive_seconds_per = rt.targets_test_seconds / rt.n_test;
  rt.expensive_passes_per = rt.targets_test_passes / rt.n_test;
  rt.empirical_seconds_per = emp_seconds / rt.n_test;
  rt.empirical_passes_per = einfo.passes / rt.n_test;
  rt.build_seconds = rt.targets_train_seconds + rt.targets_valid_seconds + rt.explainer_seconds;
  rt.build_passes = rt.targets_train_passes + rt.targets_valid_passes + rt.explainer_passes;
  rt.break_even_seconds = rt.build_seconds / (rt.expensive_seconds_per - rt.empirical_seconds_per);
  rt.break_even_passes = rt.build_passes / (rt.expensive_passes_per - rt.empirical_passes_per);
  if (rt.break_even_seconds < 0) rt.break_even_seconds = Inf; end
  if (rt.break_even_passes < 0) rt.break_even_passes = Inf; end
  rt.classifier_seconds = clf.seconds;
  rt.curve_seconds = sum (C.seconds(! isnan (C.seconds)));
  S.runtime = rt;
  S.seconds = toc (t_panel);
end

## 25th, 50th, 75th percentile of a column (as ee_convergence's quartiles)
function q = quantiles3 (v)
  v = sort (v(! isnan (v)));
  n = numel (v);
  q = NaN (3, 1);
  for k = 1:3
    p = 1 + (n - 1) * k / 4;
    lo = floor (p); hi = ceil (p);
    q(k) = v(lo) + (p - lo) * (v(hi) - v(lo));
  end
end

function idx = pick (split, n)
  split = double (split(:));
  if (isinf (n) || n >= numel (split))
    idx = split;
  else
    idx = split(unique (round (linspace (1, numel (split), n))));
  end
end

function r = train_classifier (P, spec, o, d, tr, va, vocab)
  t0 = tic ();
  m = ee_train (spec, d.tokens(tr,:), d.labels(tr), 'validation', {d.tokens(va,:), d.labels(va)}, ...
                'vocab', vocab, 'classes', numel (d.classes), 'epochs', o.epochs, 'lr', o.lr, ...
                'patience', o.patience, 'seed', o.seed, 'verbose', P.verbose);
  r.seconds = toc (t0);
  r.model = m;
  te = d.split.test;
  r.test_accuracy = mean (ee_predict (m, d.tokens(te,:)) == d.labels(te));
end

## The expensive explainer on X: for train/valid in chunks of rows with a
## partial file, so that an interrupted run resumes; the test subset in one
## call (the convergence curve reproduces it bit for bit at s = S).
function r = make_targets (P, model, X, q, file, chunked)
  N = rows (X);
  if (strcmp (q.method, 'ig'))
    f = @(varargin) ee_ig (model, X, 'steps', q.S, 'method', q.ig_method, 'verbose', false, varargin{:});
  else
    f = @(varargin) ee_sv (model, X, 'samples', q.S, 'seed', q.seed, 'verbose', false, varargin{:});
  end
  if (! chunked)
    t0 = tic ();
    [A, info] = f ();
    info.seconds = toc (t0);
    r = struct ('A', A, 'info', info);
    return;
  end
  partial = [file '.partial'];
  A = zeros (N, columns (X), 'single');
  done = false (N, 1);
  target = zeros (N, 1);
  passes = 0; secs = 0;
  if (exist (partial, 'file'))
    z = load (partial);
    A = z.A; done = z.done; target = z.target; passes = z.passes; secs = z.secs;
    say (P, '  resuming from %s: %d of %d rows done\n', partial, sum (done), N);
  end
  chunk = max (10, ceil (N / 20));
  t_all = tic ();
  while (any (! done))
    rws = find (! done, chunk)';
    t0 = tic ();
    [a, info] = f ('rows', rws);
    secs += toc (t0);
    A(rws, :) = a;
    target(rws) = info.target;
    passes += info.passes;
    done(rws) = true;
    atomic_save (partial, struct ('A', A, 'done', done, 'target', target, 'passes', passes, 'secs', secs));
    say (P, '  %s targets: %d/%d rows, %.1f s (ETA %.0f s)\n', upper (q.method), sum (done), N, ...
         secs, secs / sum (done) * (N - sum (done)));
  end
  info = struct ('target', target, 'passes', passes, 'seconds', secs);
  r = struct ('A', A, 'info', info);
  delete (partial);
end

function r = train_explainer (P, backbone, d, sub, tg, q, dsname)
  e = q.expl;
  A = tg.train.A; Av = tg.valid.A;
  scale = 1;
  if (strcmp (e.scale, 'std'))
    scale = double (std (A(:)));
    if (! (scale > 0)) scale = 1; end
  end
  desc = struct ('method', q.method, 'steps', q.S, 'dataset', dsname, 'classifier_kind', q.kind, ...
                 'ig_method', q.ig_method, 'seed', q.seed);
  extra = {};                       # optional: batch, dropout
  for f = {'batch', 'dropout'}
    if (isfield (e, f{1}) && ! isempty (e.(f{1})))
      extra(end+1:end+2) = {f{1}, e.(f{1})};
    end
  end
  t0 = tic ();
  m = ee_train (backbone, d.tokens(sub.train,:), single (A / scale), ...
                'validation', {d.tokens(sub.valid,:), single(Av / scale)}, ...
                'explains', desc, 'head', e.head, 'epochs', e.epochs, 'lr', e.lr, ...
                'patience', e.patience, 'seed', e.seed, 'verbose', P.verbose, extra{:});
  r.seconds = toc (t0);
  if (scale != 1)
    ## fold the target scale into the head: the explainer predicts raw maps
    m.head_W = single (double (m.head_W) * scale);
    m.head_b = single (double (m.head_b) * scale);
    m.history.valid_mse = m.history.valid_mse * scale ^ 2;
    m.history.train_loss = m.history.train_loss * scale ^ 2;
    m.history.valid_loss = m.history.valid_loss * scale ^ 2;
  end
  m.target_scale = scale;
  r.model = m;
  r.scale = scale;
end

## ------------------------------------------------------------------ caching

## the key of a settings cell: md5 of a canonical text form, 16 hex digits
function k = key (x)
  k = hash ('md5', key_text (x))(1:16);
end

function t = key_text (x)
  if (isstruct (x))
    f = sort (fieldnames (x));
    t = sprintf ('struct%s{', mat2str (size (x)));
    for i = 1:numel (x)
      for j = 1:numel (f)
        t = [t f{j} '=' key_text(x(i).(f{j})) ';'];
      end
    end
    t = [t '}'];
  elseif (iscell (x))
    t = sprintf ('cell%s{', mat2str (size (x)));
    for i = 1:numel (x)
      t = [t key_text(x{i}) ','];
    end
    t = [t '}'];
  elseif (ischar (x))
    t = ['''' x(:)' ''''];
  elseif (isnumeric (x) || islogical (x))
    t = [class(x) mat2str(size (x)) '[' sprintf('%.17g,', double (x(:))) ']'];
  elseif (is_function_handle (x))
    t = func2str (x);
  else
    error ('ee:badInput', 'figure5: cannot key a %s', class (x));
  end
end

function [v, hit] = cached (P, file, what, fn)
  hit = exist (file, 'file') == 2;
  if (hit)
    z = load (file);
    v = z.v;
    say (P, '%s: cached (%s)\n', what, file);
    return;
  end
  say (P, '%s: computing ...\n', what);
  t0 = tic ();
  v = fn ();
  atomic_save (file, struct ('v', v));
  say (P, '%s: done in %.1f s -> %s\n', what, toc (t0), file);
end

function atomic_save (file, s)
  tmp = sprintf ('%s.tmp%d', file, getpid ());
  save ('-binary', tmp, '-struct', 's');
  [err, msg] = rename (tmp, file);
  if (err)
    error ('ee:ioError', 'figure5: cannot write %s: %s', file, msg);
  end
end

function atomic_text (file, txt)
  tmp = sprintf ('%s.tmp%d', file, getpid ());
  fid = fopen (tmp, 'w');
  if (fid < 0)
    error ('ee:ioError', 'figure5: cannot write %s', tmp);
  end
  fputs (fid, txt);
  fclose (fid);
  [err, msg] = rename (tmp, file);
  if (err)
    error ('ee:ioError', 'figure5: cannot write %s: %s', file, msg);
  end
end

function ensure_dir (d)
  if (! exist (d, 'dir'))
    [ok, msg] = mkdir (d);
    if (! ok)
      error ('ee:ioError', 'figure5: cannot create %s: %s', d, msg);
    end
  end
end

function say (P, varargin)
  if (P.verbose)
    printf (varargin{:});
    fflush (stdout);
  end
end

## ------------------------------------------------------------------ outputs

function files = write_figure (P, panels)
  warning ('off', 'Octave:gnuplot-graphics', 'local');
  graphics_toolkit ('gnuplot');
  n = numel (panels);
  Wp = 600; W = Wp * n; H = 520;
  grey = [0.4 0.4 0.4]; red = [0.85 0 0]; green = [0 0.6 0];
  fig = figure ('visible', 'off', 'position', [0 0 W H], 'color', 'w', 'paperunits', 'inches', ...
                'paperposition', [0 0 W H] / 100, 'papersize', [W H] / 100);
  unwind_protect
    for k = 1:n
      p = panels(k);
      C = p.curve;
      S = p.S;
      s = 1:S-1;                       # s = S is exactly 0: off a log axis
      q = C.quartiles(:, s);
      axh = H - 150 - 45;
      ax = axes ('units', 'pixels', 'position', [(k - 1) * Wp + 95, 150, Wp - 125, axh]);
      hold (ax, 'on');
      ok = ! isnan (C.curve(s)) & C.curve(s) > 0;
      okq = ok & q(1, :) > 0;
      e = C.explainer_curve;
      ## y range: the mean curve and the explainer's line, one decade below
      ## (the band of per-sequence values is clipped to it)
      lo = [C.curve(s(ok)) e]; lo = lo(lo > 0 & isfinite (lo));
      hi = [C.curve(s(ok)) q(3, okq) e]; hi = hi(hi > 0 & isfinite (hi));
      if (isempty (lo)) lo = 1e-3; hi = 1; end
      yl = [10 ^ (floor (log10 (min (lo))) - 1), 10 ^ ceil(log10 (max (hi)))];
      ## per-sequence spread (25th-75th percentile) as a light band
      if (any (okq))
        xs = s(okq);
        band = max (yl(1), min (yl(2), [q(1, okq) fliplr(q(3, okq))]));
        patch (ax, [xs fliplr(xs)], band, [0.86 0.86 0.86], 'edgecolor', 'none');
      end
      h1 = plot (ax, s(ok), C.curve(s(ok)), 'k-');
      set (h1, 'linewidth', 3);
      if (isfinite (e))
        h2 = plot (ax, [0.5 S - 0.5], [e e], '--');
        set (h2, 'color', green, 'linewidth', 3);
      end
      set (ax, 'yscale', 'log', 'xlim', [0.5 S - 0.5], 'ylim', yl, 'box', 'on', 'fontsize', 11);
      dec = log10 (yl);
      set (ax, 'ytick', 10 .^ (dec(1):max (1, ceil (diff (dec) / 8)):dec(2)));
      ## x ticks: s, and below them the model passes per explanation
      cx = C.crossing;
      tk = unique ([1 2 5:5:S-1 cx(isfinite (cx) & cx < S)]);
      set (ax, 'xtick', tk);
      lg = @(px) 10 ^ (log10 (yl(1)) - px / axh * diff (log10 (yl)));
      for t = tk
        text (ax, t, lg (36), sprintf ('%.0f', C.passes(t)), 'horizontalalignment', 'center', ...
              'fontsize', 9, 'color', grey);
      end
      text (ax, 0.3, lg (36), 'passes:', 'horizontalalignment', 'right', 'fontsize', 9, 'color', grey);
      text (ax, 0.3, lg (17), 's:', 'horizontalalignment', 'right', 'fontsize', 9);
      text (ax, S / 2, lg (62), sprintf (['s = samples (IG steps / SV permutations); grey: model passes ' ...
                                          'per explanation (%.0f at s = %d)'], C.passes(S), S), ...
            'horizontalalignment', 'center', 'fontsize', 9);
      ylabel (ax, sprintf ('MSE to the target (s = %d), log scale', S), 'fontsize', 11);
      ## label of the explainer's line: above it where the curve ends below
      ## it (after a crossing), else below it
      if (isfinite (e))
        above = ok(end) && C.curve(S - 1) < e;
        up = 0.035 * above - 0.06 * (! above);
        text (ax, S - 0.7, e * 10 ^ (up * diff (log10 (yl))), ...
              sprintf ('Empirical Explainer, 1 pass: %.3g', e), 'color', green, ...
              'horizontalalignment', 'right', 'fontsize', 11, 'fontweight', 'bold');
      end
      ## crossing point: a circle on the curve, a dotted line down to the
      ## s axis and the label at the bottom
      if (isfinite (cx) && cx < S)
        h4 = plot (ax, [cx cx], [yl(1) C.curve(cx)], ':');
        set (h4, 'color', red, 'linewidth', 2);
        h3 = plot (ax, cx, C.curve(cx), 'o');
        set (h3, 'markersize', 14, 'color', red, 'linewidth', 2.5);
        text (ax, cx + 0.3, lg (-22), ...
              sprintf ('crossing: s = %d (%.0f passes)', cx, C.passes(cx)), ...
              'color', red, 'fontsize', 11, 'fontweight', 'bold');
      elseif (isfinite (e))
        text (ax, 1, lg (-22), sprintf ('no crossing for s < %d', S), 'color', red, ...
              'fontsize', 11, 'fontweight', 'bold');
      end
      if (strcmp (p.method, 'ig'))
        ttl = sprintf ('Integrated Gradients (%s), %s', p.settings.ig_method, p.dataset);
      else
        ttl = sprintf ('Shapley Value Sampling, %s', p.dataset);
      end
      title (ax, ttl, 'fontsize', 13, 'fontweight', 'bold');
      hold (ax, 'off');
      ## notes under the panel
      na = axes ('units', 'pixels', 'position', [(k - 1) * Wp + 10, 5, Wp - 20, 68], 'visible', 'off', ...
                 'xlim', [0 1], 'ylim', [0 4]);
      lines = {sprintf('solid black: expensive %s, mean MSE over %d test sequences (band: 25th-75th percentile)', ...
                       p.name, p.n.test), ...
               sprintf('dashed green: Empirical Explainer (%s head%s), same sequences', ...
                       p.explainer_head, scale_text (p.explainer_scale)), ...
               sprintf('%s: %s classifier (%s), test accuracy %.3f, T = %d', p.dataset, p.kind, ...
                       model_text (p.spec), p.test_accuracy, p.T), ...
               sprintf('targets: %d train / %d valid / %d test sequences; classifier trained on %d rows; preset %s', ...
                       p.n.train, p.n.valid, p.n.test, p.n.clf_train, P.preset)};
      for j = 1:numel (lines)
        text (na, 0, 4 - j + 0.5, lines{j}, 'fontsize', 9, 'interpreter', 'none');
      end
    end
    base = fullfile (P.figures, 'figure5');
    files = {[base '.png'], [base '.pdf'], [base '.svg']};
    print_atomic (fig, files{1}, '-dpng', '-r150');
    print_atomic (fig, files{2}, '-dpdf');
    print_atomic (fig, files{3}, '-dsvg', '-r100');
  unwind_protect_cleanup
    close (fig);
  end_unwind_protect
end

function t = scale_text (s)
  if (s == 1)
    t = '';
  else
    t = sprintf ('; trained on targets / %.3g', s);
  end
end

function t = model_text (s)
  f = setdiff (fieldnames (s), {'kind'});
  c = cellfun (@(n) sprintf ('%s %s', n, strtrim (num2str (s.(n)))), f, 'uniformoutput', false);
  t = strjoin (c', ', ');
end

function print_atomic (fig, file, varargin)
  [d, b, e] = fileparts (file);
  tmp = fullfile (d, sprintf ('.%s.tmp%d%s', b, getpid (), e));
  print (fig, tmp, varargin{:});
  [err, msg] = rename (tmp, file);
  if (err)
    error ('ee:ioError', 'figure5: cannot write %s: %s', file, msg);
  end
end

function file = write_csv (P, panels)
  file = fullfile (P.figures, 'figure5.csv');
  txt = sprintf (['panel,dataset,s,passes,expensive_mse,explainer_mse,expensive_q25,expensive_median,' ...
                  'expensive_q75,explainer_q25,explainer_median,explainer_q75,seconds,crossing\n']);
  for k = 1:numel (panels)
    p = panels(k); C = p.curve;
    eq = C.explainer_quartiles;
    for s = 1:p.S
      txt = [txt sprintf('%s,%s,%d,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.6g,%g\n', ...
                         p.method, p.dataset, s, C.passes(s), C.curve(s), C.explainer_curve, ...
                         C.quartiles(:, s), eq, C.seconds(s), C.crossing)];
    end
  end
  atomic_text (file, txt);
end

function [txt, file] = write_runtime (P, panels)
  L = {};
  L{end+1} = sprintf ('Runtime report, figure5 preset ''%s'' (%s)', P.preset, datestr (now ()));
  L{end+1} = sprintf ('Seconds are wall-clock on this machine (%d cores visible; shared machines give noisy numbers),', nproc ());
  L{end+1} = 'measured when each item was computed (cached items keep their original time).';
  L{end+1} = 'Model passes: the gateways'' info.passes (IG: s forward + s backward + 2 forward; SV: 2 + s n forward;';
  L{end+1} = 'explainer training: epochs x (forward+backward per train row + forward per valid row), through the explainer).';
  for k = 1:numel (panels)
    p = panels(k); r = p.runtime;
    L{end+1} = '';
    L{end+1} = sprintf ('== %s on %s (%s classifier, %s; test accuracy %.3f)', p.name, p.dataset, p.kind, ...
                        model_text (p.spec), p.test_accuracy);
    L{end+1} = sprintf ('  classifier training (%d rows):           %9.1f s', p.n.clf_train, r.classifier_seconds);
    L{end+1} = sprintf ('  target generation, %s s = %d:', p.name, p.S);
    for q = {'train', 'valid', 'test'}
      L{end+1} = sprintf ('    %-5s %5d rows:                       %9.1f s  %12d passes  (%.3f s, %.0f passes per explanation)', ...
                          q{1}, p.n.(q{1}), r.(['targets_' q{1} '_seconds']), r.(['targets_' q{1} '_passes']), ...
                          r.(['targets_' q{1} '_seconds']) / p.n.(q{1}), r.(['targets_' q{1} '_passes']) / p.n.(q{1}));
    end
    L{end+1} = sprintf ('    total:                                %9.1f s  %12d passes', r.targets_seconds, r.targets_passes);
    L{end+1} = sprintf ('  explainer training (%d epochs):         %9.1f s  %12d passes', p.explainer_epochs, ...
                        r.explainer_seconds, r.explainer_passes);
    L{end+1} = sprintf ('  empirical explanation of the test subset: %7.2f s  %12d passes  (%.4f s per explanation)', ...
                        r.empirical_seconds, r.empirical_passes, r.empirical_seconds_per);
    L{end+1} = sprintf ('  expensive explanation of the test subset: %7.2f s  %12d passes  (%.4f s per explanation)', ...
                        r.targets_test_seconds, r.targets_test_passes, r.expensive_seconds_per);
    L{end+1} = sprintf ('  speed-up per explanation: %.0fx in time, %.0fx in passes', ...
                        r.expensive_seconds_per / r.empirical_seconds_per, r.expensive_passes_per / r.empirical_passes_per);
    L{end+1} = sprintf ('  break-even (train+valid targets + explainer training, / saving per explanation):');
    L{end+1} = sprintf ('    %.0f explanations by time, %.0f by model passes', r.break_even_seconds, r.break_even_passes);
    L{end+1} = sprintf ('  convergence curve s = 1..%d on the test subset: %.1f s', p.S, r.curve_seconds);
  end
  txt = sprintf ('%s\n', L{:});
  file = fullfile (P.figures, sprintf ('runtime_%s.txt', P.preset));
  atomic_text (file, txt);
end

function files = write_heatmaps (P, p)
  files = {};
  N = rows (p.X);
  ## normalised per-sequence error of the explainer, to pick examples
  err = p.curve.explainer_mse ./ max (mean (double (p.target) .^ 2, 2), eps);
  len = sum (p.X != 1, 2);
  ok = find (len <= 110 & len >= 8);
  if (numel (ok) < min (P.heatmaps, N))
    ok = (1:N)';
  end
  [~, o] = sort (err(ok));
  ok = ok(o);
  nh = min (P.heatmaps, numel (ok));
  sel = ok(unique (round (linspace (1, numel (ok), nh))));
  tags = {'good approximation', 'typical', 'prominent approximation errors'};
  if (strcmp (p.method, 'ig'))
    lab_t = sprintf ('Integrated Gradients (s = %d, %.0f passes through the classifier)', p.S, p.curve.passes(p.S));
  else
    lab_t = 'Shapley Value Sampling (s = %d, %.0f passes through the classifier)';
  end
  for k = 1:numel (sel)
    i = sel(k);
    if (strcmp (p.method, 'sv'))
      n_real = sum (p.X(i, :) != 1 & p.X(i, :) != 3 & p.X(i, :) != 4);
      lab_t = sprintf ('Shapley Value Sampling (s = %d, %d passes through the classifier)', p.S, 2 + p.S * n_real);
    end
    if (numel (sel) == 3) tag = tags{k}; else tag = sprintf ('example %d', k); end
    file = fullfile (P.figures, sprintf ('heatmap_%s_%d.png', p.dataset, k));
    ee_heatmap (file, p.X(i, :), p.vocab, p.target(i, :), p.empirical(i, :), ...
                'title', sprintf ('%s, test sequence %d of the subset (%s; per-sequence MSE %.3g)', ...
                                  p.dataset, i, tag, p.curve.explainer_mse(i)), ...
                'class', sprintf ('classified as: %s (true: %s)', p.classes{p.target_class(i)}, ...
                                  p.classes{p.labels(i)}), ...
                'labels', {['Top: ' lab_t], 'Bottom: Empirical Explainer (1 pass)'});
    files{end+1} = file;
  end
  file = fullfile (P.figures, sprintf ('heatmaps_%s.html', p.dataset));
  ee_heatmap_html (file, p.X, p.vocab, p.target, p.empirical, ...
                   'title', sprintf ('%s: %s targets (s = %d) and Empirical Explainer, %d test sequences', ...
                                     p.dataset, p.name, p.S, N), ...
                   'classes', p.classes, 'target', p.target_class, 'labels', p.labels, ...
                   'mse', p.curve.explainer_mse, 'names', {sprintf('%s s=%d', p.name, p.S), 'empirical'});
  files{end+1} = file;
end

## the pipeline itself is tested by tests/octave/test_figure5.m (a 'tiny' run)
%!error <unknown preset> figure5 ('nosuch')
%!error <unknown option> figure5 ('tiny', 'nosuch', 1)
%!error <'kind' must be> figure5 ('tiny', 'kind', 'rnn')
%!error <no data file> figure5 ('tiny', 'data_ig', '/nonexistent/file.mat')
