## -*- texinfo -*-
## @deftypefn  {} {@var{C} =} ee_convergence (@var{model}, @var{X}, @var{method}, @var{S}, @dots{})
## Convergence curve of an expensive explainer (Figure 5 of the paper).
##
## @var{method} is @qcode{'ig'} (Integrated Gradients, @code{ee_ig}),
## @qcode{'sv'} (Shapley Value Sampling, @code{ee_sv}), @qcode{'kernelshap'}
## (@code{ee_sv}'s KernelSHAP), @qcode{'lime'} (@code{ee_lime}), or, on a
## built-in classifier, a noise tunnel of @code{ee_gradient}
## (@qcode{'smoothgrad'}, @qcode{'smoothgrad_sq'}, @qcode{'vargrad'}) or
## @qcode{'gradientshap'}: every method with a sample count.  The
## deterministic methods (saliency, Gradient x Input, DeepLIFT, occlusion)
## have no curve, one run being exact: they are @code{ee:badInput}.  The
## target maps are the expensive explainer at s = @var{S} (default 20).  For
## every s = 1..S a fresh, independent run with s samples is compared with
## the target: the mean squared error over all T positions of each
## sequence (pads included), as in doc/MODELS.md, section "Convergence
## curve (Figure 5)".
##
## @itemize
## @item IG: @code{ee_ig (model, X, 'steps', s, 'method', M)}; IG is
## deterministic, so the run at s = S reproduces the target exactly (MSE 0).
## @item SV: @code{ee_sv (model, X, 'samples', s, 'seed', seed0 + s)} for
## s < S: new permutations for every s; the target and the run at s = S use
## @code{seed0}, so the last value is exactly 0 as well.
## @item KernelSHAP: @code{ee_sv (model, X, 'method', 'kernelshap',
## 'samples', s K, 'seed', seed0 + s)}, K = @qcode{'coalitions'}, seeds as
## for SV.  An s < S whose s K coalitions do not determine some row's
## values (too few, or too many repeats, for its players) gives NaN, as
## the Riemann rules' s = 1 does.
## @item LIME: @code{ee_lime (model, X, 'samples', s K, 'seed', seed0 +
## s)}, as KernelSHAP.
## @item SmoothGrad, SmoothGrad-squared, VarGrad: @code{ee_gradient (model,
## X, 'noise', METHOD, 'samples', s, 'seed', seed0 + s)}: s noise samples of
## the saliency (@qcode{'options'} may name another gradient method, e.g.
## @code{@{'method', 'gradxinput'@}}, and the @qcode{'stdev'}).
## @item GradientSHAP: @code{ee_gradient (model, X, 'method',
## 'gradientshap', 'samples', s, 'seed', seed0 + s)}; its
## @qcode{'background'} rows are given in @qcode{'options'} (required).
## @end itemize
##
## Options (name/value):
## @table @asis
## @item 'method'
## IG integration rule (default @qcode{'gausslegendre'}); the Riemann rules
## need s >= 2, so their curve starts at s = 2 (s = 1 gives NaN).
## @item 'seed'
## seed0 of the sampling methods (default 1).
## @item 'coalitions'
## K, the coalitions per row per unit of s of KernelSHAP and LIME (default 16).
## @item 'explainer'
## an Empirical Explainer (from @code{ee_train}); adds
## @code{explainer_mse} (N x 1), @code{explainer_curve} (their mean),
## @code{explainer_passes} (model passes per explanation: 1 for an explainer
## that reads tokens, about 3 for one that reads gradient features) and
## @code{crossing}.
## @item 'target', 'target_info'
## the target maps (N x T) and their info struct, when the caller has them
## already (they must come from the same call: same X, method, S, seed and
## batch, or the value at s = S is not exactly 0).
## @item 'batch', 'device'
## passed on to the gateways.
## @item 'checkpoint'
## a .mat file: after each s the partial result is saved there
## (atomically) and a later call with the same arguments resumes from it.
## @item 'verbose'
## true (default) prints one progress line per s.
## @item 'options'
## a cell of further options of the method's gateway (@code{ee_sv},
## @code{ee_ig}, @code{ee_lime}, @code{ee_gradient}; of a function handle:
## @code{ee_sv (@@f, @dots{})} / @code{ee_ig (@@f, @dots{})} /
## @code{ee_lime (@@f, @dots{})}), after those named here; they must not
## set the samples, steps or seed, which the curve sets.
## @end table
##
## @var{model} may be a function handle (@code{ee_sv (@@f, @dots{})}'s model)
## and @var{X} N x F rows: the runs are @code{ee_sv (@@f, X, 'samples', s,
## @dots{})} or @code{ee_ig (@@f, X, 'steps', s, @dots{})}, with the players
## and absent values (@code{groups}, @code{baseline}, @code{background})
## of the explainer's @code{explains} when @qcode{'explainer'} is an
## explainer from @code{ee_train (@@f, @dots{})}; the MSE is over the F
## columns (a group's value spread as @code{ee_sv} spreads it), the rank
## agreement over every column, and the explainer's maps are
## @code{ee_explain (explainer, X, 'model', @@f)}'s (the class f predicts,
## the efficiency projection): 2 passes per row, its own and one of f.
##
## @var{C} has fields @code{method}, @code{S}, @code{s} (1..S), @code{mse}
## (N x S, per sequence), @code{spearman} and @code{top5} (N x S: the rank
## correlation with the target over the real tokens of each sequence, and
## the share of the target's 5 largest-magnitude tokens among the run's 5
## largest; see @code{ee_agreement}),
## @code{curve} (1 x S, mean over sequences),
## @code{quartiles} (3 x S: 25th, 50th, 75th percentile over sequences),
## @code{passes} (1 x S: model passes per explanation, the gateways'
## @code{info.passes} / N, extra forwards included), @code{seconds} (1 x S),
## @code{target}, @code{target_passes}, @code{target_seconds},
## @code{crossing} (the smallest s whose curve value is at or below the
## explainer's, NaN if none or no explainer), and with an explainer
## @code{explainer_spearman}, @code{explainer_top5} (N x 1).
## @seealso{ee_ig, ee_sv, ee_explain, figure5}
## @end deftypefn

function C = ee_convergence (model, X, method, S, varargin)
  if (nargin < 3)
    print_usage ();
  end
  if (nargin < 4 || isempty (S))
    S = 20;
  end
  who = 'ee_convergence';
  if (ischar (method) && any (strcmpi (method, {'saliency', 'saliency_abs', 'saliency_l2', 'gradxinput', ...
                                                 'deeplift', 'occlusion'})))
    error ('ee:badInput', ['ee_convergence: METHOD ''%s'' is deterministic: one run is exact, there is no ' ...
                           'convergence curve'], method);
  end
  method = ee_check (who, 'METHOD', method, 'choice', {'ig', 'sv', 'kernelshap', 'lime', 'smoothgrad', ...
                                                        'smoothgrad_sq', 'vargrad', 'gradientshap'});
  tunnel = any (strcmp (method, {'smoothgrad', 'smoothgrad_sq', 'vargrad', 'gradientshap'}));
  coalitions = any (strcmp (method, {'kernelshap', 'lime'}));
  S = ee_check (who, 'S', S, 'int', 1, 2^20);
  o = struct ('method', 'gausslegendre', 'seed', 1, 'explainer', [], 'target', [], ...
              'target_info', [], 'batch', [], 'device', [], 'checkpoint', '', 'verbose', true, ...
              'options', {{}}, 'coalitions', 16);
  o = ee_options (o, varargin, who);
  o.coalitions = ee_check (who, '''coalitions''', o.coalitions, 'int', 1, 2^20);
  if (! ((isnumeric (X) || islogical (X)) && isreal (X) && ismatrix (X) && ! isempty (X)))
    error ('ee:badInput', 'ee_convergence: X must be a non-empty N x T matrix of token ids (or N x D inputs)');
  end
  o.method = ee_check (who, '''method''', o.method, 'name');
  o.seed = ee_check (who, '''seed''', o.seed, 'int', 0, 2^31 - 1);
  o.checkpoint = ee_check (who, '''checkpoint''', o.checkpoint, 'text');
  o.verbose = ee_check (who, '''verbose''', o.verbose, 'flag');
  if (! isempty (o.batch))
    o.batch = ee_check (who, '''batch''', o.batch, 'int', 1, 2^20);
  end
  if (! isempty (o.device))
    o.device = ee_check (who, '''device''', o.device, 'name');
  end
  if (! isempty (o.target))
    o.target = ee_check (who, '''target''', o.target, 'reals', size (X));
  end
  if (! isempty (o.target_info) && ! (isstruct (o.target_info) && isscalar (o.target_info)))
    error ('ee:badInput', 'ee_convergence: ''target_info'' must be the info struct of the target maps');
  end
  N = rows (X);
  T = columns (X);

  gw = {};                          # options passed to every gateway call
  if (! isempty (o.batch))  gw(end+1:end+2) = {'batch', o.batch};  end
  if (! isempty (o.device)) gw(end+1:end+2) = {'device', o.device}; end
  handle = is_function_handle (model);
  Xa = X;                           # what ee_agreement reads as token ids
  if (! iscell (o.options) || ! iscellstr (o.options(1:2:end)))
    error ('ee:badInput', 'ee_convergence: ''options'' must be a cell of further options (name/value)');
  end
  set_here = intersect (lower (o.options(1:2:end)), {'samples', 'steps', 'seed'});
  if (! isempty (set_here))
    error ('ee:badInput', 'ee_convergence: ''options'' must not set ''%s'': the curve sets it', set_here{1});
  end
  if (handle && tunnel)
    error ('ee:badInput', 'ee_convergence: METHOD ''%s'' applies to a built-in classifier, not a function handle', ...
           method);
  end
  ## s < S: seed0 + s (independent draws); s = S: seed0 (the target)
  sd = @(s) o.seed + s * (s < S);

  if (handle)
    ## a model given as a function: the players and absent values are the
    ## explainer's (ee_train (@f, ...) records them)
    if (! isempty (o.device))
      error ('ee:badInput', 'ee_convergence: ''device'' does not apply to a function handle');
    end
    fo = ee_explainer_fn_options (o.explainer, o.options, ...
                                  'ee_convergence: ''explainer'' of a function handle');
    Xa = 2 * ones (size (X));        # every column counts
    if (strcmp (method, 'ig'))
      run = @(s) ee_ig (model, X, 'steps', s, 'method', o.method, 'verbose', false, gw{:}, fo{:});
      min_s = 1 + ! strcmp (o.method, 'gausslegendre');
      label = sprintf ('IG (%s) of f', o.method);
    elseif (strcmp (method, 'kernelshap'))
      run = @(s) ee_sv (model, X, 'method', 'kernelshap', 'samples', s * o.coalitions, 'seed', o.seed + s * (s < S), ...
                        'verbose', false, gw{:}, fo{:});
      min_s = 1;
      label = 'KernelSHAP of f';
    elseif (strcmp (method, 'lime'))
      run = @(s) ee_lime (model, X, 'samples', s * o.coalitions, 'seed', sd (s), 'verbose', false, gw{:}, fo{:});
      min_s = 1;
      label = 'LIME of f';
    else
      run = @(s) ee_sv (model, X, 'samples', s, 'seed', o.seed + s * (s < S), 'verbose', false, gw{:}, fo{:});
      min_s = 1;
      label = 'SV of f';
    end
  elseif (strcmp (method, 'ig'))
    run = @(s) ee_ig (model, X, 'steps', s, 'method', o.method, 'verbose', false, gw{:}, o.options{:});
    min_s = 1 + ! strcmp (o.method, 'gausslegendre');
    label = sprintf ('IG (%s)', o.method);
  elseif (strcmp (method, 'kernelshap'))
    run = @(s) ee_sv (model, X, 'method', 'kernelshap', 'samples', s * o.coalitions, 'seed', o.seed + s * (s < S), ...
                      'verbose', false, gw{:}, o.options{:});
    min_s = 1;
    label = 'KernelSHAP';
  elseif (strcmp (method, 'lime'))
    run = @(s) ee_lime (model, X, 'samples', s * o.coalitions, 'seed', sd (s), 'verbose', false, gw{:}, o.options{:});
    min_s = 1;
    label = 'LIME';
  elseif (strcmp (method, 'gradientshap'))
    run = @(s) ee_gradient (model, X, 'method', 'gradientshap', 'samples', s, 'seed', sd (s), 'verbose', false, ...
                            gw{:}, o.options{:});
    min_s = 1;
    label = 'GradientSHAP';
  elseif (tunnel)
    run = @(s) ee_gradient (model, X, 'noise', method, 'samples', s, 'seed', sd (s), 'verbose', false, gw{:}, ...
                            o.options{:});
    min_s = 1;
    label = method;
  else
    ## s < S: seed0 + s (independent permutations); s = S: seed0 (the target)
    run = @(s) ee_sv (model, X, 'samples', s, 'seed', o.seed + s * (s < S), ...
                      'verbose', false, gw{:}, o.options{:});
    min_s = 1;
    label = 'SV';
  end

  C = struct ();
  C.method = method;
  C.ig_method = o.method;
  if (coalitions)
    C.coalitions = o.coalitions;
  end
  C.seed = o.seed;
  C.S = S;
  C.N = N;
  C.T = T;
  C.s = 1:S;
  C.mse = NaN (N, S);
  C.spearman = NaN (N, S);
  C.top5 = NaN (N, S);
  C.passes = NaN (1, S);
  C.seconds = NaN (1, S);
  done = false (1, S);

  ## resume from a checkpoint written for the same arguments
  ckey = '';
  if (! isempty (o.checkpoint))
    mkey = model;
    if (handle)
      mkey = {func2str(model), o.options, o.explainer};
    end
    mname = method;                  # (the keys of IG and SV runs stay those of earlier versions)
    if (coalitions)
      mname = sprintf ('%s/%d', method, o.coalitions);
    end
    if (! isempty (o.options) && ! handle)
      mname = {mname, o.options};    # (a handle's options are in mkey already)
    end
    ckey = ee_cache_key ({'ee_convergence v3', mname, o.method, S, o.seed, N, T, X, mkey});
    if (exist (o.checkpoint, 'file'))
      try
        P = load (o.checkpoint);
        if (isfield (P, 'ckey') && strcmp (P.ckey, ckey))
          C.mse = P.mse; C.passes = P.passes; C.seconds = P.seconds; done = P.done;
          C.spearman = P.spearman; C.top5 = P.top5;
          if (isempty (o.target) && isfield (P, 'target'))
            o.target = P.target; o.target_info = P.target_info;
          end
          if (o.verbose)
            printf ('ee_convergence: resuming %s from %s (%d of %d values done)\n', ...
                    label, o.checkpoint, sum (done), S);
          end
        end
      catch
      end
    end
  end

  ## the target maps: the expensive explainer at s = S
  if (isempty (o.target))
    t0 = tic ();
    [o.target, o.target_info] = run (S);
    if (! isfield (o.target_info, 'seconds'))
      o.target_info.seconds = toc (t0);
    end
    if (o.verbose)
      printf ('ee_convergence: %s target at s = %d for %d sequences: %.1f s, %.0f passes each\n', ...
              label, S, N, o.target_info.seconds, o.target_info.passes / N);
      fflush (stdout);
    end
  end
  if (! isequal (size (o.target), [N, T]))
    error ('ee:badInput', 'ee_convergence: ''target'' must be %d x %d', N, T);
  end
  C.target = o.target;
  if (isstruct (o.target_info) && isfield (o.target_info, 'passes'))
    C.target_passes = o.target_info.passes / N;
    C.target_seconds = o.target_info.seconds;
  else
    C.target_passes = NaN;
    C.target_seconds = NaN;
  end
  target = double (o.target);

  t_all = tic ();
  for s = 1:S
    if (done(s))
      continue;
    end
    if (s < min_s)
      done(s) = true;
      continue;
    end
    t0 = tic ();
    try
      [A, info] = run (s);
    catch err
      ## KernelSHAP with fewer coalitions than a row's players: no value at s
      if (coalitions && s < S && ! isempty (regexp (err.message, 'do not determine|does not determine|fewer than', 'once')))
        done(s) = true;
        continue;
      end
      rethrow (err);
    end
    C.seconds(s) = toc (t0);
    C.mse(:, s) = mean ((double (A) - target) .^ 2, 2);
    [C.spearman(:, s), C.top5(:, s)] = ee_agreement (Xa, A, target);
    C.passes(s) = info.passes / N;
    done(s) = true;
    if (o.verbose)
      printf ('ee_convergence: %s s = %2d/%d: MSE %.4g (median %.4g), %.0f passes/explanation, %.1f s\n', ...
              label, s, S, mean (C.mse(:, s)), median (C.mse(:, s)), C.passes(s), C.seconds(s));
      fflush (stdout);
    end
    if (! isempty (o.checkpoint))
      P = struct ('ckey', ckey, 'mse', C.mse, 'spearman', C.spearman, 'top5', C.top5, ...
                  'passes', C.passes, 'seconds', C.seconds, ...
                  'done', done, 'target', o.target, 'target_info', o.target_info);
      ee_atomic_save (o.checkpoint, P);
    end
  end
  C.curve = mean (C.mse, 1);
  C.quartiles = ee_quartiles (C.mse);
  if (any (C.mse(:, S) != 0))
    warning ('ee:convergence', ['ee_convergence: the run at s = S differs from the target ' ...
             '(max MSE %g): was the target computed with other options?'], max (C.mse(:, S)));
  end

  C.explainer_mse = [];
  C.explainer_curve = NaN;
  C.explainer_passes = NaN;
  C.explainer_seconds = NaN;
  C.crossing = NaN;
  if (! isempty (o.explainer))
    t0 = tic ();
    if (handle)
      ## with f: the class f predicts and the efficiency projection
      [E, info] = ee_explain (o.explainer, X, 'model', model, gw{:});
      info.passes = 2 * N;            # a pass of the explainer and one of f per row
    else
      [E, info] = ee_explain (o.explainer, X, gw{:});
    end
    C.explainer_seconds = toc (t0);
    C.explainer_mse = mean ((double (E) - target) .^ 2, 2);
    [C.explainer_spearman, C.explainer_top5] = ee_agreement (Xa, E, target);
    C.explainer_curve = mean (C.explainer_mse);
    C.explainer_quartiles = ee_quartiles (C.explainer_mse);
    C.explainer_passes = info.passes / N;
    C.crossing = find (C.curve <= C.explainer_curve, 1);   # at or below: as accurate
    if (isempty (C.crossing))
      C.crossing = NaN;
    end
    if (o.verbose)
      printf ('ee_convergence: Empirical Explainer: MSE %.4g (median %.4g), %g pass/explanation; ', ...
              C.explainer_curve, median (C.explainer_mse), C.explainer_passes);
      printf ('the expensive explainer is closer from s = %d on\n', C.crossing);
    end
  end
  C.total_seconds = toc (t_all);
end

## the curves themselves are tested in tests/octave/test_convergence.m
%!error <METHOD must be> ee_convergence (struct (), int32 ([3 4]), 'shap', 5)
%!error <'saliency' is deterministic> ee_convergence (struct (), int32 ([3 4]), 'saliency', 5)
%!error <must not set 'seed'> ee_convergence (struct (), int32 ([3 4]), 'smoothgrad', 5, 'options', {'seed', 2})
%!error <applies to a built-in> ee_convergence (@(x) x(:, 1), randn (3, 2), 'vargrad', 2, 'verbose', false)
%!test
%! ## a function handle and its explainer: SV's curve against the
%! ## explainer's error, the players from the explainer
%! randn ('seed', 7);
%! w = [1 -2 0.5 3 1]; f = @(x) x * w'; g = [1 1 2 2 3];
%! X = randn (80, 5); Xt = randn (10, 5);
%! e = ee_train (f, X, 'sv', 'groups', g, 'options', {'samples', 2}, 'hidden', [], 'epochs', 60, ...
%!               'lr', 1e-2, 'verbose', false);
%! C = ee_convergence (f, Xt, 'sv', 6, 'explainer', e, 'verbose', false);
%! assert (size (C.mse), [10 6]);
%! assert (C.mse(:, 6), zeros (10, 1));
%! A = ee_sv (f, Xt, 'groups', g, 'samples', 6, 'seed', 1);
%! assert (C.target, A);                      # the explainer's groups were used
%! E = ee_explain (e, Xt, 'model', f);         # the class f predicts, efficiency
%! assert (C.explainer_mse, mean ((E - A) .^ 2, 2), 1e-12);
%! assert (C.explainer_passes, 2);
%! k = find (C.curve <= C.explainer_curve, 1);
%! if (isempty (k)) assert (isnan (C.crossing)); else assert (C.crossing, k); end
%!error <'device' does not apply> ee_convergence (@(x) x(:, 1), randn (3, 2), 'sv', 2, 'device', 'cpu', 'verbose', false)
%!error <S must be> ee_convergence (struct (), int32 ([3 4]), 'ig', 1.5)
%!error <S must be> ee_convergence (struct (), int32 ([3 4]), 'ig', Inf)
%!error <METHOD> ee_convergence (struct (), int32 ([3 4]), {'ig'}, 5)
%!error <'seed'> ee_convergence (struct (), int32 ([3 4]), 'sv', 5, 'seed', -1)
%!error <'target'> ee_convergence (struct (), int32 ([3 4]), 'sv', 5, 'target', [1 2 3])
%!error <name/value> ee_convergence (struct (), int32 ([3 4]), 'ig', 5, 'verbose')

%!test
%! ## KernelSHAP of a built-in classifier, in its own sample count: s x K
%! ## coalitions per row, seed0 + s below S, the target at S with seed0
%! v = load (fullfile (fileparts (which ('ee_sv')), '..', 'tests', 'vectors', 'transformer_tiny.mat'));
%! C = ee_convergence (v.model, v.X, 'kernelshap', 3, 'coalitions', 40, 'seed', 2, 'verbose', false);
%! A = ee_sv (v.model, v.X, 'method', 'kernelshap', 'samples', 120, 'seed', 2, 'verbose', false);
%! assert (C.target, A);
%! assert (C.coalitions, 40);
%! assert (C.mse(:, 3), zeros (rows (v.X), 1));
%! B = ee_sv (v.model, v.X, 'method', 'kernelshap', 'samples', 80, 'seed', 4, 'verbose', false);
%! assert (C.mse(:, 2), mean ((double (B) - double (A)) .^ 2, 2), 1e-12);
%! assert (C.curve(1) > 0 && C.curve(1) >= C.curve(2));   # rows short enough for all 2^n - 2 coalitions are exact: 0
%!error <'coalitions'> ee_convergence (struct (), int32 ([3 4]), 'kernelshap', 5, 'coalitions', 0)

%!test
%! ## LIME in its own sample count, as KernelSHAP: s x K coalitions per row
%! v = load (fullfile (fileparts (which ('ee_sv')), '..', 'tests', 'vectors', 'transformer_tiny.mat'));
%! C = ee_convergence (v.model, v.X, 'lime', 3, 'coalitions', 40, 'seed', 2, 'verbose', false);
%! A = ee_lime (v.model, v.X, 'samples', 120, 'seed', 2, 'verbose', false);
%! assert (C.target, A);
%! assert (C.coalitions, 40);
%! assert (C.mse(:, 3), zeros (rows (v.X), 1));
%! B = ee_lime (v.model, v.X, 'samples', 40, 'seed', 3, 'verbose', false);
%! assert (C.mse(:, 1), mean ((double (B) - double (A)) .^ 2, 2), 1e-12);
%! assert (all (C.curve(1:2) > 0));

%!test
%! ## SmoothGrad: s noise samples (seed0 + s below S).  Its map is a mean of
%! ## independent maps, so the expected MSE of a run at s against the target
%! ## at S is v (1/s + 1/S), v the variance of one sample's map, and half
%! ## the MSE of a second run at S against the target (the floor figure5
%! ## draws) is v / S: the curve falls as s grows and matches that noise.
%! ## (The rows repeated: each copy draws its own noise, from its row's stream.)
%! v = load (fullfile (fileparts (which ('ee_sv')), '..', 'tests', 'vectors', 'transformer_tiny.mat'));
%! X = repmat (v.X, 8, 1);
%! S = 8;
%! C = ee_convergence (v.model, X, 'smoothgrad', S, 'seed', 5, 'options', {'stdev', 0.5}, 'verbose', false);
%! A = ee_gradient (v.model, X, 'noise', 'smoothgrad', 'samples', S, 'seed', 5, 'stdev', 0.5, 'verbose', false);
%! assert (C.target, A);
%! assert (C.mse(:, S), zeros (rows (X), 1));
%! B = ee_gradient (v.model, X, 'noise', 'smoothgrad', 'samples', 2, 'seed', 7, 'stdev', 0.5, 'verbose', false);
%! assert (C.mse(:, 2), mean ((double (B) - double (A)) .^ 2, 2), 1e-12);
%! A2 = ee_gradient (v.model, X, 'noise', 'smoothgrad', 'samples', S, 'seed', 5 + S + 1, 'stdev', 0.5, ...
%!                   'verbose', false);
%! fl = mean (mean ((double (A2) - double (A)) .^ 2, 2)) / 2;     # v / S
%! s = 1:S-1;
%! ratio = C.curve(s) ./ (fl * S * (1 ./ s + 1 / S));
%! assert (all (ratio > 0.5 & ratio < 2), 'MSE over the predicted noise: %s', mat2str (ratio, 3));
%! assert (C.curve(1) > 2.5 * C.curve(S - 1));
%! assert (C.passes(1:S-1) < C.passes(2:S));

%!test
%! ## GradientSHAP and VarGrad: s samples, the seeds as SV's, the background
%! ## (and the tunnel's stdev) through 'options'
%! v = load (fullfile (fileparts (which ('ee_sv')), '..', 'tests', 'vectors', 'transformer_tiny.mat'));
%! bg = v.X(1:2, :);
%! C = ee_convergence (v.model, v.X, 'gradientshap', 4, 'seed', 3, 'options', {'background', bg}, 'verbose', false);
%! A = ee_gradient (v.model, v.X, 'method', 'gradientshap', 'background', bg, 'samples', 4, 'seed', 3, 'verbose', false);
%! assert (C.target, A);
%! B = ee_gradient (v.model, v.X, 'method', 'gradientshap', 'background', bg, 'samples', 1, 'seed', 4, 'verbose', false);
%! assert (C.mse(:, 1), mean ((double (B) - double (A)) .^ 2, 2), 1e-12);
%! assert (C.passes(1:3) < C.passes(2:4));
%! V = ee_convergence (v.model, v.X, 'vargrad', 3, 'options', {'stdev', 0.3}, 'verbose', false);
%! assert (V.target, ee_gradient (v.model, v.X, 'noise', 'vargrad', 'samples', 3, 'stdev', 0.3, 'seed', 1, ...
%!                               'verbose', false));
%!error <needs 'background'>
%! v = load (fullfile (fileparts (which ('ee_sv')), '..', 'tests', 'vectors', 'transformer_tiny.mat'));
%! ee_convergence (v.model, v.X, 'gradientshap', 2, 'verbose', false);
