## -*- texinfo -*-
## @deftypefn {} {@var{S} =} f5_panel (@var{P}, @var{q})
## One panel of figure5: the classifier, the expensive target maps (train,
## valid, test and unlabelled rows), the Empirical Explainer (or an
## ensemble), the convergence curve, the floor and the agreement metrics,
## each cached under @var{P}.results by the settings it depends on.
## @var{q} is one element of @var{P}.panels (see f5_presets).  A
## deterministic method (f5_method's @code{exact}) has no curve and no
## floor: its maps are the target at S = 1 (exact_curve below).
## @end deftypefn
function S = f5_panel (P, q)
  t_panel = tic ();
  kernel_loss (q);                     # a bad expl.loss fails before any work
  d = load (q.data);
  [~, dsname] = fileparts (q.data);
  cdir = fullfile (P.results, dsname);                  # classifiers: shared by the panels of a dataset
  dir = fullfile (P.results, [dsname '_' q.method]);
  ensure_dir (cdir);
  ensure_dir (dir);
  vocab = numel (d.vocab);
  preset = any (strcmp (q.method, {'ig', 'sv'}));   # the paper's methods (their keys as before)
  data_md5 = hash ('md5', fileread (q.data));   # the data's identity: its bytes

  ## subsets: evenly spaced rows of each split (deterministic, spread over
  ## the source order, which is grouped by class); unlabelled rows from the top
  tr = pick (d.split.train, q.clf.n_train);
  va = pick (d.split.valid, q.clf.n_valid);
  sub.train = pick (d.split.train, q.n_train);
  sub.valid = pick (d.split.valid, q.n_valid);
  sub.test = pick (d.split.test, q.n_test);
  U = zeros (0, columns (d.tokens), 'int32');
  if (isfield (d, 'unlabelled'))
    U = d.unlabelled(1:min (q.n_unlabelled, rows (d.unlabelled)), :);
  end
  X = struct ('train', d.tokens(sub.train, :), 'valid', d.tokens(sub.valid, :), ...
              'test', d.tokens(sub.test, :), 'unlabelled', U);
  if (isempty (q.coalitions))
    q.coalitions = columns (d.tokens);   # KernelSHAP's, LIME's per unit of s: T
  end
  if (strcmp (q.method, 'gradientshap') && isempty (q.background))
    q.background = X.train(1:min (8, rows (X.train)), :);   # GradientSHAP's baselines: rows of the domain
  end
  mt = f5_method (q);                  # how the method runs (and its names)
  if (mt.exact)
    ## a deterministic method: one run is its exact value, at every row
    q.S = 1; q.S_train = 1;
  end
  nm = upper (q.method);
  if (! preset)
    nm = mt.label;
  end
  say (P, '\n== %s panel: %s (%s), kind %s\n', nm, dsname, q.data, q.kind);

  ## 1. the classifier (and a transformer backbone when it is a cnn)
  spec = q.models.(q.kind);
  ck = ee_cache_key ({'classifier', data_md5, spec, q.clf, vocab, numel(d.classes)});
  hits = struct ();
  [clf, hits.classifier] = f5_cached (P, fullfile (cdir, ['classifier_' ck '.mat']), 'classifier', ...
                @() train_classifier (P, spec, q.clf, d, tr, va, vocab));
  clf.model = with_words (clf.model, d);
  say (P, '%s classifier %s: test accuracy %.4f (%d train rows, best epoch %d, %.0f s)\n', ...
          dsname, q.kind, clf.test_accuracy, numel (tr), clf.model.history.best_epoch, clf.seconds);
  if (strcmp (q.kind, 'transformer'))
    bb = clf; bk = ck;
  else
    bspec = q.models.transformer;
    bk = ee_cache_key ({'classifier', data_md5, bspec, q.clf, vocab, numel(d.classes)});
    bb = f5_cached (P, fullfile (cdir, ['classifier_' bk '.mat']), 'backbone transformer', ...
                    @() train_classifier (P, bspec, q.clf, d, tr, va, vocab));
    bb.model = with_words (bb.model, d);
  end

  ## 2. the targets (the expensive explainer at s = S); the cost up front
  ## The explainer's training rows (train, unlabelled) may get cheaper
  ## targets, s = S_train (SV: unbiased, noisier; more rows for the same
  ## cost); valid and test rows get s = S.
  parts = {'train', 'valid', 'unlabelled', 'test'};
  tk = struct (); tfile = struct (); ts = struct ();
  for k = 1:numel (parts)
    p = parts{k};
    ts.(p) = q.S;
    if (any (strcmp (p, {'train', 'unlabelled'}))) ts.(p) = q.S_train; end
    desc = struct ('method', q.method, 'S', ts.(p), 'ig_method', q.ig_method, 'seed', q.seed);
    if (! preset)                      # what else defines the method's maps
      desc.run = mt.convergence;
    end
    tk.(p) = ee_cache_key ({'targets', ck, desc, p, X.(p)});
    tfile.(p) = fullfile (dir, ['targets_' p '_' tk.(p) '.mat']);
  end
  ## expl.loss 'shapley_kernel': the explainer's training rows need no
  ## targets (it trains on coalition values, ee_train 'loss'); the valid
  ## rows keep theirs for early stopping and the MSE
  kernel = kernel_loss (q);
  tparts = parts;
  if (kernel)
    tparts = {'valid', 'test'};
  end
  estimate_cost (P, q, clf.model, X, tfile, tparts, ts);
  tg = struct ();
  for k = 1:numel (parts)
    p = parts{k};
    if (! any (strcmp (p, tparts)))
      tg.(p) = struct ('A', [], 'info', struct ('seconds', 0, 'passes', 0));
      hits.(['targets_' p]) = true;
      continue;
    end
    [tg.(p), hits.(['targets_' p])] = f5_cached (P, tfile.(p), ...
        sprintf ('%s targets (%s, %d rows, s = %d)', nm, p, rows (X.(p)), ts.(p)), ...
        @() make_targets (P, clf.model, X.(p), q, ts.(p), tfile.(p), ! strcmp (p, 'test')));
  end

  ## 3. the Empirical Explainer: one model, or an ensemble of members that
  ## differ in their seed (each cached on its own)
  e = q.expl;
  members = cell (1, e.ensemble);
  ek = cell (1, e.ensemble);
  ex_seconds = 0;
  hits.explainer = true;
  distill = [];
  if (isfield (e, 'distill'))
    distill = e.distill;
    e = rmfield (e, 'distill');        # the teacher is keyed as without it
  end
  if (! kernel)                        # MSE on maps: keyed as before these fields
    e = rmfield (e, intersect ({'loss', 'coalitions'}, fieldnames (e)));
  end
  if (isfield (e, 'layers') && isempty (e.layers))   # all of the classifier's: keyed as before the field
    e = rmfield (e, 'layers');
  end
  if (isfield (e, 'margin') && ! e.margin)            # the explained class's maps: keyed as before the field
    e = rmfield (e, 'margin');
  end
  for j = 1:e.ensemble
    ej = e;
    ej.seed = e.seed + j - 1;
    ej = rmfield (ej, 'ensemble');
    ek{j} = ee_cache_key ({'explainer', bk, tk.train, tk.unlabelled, tk.valid, ej});
    [ex, hit] = f5_cached (P, fullfile (dir, ['explainer_' ek{j} '.mat']), ...
                           sprintf ('Empirical Explainer%s', member_text (j, e.ensemble)), ...
                           @() train_explainer (P, bb.model, X, tg, q, ej, dsname));
    hits.explainer &= hit;
    members{j} = ex.model;
    ex_seconds += ex.seconds;
    h = ex.model.history;
    say (P, '%s explainer%s (%s head, inputs %s): best epoch %d of %d, validation MSE %.4g, %.0f s\n', ...
            nm, member_text (j, e.ensemble), ex.model.head, ex.model.inputs, h.best_epoch, h.epochs_run, ...
            min (h.valid_mse), ex.seconds);
  end
  n_fit = numel (sub.train) + rows (U);
  build_passes = 0;
  if (! isempty (distill))
    [members, n_fit, ds, dhit] = distill_student (P, q, e, distill, members, bb.model, d, sub, U, X, tg, ...
                                                          dir, ek, dsname);
    hits.explainer &= dhit;
    ex_seconds += ds.seconds;
    build_passes += ds.passes;
  end

  ## 4. the convergence curve of the expensive explainer on the test subset
  ## (it depends on the classifier and the test targets only)
  vk = ee_cache_key ({'curve', tk.test});
  cfile = fullfile (dir, ['curve_' vk '.mat']);
  ## a curve computed whole in this run has its times of every s from this
  ## run: step 7 takes them instead of timing each s again
  fresh_curve = ! mt.exact && ! exist (cfile, 'file') && ! exist ([cfile '.partial'], 'file');
  if (mt.exact)
    ## no curve: the target is the method's exact value (MSE 0 at its one cost)
    cv = struct ('C', exact_curve (X.test, q, tg.test));
    hits.curve = true;
  else
    [cv, hits.curve] = f5_cached (P, cfile, sprintf ('%s convergence curve (%d test rows, s = 1..%d)', ...
                                                     nm, rows (X.test), q.S), ...
                 @() struct ('C', ee_convergence (clf.model, X.test, q.method, q.S, ...
                              'method', q.ig_method, 'seed', q.seed, mt.convergence{:}, ...
                              'target', tg.test.A, 'target_info', tg.test.info, ...
                              'checkpoint', [cfile '.partial'], 'verbose', P.verbose)));
  end
  if (exist ([cfile '.partial'], 'file'))
    delete ([cfile '.partial']);
  end
  C = cv.C;

  ## 5. the floor: the expected MSE of the exact attributions against the
  ## s = S target. SV: the per-permutation variance / S (ee_sv's
  ## info.variance of the target run); IG: the target's own quadrature
  ## error, measured against a run at 2S.  The other sampling methods: half
  ## the MSE of a second, independent run at S against the target (two
  ## independent estimates differ by twice the variance of one, which is
  ## the target's MSE against the method's exact value).  A deterministic
  ## method's target is exact: floor 0 (its explainer's MSE is then read
  ## against the target's mean square, C.target_mean_square, instead).
  if (mt.exact)
    C.floor_mse = zeros (rows (X.test), 1);
    C.floor_method = 'none: one run of a deterministic method is exact';
  elseif (! preset)
    fk = ee_cache_key ({'second_run', tk.test, q.seed + q.S + 1});
    second = f5_cached (P, fullfile (dir, ['second_' fk '.mat']), sprintf ('%s at s = %d, another seed (floor)', ...
                                                                          nm, q.S), ...
                        @() struct ('A', mt.run (clf.model, X.test, q.S, q.seed + q.S + 1)));
    C.floor_mse = mean ((double (second.A) - double (tg.test.A)) .^ 2, 2) / 2;
    C.floor_method = sprintf ('half the MSE of a second run at s = %d against the target', q.S);
  elseif (strcmp (q.method, 'sv'))
    C.floor_mse = mean (double (tg.test.info.variance), 2) / q.S;
    C.floor_method = sprintf ('mean per-permutation variance / %d', q.S);
  else
    fk = ee_cache_key ({'ig_fine', tk.test, 2 * q.S});
    fine = f5_cached (P, fullfile (dir, ['ig_fine_' fk '.mat']), sprintf ('IG at s = %d (floor)', 2 * q.S), ...
                      @() struct ('A', ee_ig (clf.model, X.test, 'steps', 2 * q.S, 'method', q.ig_method, ...
                                               'verbose', false)));
    C.floor_mse = mean ((double (fine.A) - double (tg.test.A)) .^ 2, 2);
    C.floor_method = sprintf ('MSE of IG at s = %d against s = %d', 2 * q.S, q.S);
  end
  C.floor = mean (C.floor_mse);

  ## 6. the Empirical Explainer's line: its MSE and agreement with the same
  ## targets, computed the same way
  [E, einfo] = ee_explain (members, X.test);
  target = double (C.target);
  C.explainer_mse = mean ((double (E) - target) .^ 2, 2);
  [C.explainer_spearman, C.explainer_top5] = ee_agreement (X.test, E, target);
  C.explainer_curve = mean (C.explainer_mse);
  C.explainer_quartiles = ee_quartiles (C.explainer_mse);
  C.explainer_passes = einfo.passes / rows (X.test);
  C.crossing = find (C.curve <= C.explainer_curve, 1);   # at or below: as accurate
  if (isempty (C.crossing) || mt.exact)  # (exact: no cheaper run to cross)
    C.crossing = NaN;
  end

  ## 7. the equal-accuracy speed-up, timed in this run (never from the
  ## cache): the explainer on the test rows and the expensive explainer at
  ## the crossing (at s = S when there is none: a lower bound), each the
  ## median of 3 runs after a warm-up, since a run of these rows takes
  ## from milliseconds to seconds and single timings are noisy.  The runs
  ## alternate (explainer, expensive, explainer, ...), so that a change of
  ## the machine's speed while they run (minutes on a shared machine) falls
  ## on both alike, not on the one that happened to run then
  n_test = rows (X.test);
  run_emp = @() ee_explain (members, X.test);
  cx = f5_crossing (C);
  sx = q.S;
  if (isfinite (cx))
    sx = cx;
  end
  run_at = expensive_at (clf.model, X.test, q, sx);
  run_emp ();                                  # warm-ups (a fresh process's first calls are 2-3x
  run_at ();                                   # slower; the first touch of their memory)
  t_emp = t_exp = zeros (1, 3);
  for k = 1:3
    t_emp(k) = time_of (run_emp);
    t_exp(k) = time_of (run_at);
  end
  emp_seconds = median (t_emp);
  exp_seconds = median (t_exp);
  C.explainer_seconds = emp_seconds;
  C.timed_s = sx;
  C.timed_seconds = exp_seconds;
  ## every other s once more, in this run too (the curve's own times may
  ## come from the cache, measured on another day under another load;
  ## those of a curve computed in this run are this run's, and are taken)
  C.retimed_seconds = NaN (1, q.S);
  for s = 1:q.S - 1
    if (s != sx && isfinite (C.curve(s)))   # (NaN: no run at s, e.g. IG's Riemann rules at s = 1)
      if (fresh_curve || ! P.retime)         # ('retime', false: the curve's own times)
        C.retimed_seconds(s) = C.seconds(s);
      else
        C.retimed_seconds(s) = time_of (expensive_at (clf.model, X.test, q, s));
      end
    end
  end
  C.retimed_seconds(sx) = exp_seconds;
  cost = struct ('mse', C.curve, 'seconds', C.retimed_seconds / n_test, 'passes', C.passes);
  if (mt.exact)
    say (P, ['%s: Empirical Explainer MSE %.4g (%.3g x the target''s mean square %.3g; exact method: no floor), ' ...
                '%g passes, %.3g ms; the method: %g passes, %.3g ms\n'], nm, C.explainer_curve, ...
            C.explainer_curve / C.target_mean_square, C.target_mean_square, C.explainer_passes, ...
            1e3 * emp_seconds / n_test, C.passes(1), 1e3 * exp_seconds / n_test);
  else
    say (P, ['%s: Empirical Explainer MSE %.4g (%.1f x the floor %.3g; median %.4g), %g passes, %.3g ms; ' ...
                'expensive MSE at s = 1: %.4g; crossing at s = %s\n'], ...
            nm, C.explainer_curve, C.explainer_curve / C.floor, C.floor, median (C.explainer_mse), ...
            C.explainer_passes, 1e3 * emp_seconds / n_test, C.curve(1), num2str (C.crossing));
  end

  S = struct ();
  S.name = q.name;
  S.method = q.method;
  S.label = nm;
  S.method_title = mt.title;
  S.unit = mt.unit;
  S.exact = mt.exact;
  S.dataset = dsname;
  S.data = q.data;
  S.kind = q.kind;
  S.spec = spec;
  S.settings = q;
  S.S = q.S;
  S.targets_s = ts;
  S.subsets = sub;
  S.n = struct ('clf_train', numel (tr), 'clf_valid', numel (va), 'train', numel (sub.train), ...
                'valid', numel (sub.valid), 'test', numel (sub.test), 'unlabelled', rows (U));
  S.T = columns (d.tokens);
  S.cache_hits = hits;
  S.keys = struct ('classifier', ck, 'backbone', bk, 'targets', tk, 'explainer', {ek}, 'curve', vk);
  S.test_accuracy = clf.test_accuracy;
  S.classifier_seconds = clf.seconds;
  S.curve = C;
  S.X = X.test;
  S.labels = d.labels(sub.test);
  S.vocab = d.vocab;
  S.classes = d.classes;
  S.target = tg.test.A;
  S.target_class = tg.test.info.target;
  S.empirical = E;
  S.explainer = rmfield (e, 'seed');
  S.explainer.distill = distill;
  S.explainer_inputs = members{1}.inputs;
  S.explainer_head = members{1}.head;  # the design's, as the model says
  S.explainer_epochs = members{1}.history.epochs_run;
  S.explainer_best_epoch = members{1}.history.best_epoch;

  ## runtime report (seconds as measured when each item was computed)
  rt = struct ();
  for p = parts
    rt.(['targets_' p{1} '_seconds']) = tg.(p{1}).info.seconds;
    rt.(['targets_' p{1} '_passes']) = tg.(p{1}).info.passes;
  end
  build = {'train', 'valid', 'unlabelled'};
  rt.targets_seconds = sum (cellfun (@(p) rt.(['targets_' p '_seconds']), parts));
  rt.targets_passes = sum (cellfun (@(p) rt.(['targets_' p '_passes']), parts));
  rt.explainer_seconds = ex_seconds;
  rt.explainer_passes = build_passes;
  for j = 1:numel (members)
    h = members{j}.history;
    rt.explainer_passes += h.epochs_run * (2 * n_fit + numel (sub.valid));
    if (isfield (h, 'feature_passes'))
      rt.explainer_passes += h.feature_passes;
    end
    if (isfield (h, 'coalition_passes'))  # the target-free loss's coalition values
      rt.explainer_passes += h.coalition_passes;
    end
    if (isfield (h, 'margin_passes'))     # the classifier's pass that signs each map ('margin')
      rt.explainer_passes += h.margin_passes;
    end
  end
  rt.empirical_seconds = emp_seconds;
  rt.empirical_passes = einfo.passes;
  rt.n_test = numel (sub.test);
  rt.expensive_seconds_per = rt.targets_test_seconds / rt.n_test;
  rt.expensive_passes_per = rt.targets_test_passes / rt.n_test;
  rt.empirical_seconds_per = emp_seconds / rt.n_test;
  rt.empirical_passes_per = einfo.passes / rt.n_test;
  rt.build_seconds = sum (cellfun (@(p) rt.(['targets_' p '_seconds']), build)) + rt.explainer_seconds;
  rt.build_passes = sum (cellfun (@(p) rt.(['targets_' p '_passes']), build)) + rt.explainer_passes;
  rt.break_even_seconds = rt.build_seconds / (rt.expensive_seconds_per - rt.empirical_seconds_per);
  rt.break_even_passes = rt.build_passes / (rt.expensive_passes_per - rt.empirical_passes_per);
  if (rt.break_even_seconds < 0) rt.break_even_seconds = Inf; end
  if (rt.break_even_passes < 0) rt.break_even_passes = Inf; end
  rt.classifier_seconds = clf.seconds;
  rt.curve_seconds = sum (C.seconds(! isnan (C.seconds)));
  S.runtime = rt;
  S.speedup = ee_speedup (cost, struct ('mse', C.explainer_curve, 'seconds', emp_seconds / n_test, ...
                                        'passes', C.explainer_passes), ...
                          struct ('seconds', rt.build_seconds, 'passes', rt.build_passes));
  S.cost_curve = cost;
  say (P, '%s on %s: %s\n', nm, dsname, S.speedup.text);
  S.seconds = toc (t_panel);
end

## The "curve" of a deterministic method, in ee_convergence's fields: its
## one run (s = 1) is the target, MSE 0 and full agreement at the cost of
## the target's run; C.target_mean_square, the MSE of an all-zero map, is
## the scale its explainer's MSE is read against (there is no floor).
function C = exact_curve (X, q, tg)
  N = rows (X);
  A = double (tg.A);
  C = struct ('method', q.method, 'ig_method', q.ig_method, 'seed', q.seed, 'S', 1, 'N', N, 'T', columns (X), ...
              's', 1, 'mse', zeros (N, 1));
  [C.spearman, C.top5] = ee_agreement (X, A, A);
  C.passes = tg.info.passes / N;
  C.seconds = tg.info.seconds;
  C.target = tg.A;
  C.target_passes = C.passes;
  C.target_seconds = tg.info.seconds;
  C.curve = 0;
  C.quartiles = ee_quartiles (C.mse);
  C.target_mean_square = mean (mean (A .^ 2, 2));
  C.exact = true;
end

function t = member_text (j, k)
  t = '';
  if (k > 1)
    t = sprintf (' %d of %d', j, k);
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
  ## the words and class names travel with the model (ee_plot_text (clf,
  ## 'some text') works on it); they change no weight, so not the cache key
  m = ee_train (spec, d.tokens(tr,:), d.labels(tr), 'validation', {d.tokens(va,:), d.labels(va)}, ...
                'vocab', d.vocab(:)', 'classes', d.classes(:)', 'epochs', o.epochs, 'lr', o.lr, ...
                'patience', o.patience, 'seed', o.seed, 'verbose', P.verbose);
  r.seconds = toc (t0);
  r.model = m;
  te = d.split.test;
  r.test_accuracy = mean (ee_predict (m, d.tokens(te,:)) == d.labels(te));
end

## Distillation (expl.distill): the explainer trained above (the teacher,
## an ensemble's mean) labels further rows of the domain that have no
## expensive targets (training rows and unlabelled text beyond the panel's
## own, up to distill.rows), and a student with cheaper inputs
## (distill.inputs) trains on them and on the panel's own targets; the
## student becomes the panel's explainer.  Its maps have no sampling noise,
## so many rows are worth more than the few with expensive targets.  The
## teacher's maps and its training count in the student's build cost.
function [members, n_fit, cost, hit] = distill_student (P, q, e, o, teacher, backbone, d, sub, U, X, tg, dir, ek, dsname)
  D = struct ('rows', Inf, 'inputs', 'gradient_ends', 'epochs', 4, 'freeze', e.freeze, 'lr', e.lr);
  for f = fieldnames (o)'
    if (! isfield (D, f{1}))
      error ('ee:badInput', 'figure5: unknown distill setting ''%s'' (rows, inputs, epochs, freeze, lr)', f{1});
    end
    D.(f{1}) = o.(f{1});
  end
  pool = setdiff (double (d.split.train(:)), double (sub.train(:)));
  Xpool = d.tokens(pool, :);
  if (isfield (d, 'unlabelled') && rows (d.unlabelled) > rows (U))
    Xpool = [Xpool; d.unlabelled(rows (U) + 1:end, :)];
  end
  Xd = Xpool(pick ((1:rows (Xpool))', D.rows), :);
  dk = ee_cache_key ({'distill maps', ek, Xd});
  [dm, hit1] = f5_cached (P, fullfile (dir, ['distill_maps_' dk '.mat']), ...
                          sprintf ('the teacher''s maps of %d further rows', rows (Xd)), ...
                          @() teacher_maps (teacher, Xd));
  sk = ee_cache_key ({'student', dk, D, tg.train.info.passes, rmfield(e, 'seed')});
  desc = struct ('method', q.method, 'steps', q.S, 'dataset', dsname, 'classifier_kind', q.kind, ...
                 'ig_method', q.ig_method, 'seed', q.seed, 'distilled_rows', rows (Xd));
  [st, hit2] = f5_cached (P, fullfile (dir, ['student_' sk '.mat']), ...
                          sprintf ('student explainer (inputs %s, %d + %d rows)', D.inputs, ...
                                   rows (X.train) + rows (X.unlabelled), rows (Xd)), ...
                          @() train_student (P, backbone, X, tg, Xd, dm.A, e, D, desc, q));
  h = st.model.history;
  say (P, '%s student (inputs %s): best epoch %d of %d, validation MSE %.4g, %.0f s (teacher''s maps %.0f s)\n', ...
          upper (q.method), st.model.inputs, h.best_epoch, h.epochs_run, min (h.valid_mse), st.seconds, dm.seconds);
  ## the teacher's own training passes (its rows and epochs) plus its maps
  tp = 0;
  n_own = numel (sub.train) + rows (U);
  for j = 1:numel (teacher)
    ht = teacher{j}.history;
    tp += ht.epochs_run * (2 * n_own + numel (sub.valid));
    if (isfield (ht, 'feature_passes'))
      tp += ht.feature_passes;
    end
  end
  cost = struct ('seconds', dm.seconds + st.seconds, 'passes', dm.passes + tp);
  members = {st.model};
  n_fit = n_own + rows (Xd);
  hit = hit1 && hit2;
end

function r = teacher_maps (teacher, Xd)
  t0 = tic ();
  [r.A, info] = ee_explain (teacher, Xd);
  r.passes = info.passes;
  r.seconds = toc (t0);
end

function r = train_student (P, backbone, X, tg, Xd, Ad, e, D, desc, q)
  t0 = tic ();
  e.inputs = D.inputs;
  m = ee_train (backbone, [X.train; X.unlabelled; Xd], [tg.train.A; tg.unlabelled.A; Ad], ...
                'validation', {X.valid, tg.valid.A}, design_options (e, q){:}, 'explains', desc, 'freeze', D.freeze, ...
                'epochs', D.epochs, 'lr', D.lr, 'batch', e.batch, 'schedule', e.schedule, ...
                'patience', e.patience, 'seed', e.seed, 'standardize', e.standardize, 'verbose', P.verbose);
  r.seconds = toc (t0);
  r.model = m;
end

## A classifier cached before models kept their words gets them here.
function m = with_words (m, d)
  if (! isfield (m, 'vocab_words'))
    m.vocab_words = d.vocab(:)';
  end
  if (! isfield (m, 'class_names'))
    m.class_names = d.classes(:)';
  end
end

## Seconds of one call of f.
function t = time_of (f)
  t0 = tic ();
  f ();
  t = toc (t0);
end

## The expensive explainer on the test rows at s samples, as the
## convergence curve runs it (the sampling methods: the curve's seed for
## s < S).
function f = expensive_at (model, X, q, s)
  mt = f5_method (q);
  f = @() mt.run (model, X, s, q.seed + s * (s < q.S));
end

function f = expensive (model, X, q, S)
  mt = f5_method (q);
  f = @(varargin) mt.run (model, X, S, q.seed, varargin{:});
end

## The expensive explainer's cost for the targets still to compute and the
## convergence curve, from a calibration on a few training rows; printed
## before the long work starts.
function estimate_cost (P, q, model, X, tfile, parts, ts)
  todo = parts(cellfun (@(p) ! exist (tfile.(p), 'file'), parts));
  if (isempty (todo) || ! P.verbose)
    return;
  end
  cal = X.train(1:min (8, rows (X.train)), :);
  if (isempty (cal))
    return;
  end
  f = expensive (model, cal, q, q.S);
  t0 = tic ();
  [~, info] = f ();
  per_row = toc (t0) / rows (cal);
  per_pass = toc (t0) / info.passes;
  ## rows in units of an s = S row (SV's cost grows with s; IG's as 2s + 2;
  ## a deterministic method has one cost and no curve)
  if (f5_method (q).exact)
    unit = @(s) 1;
  elseif (strcmp (q.method, 'ig'))
    unit = @(s) (2 * s + 2) / (2 * q.S + 2);
  else
    unit = @(s) s / q.S;
  end
  n = sum (cellfun (@(p) rows (X.(p)) * unit (ts.(p)), todo));
  ## the curve: runs at s = 1..S-1 on the test rows (passes grow with s)
  if (f5_method (q).exact)
    curve_passes = 0;
  elseif (strcmp (q.method, 'ig'))
    curve_passes = sum (2 * (1:q.S - 1) + 2) / (2 * q.S + 2);
  else
    curve_passes = sum (1:q.S - 1) / q.S;
  end
  passes = info.passes / rows (cal) * (n + curve_passes * rows (X.test));
  say (P, ['%s on %s: about %.3g model passes and %.0f s to go for the %s targets and the curve ' ...
              '(calibrated on %d rows: %.3f s per row at s = %d)\n'], upper (q.method), q.name, passes, ...
          passes * per_pass, strjoin (todo, '/'), rows (cal), per_row, q.S);
end

## The expensive explainer on X: train/valid/unlabelled rows in chunks with a
## partial file, so that an interrupted run resumes; the test subset in one
## call (the convergence curve reproduces it bit for bit at s = S).
function r = make_targets (P, model, X, q, S, file, chunked)
  N = rows (X);
  f = expensive (model, X, q, S);
  if (! chunked || N == 0)
    t0 = tic ();
    if (N == 0)
      A = zeros (0, columns (X), 'single');
      info = struct ('target', zeros (0, 1), 'passes', 0);
    else
      [A, info] = f ();
    end
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
  while (any (! done))
    rws = find (! done, chunk)';
    t0 = tic ();
    [a, info] = f ('rows', rws);
    secs += toc (t0);
    A(rws, :) = a;
    target(rws) = info.target;
    passes += info.passes;
    done(rws) = true;
    ee_atomic_save (partial, struct ('A', A, 'done', done, 'target', target, 'passes', passes, 'secs', secs));
    say (P, '  %s targets: %d/%d rows, %.1f s, %.1f rows/s (ETA %.0f s)\n', upper (q.method), sum (done), N, ...
            secs, sum (done) / secs, secs / sum (done) * (N - sum (done)));
  end
  info = struct ('target', target, 'passes', passes, 'seconds', secs);
  r = struct ('A', A, 'info', info);
  delete (partial);
end

## One explainer trained on the train and unlabelled rows (their targets
## come from the classifier alike), early stopping on the valid rows.
function r = train_explainer (P, backbone, X, tg, q, e, dsname)
  desc = struct ('method', q.method, 'steps', q.S, 'dataset', dsname, 'classifier_kind', q.kind, ...
                 'ig_method', q.ig_method, 'seed', q.seed);
  Xfit = [X.train; X.unlabelled];
  Afit = [tg.train.A; tg.unlabelled.A];
  loss = {};
  if (kernel_loss (q))                 # coalition values, computed by ee_train
    Afit = 'sv';
    loss = {'loss', 'shapley_kernel', 'coalitions', e.coalitions};
  end
  t0 = tic ();
  m = ee_train (backbone, Xfit, Afit, 'validation', {X.valid, tg.valid.A}, loss{:}, design_options (e, q){:}, ...
                'explains', desc, 'freeze', e.freeze, 'epochs', e.epochs, 'lr', e.lr, 'batch', e.batch, ...
                'schedule', e.schedule, 'patience', e.patience, 'seed', e.seed, 'standardize', e.standardize, ...
                'verbose', P.verbose);
  r.seconds = toc (t0);
  r.model = m;
end

## The explainer's design as ee_train's options: the design the preset
## names and those of its options the panel sets; libcore decides the rest
## (ee_explainer_design), so no default is restated here, but one: maps
## given to ee_train are taken to sum to f(x) - f(baseline), and those of
## the methods that do not (LIME, the noise tunnels, GradientSHAP's
## estimate) get no efficiency projection unless the panel asks for it, as
## ee_train (clf, X, METHOD) decides for the maps it computes.
function c = design_options (e, q)
  c = {};
  for f = {'design', 'head', 'inputs', 'attend', 'outputs', 'efficiency', 'layers', 'margin'}
    if (isfield (e, f{1}) && ! isempty (e.(f{1})))
      c(end+1:end+2) = {f{1}, e.(f{1})};
    end
  end
  mt = f5_method (q);
  if (! mt.complete && ! any (strcmp (c(1:2:end), 'efficiency')))
    c(end+1:end+2) = {'efficiency', false};
  end
end

## Whether the panel's explainer trains with the target-free Shapley loss
## (expl.loss 'shapley_kernel', expl.coalitions per row) instead of MSE on
## expensive targets ('mse').
function k = kernel_loss (q)
  loss = 'mse';
  if (isfield (q.expl, 'loss'))
    loss = q.expl.loss;
  end
  if (! any (strcmp (loss, {'mse', 'shapley_kernel'})))
    error ('ee:badInput', 'figure5: expl.loss must be ''mse'' or ''shapley_kernel'', got ''%s''', loss);
  end
  k = strcmp (loss, 'shapley_kernel');
  if (k && ! strcmp (q.method, 'sv'))
    error ('ee:badInput', 'figure5: expl.loss ''shapley_kernel'' trains Shapley explainers (panel %s is %s)', ...
           q.name, q.method);
  end
  if (k && ! strcmp (q.kind, 'transformer'))
    error ('ee:notSupported', ['figure5: expl.loss ''shapley_kernel'' needs the explained classifier as the ' ...
                               'explainer''s backbone (a transformer; panel %s explains a %s)'], q.name, q.kind);
  end
  if (k && isfield (q.expl, 'distill') && ! isempty (q.expl.distill))
    error ('ee:notSupported', 'figure5: expl.loss ''shapley_kernel'' with expl.distill is not supported');
  end
end
