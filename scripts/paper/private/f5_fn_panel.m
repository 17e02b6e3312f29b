## -*- texinfo -*-
## @deftypefn {} {@var{p} =} f5_fn_panel (@var{M})
## A Figure 5 panel on a model given as a function handle (figure5's
## @qcode{'model'} option): the convergence curve of SV sampling, IG,
## KernelSHAP or LIME (in units of @code{@var{M}.coalitions}, default 16) of
## @code{@var{M}.f} on the rows @code{@var{M}.X} against the method's own
## result at s = S (@code{ee_convergence}), the line of the Empirical
## Explainer @code{@var{M}.explainer} (from @code{ee_train (@@f, @dots{})},
## optional) and the floor, in the struct @code{f5_figure} draws (its
## title and notes set here).
##
## The floor is what the exact attributions would score against the
## target: SV, the per-permutation variance of each player (the target's
## @code{info.variance}) over S, spread over the player's columns as
## @code{ee_sv} spreads its value (a player of k columns adds var / (S k)
## to the sum over the row's F columns); IG, the MSE of IG at 2 S against S;
## KernelSHAP and LIME, half the MSE between the target and a second run at s = S
## with another seed (two independent estimates differ by twice the
## variance of one, which is the target's MSE against the exact values).
## @end deftypefn
function p = f5_fn_panel (M, verbose)
  me = 'figure5';
  if (! (isstruct (M) && isscalar (M)))
    error ('ee:badInput', '%s: ''model'' must be a struct with fields f, X (and explainer, method, S, ...)', me);
  end
  known = {'f', 'X', 'explainer', 'method', 'S', 'name', 'title', 'options', 'seed', 'notes', 'coalitions'};
  bad = setdiff (fieldnames (M), known);
  if (! isempty (bad))
    error ('ee:badInput', '%s: ''model'' has no field ''%s'' (fields: %s)', me, bad{1}, strjoin (known, ', '));
  end
  def = struct ('explainer', [], 'method', 'sv', 'S', 20, 'name', 'model', 'title', '', 'options', {{}}, ...
                'seed', 1, 'notes', {{}}, 'coalitions', 16);
  for nm = fieldnames (def)'
    if (! isfield (M, nm{1}) || isempty (M.(nm{1})))
      M.(nm{1}) = def.(nm{1});
    end
  end
  if (! isfield (M, 'f') || ! is_function_handle (M.f))
    error ('ee:badInput', '%s: ''model''.f must be a function handle (the model)', me);
  end
  if (! isfield (M, 'X') || ! (isnumeric (M.X) && isreal (M.X) && ismatrix (M.X) && rows (M.X) >= 1))
    error ('ee:badInput', '%s: ''model''.X must be the N x F rows to explain', me);
  end
  ## (the toolbox's ee_check is private to scripts/, so the checks are here)
  if (! (ischar (M.method) && any (strcmpi (M.method, {'sv', 'ig', 'kernelshap', 'lime'}))))
    error ('ee:badInput', '%s: ''model''.method must be ''sv'', ''ig'', ''kernelshap'' or ''lime''', me);
  end
  K = M.coalitions;
  if (! (isnumeric (K) && isreal (K) && isscalar (K) && K == fix (K) && K >= 1 && K <= 2^20))
    error ('ee:badInput', '%s: ''model''.coalitions must be a whole number in 1..%d', me, 2^20);
  end
  M.method = lower (M.method);
  if (! (isnumeric (M.S) && isreal (M.S) && isscalar (M.S) && M.S == fix (M.S) && M.S >= 2 && M.S <= 2^20))
    error ('ee:badInput', '%s: ''model''.S must be a whole number in 2..%d', me, 2^20);
  end
  M.S = double (M.S);
  if (! (ischar (M.name) && rows (M.name) == 1 && ! isempty (M.name) && ! any (M.name == 0)))
    error ('ee:badInput', '%s: ''model''.name must be a non-empty text', me);
  end
  if (! iscell (M.options) || ! iscellstr (M.notes))
    error ('ee:badInput', '%s: ''model''.options must be a cell of options and .notes a cell of lines', me);
  end
  X = double (M.X);
  N = rows (X); F = columns (X); S = M.S;
  ## the options of every run: the caller's, then the players and absent
  ## values the explainer was trained with (as ee_convergence adds them),
  ## so the target computed here is the one ee_convergence would compute
  fo = ee_explainer_fn_options (M.explainer, M.options, [me ': ''model''.explainer']);
  if (any (strcmp (M.method, {'kernelshap', 'lime'})))
    if (strcmp (M.method, 'kernelshap'))
      ks = @(seed) ee_sv (M.f, X, 'method', 'kernelshap', 'samples', S * K, 'seed', seed, 'verbose', false, fo{:});
      label = 'KernelSHAP';
    else
      ks = @(seed) ee_lime (M.f, X, 'samples', S * K, 'seed', seed, 'verbose', false, fo{:});
      label = 'LIME';
    end
    [tg, ti] = ks (M.seed);
    ## a seed no run of the curve uses (they take seed + 1 .. seed + S - 1)
    floor_mse = mean ((ks (M.seed + S + 1) - tg) .^ 2, 2) / 2;
    floor_method = sprintf ('half the MSE of a second run at s = %d (%d coalitions) against the target', S, S * K);
  elseif (strcmp (M.method, 'sv'))
    [tg, ti] = ee_sv (M.f, X, 'samples', S, 'seed', M.seed, 'verbose', false, fo{:});
    ## a player's columns: from 'groups' (the last one given wins, as in the gateway)
    k = find (strcmp (fo(1:2:end), 'groups'), 1, 'last');
    if (isempty (k))
      size_of = ones (1, F);
    else
      g = fo{2 * k}(:)';
      ids = unique (g(g > 0));
      size_of = arrayfun (@(v) sum (g == v), ids);
    end
    floor_mse = sum (ti.variance ./ size_of, 2) / (S * F);
    floor_method = sprintf ('per-permutation variance / %d, spread over each player''s columns', S);
    label = 'SV sampling';
  else
    [tg, ti] = ee_ig (M.f, X, 'steps', S, 'verbose', false, fo{:});
    fine = ee_ig (M.f, X, 'steps', 2 * S, 'verbose', false, fo{:});
    floor_mse = mean ((fine - tg) .^ 2, 2);
    floor_method = sprintf ('MSE of IG at s = %d against s = %d', 2 * S, S);
    label = 'IG';
  end
  C = ee_convergence (M.f, X, M.method, S, 'explainer', M.explainer, 'seed', M.seed, 'options', M.options, ...
                      'target', tg, 'target_info', ti, 'coalitions', K, 'verbose', verbose);
  C.floor_mse = floor_mse;
  C.floor = mean (floor_mse);
  C.floor_method = floor_method;
  if (! isfield (C, 'explainer_spearman'))
    C.explainer_spearman = NaN; C.explainer_top5 = NaN;
  end
  p = struct ('name', M.name, 'method', M.method, 'S', S, 'curve', C, 'label', label);
  p.title = M.title;
  if (isempty (p.title))
    names = struct ('sv', 'Shapley Value Sampling', 'ig', 'Integrated Gradients', ...
                    'kernelshap', sprintf ('KernelSHAP (s x %d coalitions)', K), ...
                    'lime', sprintf ('LIME (s x %d coalitions)', K));
    p.title = sprintf ('%s of %s', names.(M.method), M.name);
  end
  p.notes = M.notes;
  if (isempty (p.notes))
    np = F;                            # IG: one value per column
    if (isfield (ti, 'players')) np = columns (ti.players); end
    p.notes = {sprintf('black: %s of the function handle, mean MSE over %d rows (grey: 25th-75th percentile)', ...
                       label, N), ...
               sprintf('%d columns, %d players; floor: %s', F, np, floor_method)};
    if (! isempty (M.explainer))
      p.notes{end+1} = sprintf ('green: Empirical Explainer (one forward pass), Spearman %.2f, top-5 overlap %.2f', ...
                                mean (C.explainer_spearman(! isnan (C.explainer_spearman))), ...
                                mean (C.explainer_top5(! isnan (C.explainer_top5))));
    end
  end
end
