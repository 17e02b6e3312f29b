## -*- texinfo -*-
## @deftypefn  {} {@var{A} =} ee_sv (@var{model}, @var{X}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_sv (@var{model}, @var{X}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_sv (@var{f}, @var{X}, @dots{})
## Shapley Value Sampling of a token classifier's target logit, or of any
## model given as a function handle @var{f} (see "Any model" below).
##
## Each real token is one feature; special tokens and pads form one feature
## that keeps its ids and gets exactly 0.  For each of s random permutations
## the real tokens are added one by one to the baseline (real tokens
## replaced by PAD, under the original input's mask) and each is credited
## with the change of the target logit; @var{A} (N x T single) is the mean
## over permutations.  Cost: 1 + s n forward passes for n real tokens.
##
## Options:
## @table @asis
## @item 'samples'
## s, permutations per sequence (default 20).
## @item 'seed'
## generator seed (default 1).  Row i draws from its own stream, so the same
## seed gives the same numbers for any batch size, thread count, device or
## split of the rows across calls.
## @item 'permutations'
## 1 x N cell; cell i an s x n_i matrix whose rows are permutations of
## 1..n_i (the real tokens of row i in order of position).  Overrides
## 'samples' and 'seed'.
## @item 'exact'
## true: exact Shapley values from all 2^n coalitions (n <= 12), the oracle.
## @item 'baseline'
## 'pad' (default) or an int32 N x T id matrix.
## @item 'incremental'
## true (default): on the CPU, the cnn recomputes only the convolution
## windows that a newly added token touches, and the transformer reuses the
## embedding outputs and first-layer projections of the positions a
## coalition takes from the input or the baseline (the same values up to
## float rounding); false evaluates every perturbed copy with a full pass.
## @item 'target', 'rows', 'batch', 'device', 'precision', 'verbose'
## as for @code{ee_ig}.
## @item 'method'
## @qcode{'sampling'} (default), @qcode{'exact'} (= 'exact', true) or
## @qcode{'kernelshap'}: KernelSHAP over the real tokens as players (any
## model kind, the mlp's features too), with the tokens absent exactly as
## here: the Shapley-kernel weighted least-squares fit of the coalition
## values under efficiency (@code{doc/MODELS.md}, "Coalition methods on the
## built-in models").  Its options: 'samples' (coalitions per row, default
## 2 n + 2048 for n real tokens; once it reaches 2^n - 2 every coalition is
## taken and the values are exact), 'seed', 'paired', 'coalitions' (a 1 x N
## cell, one K_i x n_i logical matrix per row of @var{X}) and 'weights' (a
## cell of K_i-vectors), and 'baseline', 'target', 'rows', 'batch',
## 'device', 'precision', 'verbose', 'incremental' (the transformer's
## layer-0 cache on the CPU; false: full passes).  Row i's coalitions are the handle
## form's with P = n_i from row i's stream, so a handle that wraps the model
## gives the same map.  Cost: 2 + (non-empty coalitions) passes per row,
## all rows' copies filling the passes in length order.  @var{info} adds
## @code{method} ('kernelshap') and @code{coalitions} (per row).
## @end table
##
## @var{info}: @code{target}, @code{fx}, @code{fbaseline}, @code{delta}
## (efficiency: sum(A,2) - (fx - fbaseline), zero up to rounding),
## @code{passes}, @code{seconds}, and @code{variance} (N x T single): the
## sample variance over the permutations of each token's marginal
## contribution, the variance of a one-permutation estimate (0 for s = 1).
## @code{mean (info.variance, 2) / s} estimates the expected squared error
## of the s-sample map against the exact Shapley values (per position,
## pads included): the floor that no approximation of the s-sample target
## can beat on average (figure5 draws it).
##
## @strong{Any model: a function handle.}  @var{f} takes an M x F double
## matrix of rows and returns their scores, M x C (or M x 1), double or
## single.  @var{X} is N x F (double or single); the players are its
## columns, or groups of columns.  For each row, a coalition S of players
## has the value v(S): f at the row with the players outside S replaced by
## the baseline's values, or the mean of f over the K rows of a background
## set (interventional expectation, as MATLAB's @code{shapley} and SHAP's
## explainers define it).  @var{A} (N x F double) holds the Shapley values
## of f's score of the row's target class: by default the class with the
## largest score of f at the row itself.  The permutations are drawn
## exactly as for the built-in models (row i from the stream (seed, i),
## @code{doc/RANDOM.md}), so a handle wrapping a built-in model gives its
## numbers.  f is called with batches of up to @code{'batch'} rows, never
## a row at a time: one call for the rows of @var{X}, then the perturbed
## rows of all permutations (1 + s (P-1) coalitions for P players, K rows
## each; the full coalition is the row itself, whose value f(x) is
## known), packed across rows.  Efficiency holds for every permutation:
## @code{sum (A, 2) = info.fx - info.fbaseline} up to rounding.
##
## Options of the handle form:
## @table @asis
## @item 'baseline'
## 1 x F row (or a scalar for every column): the values of absent players
## (default zeros).
## @item 'background'
## K x F rows: v(S) is the mean over them (K f evaluations per
## coalition).  Excludes 'baseline'.
## @item 'groups'
## 1 x F player ids: the columns with one id form one player (an image
## patch, a one-hot block); the players are the distinct positive ids in
## ascending order; id 0 = no player (the column always keeps the row's
## value, and gets 0).  A player's value is spread equally over its
## columns, so @var{A} keeps the shape of @var{X} and each row still sums
## to f(x) - v(empty); @code{info.players} (N x P) holds the players'
## values themselves.
## @item 'exact'
## true: all 2^P coalitions (P <= 20; 2^P - 1 coalitions of K rows each);
## the same as @code{'method', 'exact'}.
## @item 'method'
## @qcode{'sampling'} (default: Shapley Value Sampling, 'samples'
## permutations), @qcode{'exact'}, or @qcode{'kernelshap'}: KernelSHAP,
## the Shapley values as the weighted least-squares fit of the coalition
## values v(S) by v(empty) + sum over p in S of phi_p, under efficiency
## (sum phi = f(x) - v(empty), imposed exactly), with the Shapley kernel
## (P-1) / (binom(P,|S|) |S| (P-|S|)) as the weights (@code{doc/MODELS.md},
## "Coalition methods").  It sits here rather than in a gateway of its own
## because it estimates the same values from the same v(S) as the other two
## methods, with the same players, baseline, background, groups, target
## and seed: switching one option compares the estimators.
## @item 'samples' (kernelshap)
## coalitions per row (default 2 P + 2048, as SHAP's KernelExplainer's
## @qcode{'auto'}), drawn from the kernel: a size s in 1..P-1 with
## probability proportional to 1 / (s (P - s)), then s players uniformly,
## coalition j of row i from the stream (seed, i, 2^32 0x4B53 + j)
## (@code{doc/RANDOM.md}); each drawn coalition has weight 1.  Once
## 'samples' reaches 2^P - 2, every proper coalition is used once with its
## kernel weight, which gives the exact Shapley values.  Cost: 1 + 'samples'
## coalitions of K rows per row.  Too few coalitions to determine the P
## values is @code{ee:badInput}.
## @item 'paired' (kernelshap)
## true: coalition 2m + 1 is the complement of coalition 2m (antithetic
## pairs; m-th draw from the stream of index m), which cancels the
## even-order terms of the fit's error and usually halves it or better.
## @item 'coalitions' (kernelshap)
## an n x P logical (or 0/1) matrix: the coalitions themselves, the same for
## every row, instead of drawing them (to reproduce a result computed
## elsewhere); rows with no player or all of them carry no information.
## @item 'weights' (kernelshap)
## n weights >= 0 of the given 'coalitions' (default: the Shapley kernel of
## each; use ones (n, 1) to reproduce a drawn set).
## @item 'target'
## 'argmax' (default), a class for every row, or one per row.
## @item 'samples', 'seed', 'rows', 'batch' (default 1024), 'verbose'
## as above.
## @end table
##
## @var{info} of the handle form: @code{target}, @code{fx},
## @code{fbaseline} (v of the empty coalition), @code{delta},
## @code{players}, @code{variance} (N x P, sampling), @code{method},
## @code{steps} (permutations) or @code{coalitions} (per row, kernelshap),
## @code{passes} (rows
## f evaluated), @code{calls} (calls of f), @code{seconds},
## @code{seconds_callback} (inside the gateway's call of f: calling f,
## checking its scores; the perturbed rows are generated straight into the
## array f gets, one array kept from call to call) and @code{seconds_f}
## (inside f's call alone).
##
## Errors: an error inside f is raised again as @code{ee:callbackError},
## whose message holds f's message and identifier and the call in which it
## happened; scores of the wrong size or class, or NaN or Inf, are
## @code{ee:badInput} naming the call; Ctrl-C inside f or between calls is
## @code{ee:interrupted}.  Nothing is left allocated in any case.
##
## @example
## w = [2; -1; 0.5]; b = [1 1 1];
## A = ee_sv (@@(x) x * w, [3 0 2], 'baseline', b, 'exact', true)
## @result{} A = 4 1 0.5      # w' .* (x - b), a linear model's Shapley values
## @end example
## @example
## A = ee_sv (@@(x) x * w, [3 0 2], 'baseline', b, 'method', 'kernelshap', 'samples', 6)
## @result{} A = 4 1 0.5      # all 2^3 - 2 coalitions: the exact values again
## @end example
## @seealso{ee_ig, ee_lime, ee_occlusion, ee_predict}
## @end deftypefn

## The function itself is the MEX file beside this help stub.

%!shared vdir, v, c, tol
%! addpath (fullfile (fileparts (which ('ee_sv')), '..', 'tests', 'octave'));   # assert_budget_refusal
%! vdir = fullfile (fileparts (which ('ee_sv')), '..', 'tests', 'vectors');
%! v = load (fullfile (vdir, 'transformer_tiny.mat'));
%! c = load (fullfile (vdir, 'cnn_tiny.mat'));
%! tol = @(w, ref) 1e-4 * max (max (abs (ref(:))), max (abs (w.logits(:))));

%!function phi = shapley_outside (w, i)
%!  ## exact Shapley values of row i from outside: every coalition through ee_predict
%!  x = w.X(i, :); pos = find (x ~= 1 & x ~= 3 & x ~= 4); n = numel (pos);
%!  S = dec2bin (0:2^n-1, n) == '1';            # coalitions, one per row
%!  X = repmat (x, rows (S), 1);
%!  b = X(:, pos); b(~S) = 1; X(:, pos) = b;    # absent real tokens -> PAD
%!  [~, lg] = ee_predict (w.model, int32 (X), 'mask', repmat (x ~= 1, rows (S), 1));
%!  val = double (lg(:, w.target(i)));
%!  phi = zeros (1, numel (x)); k = sum (S, 2);
%!  for f = 1:n
%!    without = find (! S(:, f)); with = without + 2^(n - f);
%!    wts = factorial (k(without)) .* factorial (n - k(without) - 1) / factorial (n);
%!    phi(pos(f)) = sum (wts .* (val(with) - val(without)));
%!  end
%!endfunction

%!function [phi, sigma2] = shapley_moments (w, i)
%!  ## the mean (exact Shapley value) and the population variance over all
%!  ## orders of each real token's marginal contribution, from every coalition
%!  x = w.X(i, :); pos = find (x ~= 1 & x ~= 3 & x ~= 4); n = numel (pos);
%!  S = dec2bin (0:2^n-1, n) == '1';
%!  X = repmat (x, rows (S), 1);
%!  b = X(:, pos); b(~S) = 1; X(:, pos) = b;
%!  [~, lg] = ee_predict (w.model, int32 (X), 'mask', repmat (x ~= 1, rows (S), 1));
%!  val = double (lg(:, w.target(i)));
%!  phi = zeros (1, numel (x)); m2 = phi; k = sum (S, 2);
%!  for f = 1:n
%!    without = find (! S(:, f)); with = without + 2^(n - f);
%!    wts = factorial (k(without)) .* factorial (n - k(without) - 1) / factorial (n);
%!    phi(pos(f)) = sum (wts .* (val(with) - val(without)));
%!    m2(pos(f)) = sum (wts .* (val(with) - val(without)) .^ 2);
%!  end
%!  sigma2 = m2 - phi .^ 2;
%!endfunction

%!test
%! ## the per-permutation variance: with all n! orders it is the population
%! ## variance over orders (times n!/(n!-1), a sample variance); by sampling
%! ## it converges to it; and mean(variance)/s predicts the squared error of
%! ## s-sample maps against the exact values (the floor of figure5)
%! i = 3; n = v.n_real(i);             # 7 real tokens: 5040 orders
%! [phi, sigma2] = shapley_moments (v, i);
%! assert (max (sigma2) > 0);
%! p = {perms(1:n)};
%! [A, info] = ee_sv (v.model, v.X(i, :), 'permutations', p, 'verbose', false);
%! nf = factorial (n);
%! assert (size (info.variance), size (A));
%! assert (double (info.variance), sigma2 * nf / (nf - 1), 1e-4 * max (sigma2) + 1e-9);
%! [~, info] = ee_sv (v.model, v.X(i, :), 'samples', 4000, 'seed', 2, 'verbose', false);
%! assert (double (info.variance), sigma2, 0.1 * max (sigma2));
%! s = 4; err = zeros (300, 1);
%! for r = 1:300
%!   A = ee_sv (v.model, v.X(i, :), 'samples', s, 'seed', 100 + r, 'verbose', false);
%!   err(r) = mean ((double (A) - phi) .^ 2);
%! end
%! assert (mean (err), mean (sigma2) / s, 0.2 * mean (sigma2) / s);
%! [~, info] = ee_sv (v.model, v.X, 'samples', 1, 'verbose', false);
%! assert (all (info.variance(:) == 0));

%!test
%! ## the reference fields: SV with the given permutations, exact Shapley values
%! for f = {'transformer_tiny', 'cnn_tiny', 'cnn_tiny_nobias'}
%!   w = load (fullfile (vdir, [f{1} '.mat']));
%!   [A, info] = ee_sv (w.model, w.X, 'permutations', w.sv_perms, 'verbose', false);
%!   assert (double (A), w.sv_expected, tol (w, w.sv_expected));
%!   assert (info.fbaseline, w.fbaseline, tol (w, w.fx));
%!   assert (info.forward_passes, 2 * rows (w.X) + 3 * sum (w.n_real));
%!   ok = ! any (isnan (w.shapley_exact), 2);
%!   A = ee_sv (w.model, w.X, 'exact', true, 'rows', find (ok), 'verbose', false);
%!   assert (double (A), w.shapley_exact(ok, :), tol (w, w.shapley_exact(ok, :)));
%! end

%!test
%! ## exact Shapley values enumerated from outside (ee_predict with 'mask')
%! ## agree with 'exact' and, within sampling error, with s = 3000
%! for i = [1 3 5]
%!   phi = shapley_outside (v, i);
%!   A = ee_sv (v.model, v.X, 'exact', true, 'rows', i, 'verbose', false);
%!   assert (double (A), phi, tol (v, phi));
%!   A = ee_sv (v.model, v.X, 'samples', 3000, 'rows', i, 'verbose', false);
%!   assert (double (A), phi, 0.05 * max (abs (phi)) + 1e-3);
%! end

%!test
%! ## efficiency holds for every single permutation
%! for i = 1:rows (v.X)
%!   for r = 1:3
%!     p = v.sv_perms; p{i} = p{i}(r, :);
%!     for j = setdiff (1:5, i) p{j} = p{j}(1, :); end
%!     [A, info] = ee_sv (v.model, v.X, 'permutations', p, 'verbose', false);
%!     assert (abs (info.delta(i)) < tol (v, v.fx));
%!   end
%! end

%!test
%! ## all n! permutations give the exact Shapley values
%! i = 5; n = v.n_real(i);
%! p = cell (1, 5); for j = 1:5 p{j} = 1:v.n_real(j); end
%! p{i} = perms (1:n);
%! for j = setdiff (1:5, i) p{j} = repmat (p{j}, rows (p{i}), 1); end
%! A = ee_sv (v.model, v.X, 'permutations', p, 'verbose', false);
%! assert (double (A(i, :)), shapley_outside (v, i), tol (v, v.fx));

%!test
%! ## permutations for many rows (one buffer, not one per row): row r of a
%! ## 100-row X gets the map of its own row of the 5-row call
%! X = repmat (v.X, 20, 1); p = repmat (v.sv_perms(:)', 1, 20);
%! A = ee_sv (v.model, X, 'permutations', p, 'verbose', false);
%! B = ee_sv (v.model, v.X, 'permutations', v.sv_perms, 'verbose', false);
%! assert (A, repmat (B, 20, 1));

%!test
%! ## special tokens and pads get exactly 0
%! A = ee_sv (v.model, v.X, 'samples', 5, 'verbose', false);
%! assert (all (A(v.X == 1 | v.X == 3 | v.X == 4) == 0));

%!test
%! ## a token the model ignores (embedding equal to PAD's) gets exactly 0
%! m = c.model; x = c.X(1, :); tok = x(3);
%! m.E_tok(tok, :) = 0;
%! A = ee_sv (m, c.X, 'samples', 10, 'verbose', false);
%! assert (all (A(c.X == tok) == 0));

%!test
%! ## two symmetric tokens (a bag-of-words cnn, the same token twice) get
%! ## equal values exactly with all coalitions, and in expectation by sampling
%! m = ee_train (struct ('kind', 'cnn', 'd', 4, 'filters', 6, 'widths', 1), ...
%!               int32 ([3 5 6 4 1; 3 7 8 4 1]), [1; 2], 'epochs', 1, 'verbose', false, 'vocab', 10);
%! x = int32 ([3 5 6 5 7 4]);
%! m.T = 6; 
%! e = ee_sv (m, x, 'exact', true, 'verbose', false);
%! assert (abs (e(2) - e(4)) < 1e-6 * max (abs (e)));
%! A = ee_sv (m, x, 'samples', 4000, 'verbose', false);
%! assert (abs (A(2) - A(4)) < 0.05 * max (abs (e)) + 1e-4);

%!test
%! ## same seed: the same bits for any batch size and any split of the rows
%! a = ee_sv (v.model, v.X, 'seed', 3, 'verbose', false);
%! b = ee_sv (v.model, v.X, 'seed', 3, 'batch', 7, 'verbose', false);
%! d = [ee_sv(v.model, v.X, 'seed', 3, 'rows', 1:2, 'verbose', false); ...
%!      ee_sv(v.model, v.X, 'seed', 3, 'rows', 3:5, 'verbose', false)];
%! assert (a, b);
%! assert (a, d);
%! for bt = [1 2 3]
%!   assert (ee_sv (v.model, v.X, 'seed', 3, 'batch', bt, 'verbose', false), a);
%! end
%! ## 'rows' as a logical mask selects like X(mask, :)
%! assert (ee_sv (v.model, v.X, 'seed', 3, 'rows', logical ([0 1 0 1 1]), 'verbose', false), a([2 4 5], :));
%! e = ee_sv (v.model, v.X, 'seed', 4, 'verbose', false);
%! assert (any (abs (a(:) - e(:)) > 1e-3));

%!test
%! ## the incremental cnn path equals full passes within float32 rounding
%! for f = {'cnn_tiny', 'cnn_tiny_nobias'}
%!   w = load (fullfile (vdir, [f{1} '.mat']));
%!   [a, ia] = ee_sv (w.model, w.X, 'samples', 30, 'seed', 5, 'verbose', false);
%!   [b, ib] = ee_sv (w.model, w.X, 'samples', 30, 'seed', 5, 'incremental', false, 'verbose', false);
%!   assert (double (a), double (b), tol (w, b));
%!   assert (ia.fbaseline, ib.fbaseline, tol (w, w.fx));
%!   assert (ia.forward_passes, ib.forward_passes);
%! end
%! ## a cnn of a real dataset's size (fortunes: T 64, V 2334, 6 classes) on
%! ## synthetic rows, so that the test needs no dataset (it runs from the
%! ## installed package too)
%! rand ('state', 3);
%! T = 64; V = 2334; Xs = ones (204, T, 'int32');
%! for i = 1:204
%!   L = randi ([3 T-2]);
%!   Xs(i, 1:L+2) = [3 randi([5 V], 1, L) 4];
%! end
%! m = ee_train ('cnn', Xs(1:200,:), randi (6, 200, 1), 'epochs', 1, 'verbose', false, 'vocab', V);
%! X = Xs(201:204,:);
%! a = ee_sv (m, X, 'samples', 4, 'verbose', false);
%! b = ee_sv (m, X, 'samples', 4, 'incremental', false, 'verbose', false);
%! [~, lg] = ee_predict (m, X);
%! assert (double (a), double (b), 1e-4 * max (abs (lg(:))));

%!error id=ee:badInput ee_sv (v.model, v.X, 'samples', 0)
%!error id=ee:badInput ee_sv (v.model, v.X, 'precision', 'half')
%!error id=ee:notSupported ee_sv (v.model, v.X, 'device', 'cpu', 'precision', 'tf32', 'verbose', false)
%!error id=ee:badInput ee_sv (v.model, v.X, 'seed', -1)
%!error id=ee:badInput ee_sv (v.model, v.X, 'baseline', 'zero')
%!error id=ee:badInput ee_sv (v.model, v.X, 'target', 0)
%!error id=ee:badInput ee_sv (v.model, v.X, 'permutations', {1})
%!error id=ee:badInput
%! p = v.sv_perms; p{1}(1, 1:2) = 1;   % not a permutation
%! ee_sv (v.model, v.X, 'permutations', p);
%!error id=ee:badInput
%! p = v.sv_perms; p{1} = p{1}(:, 1:end-1);
%! ee_sv (v.model, v.X, 'permutations', p);
%!error id=ee:badInput
%! p = v.sv_perms; p{2} = [p{2}; p{2}];
%! ee_sv (v.model, v.X, 'permutations', p);
%!error id=ee:badInput
%! m = ee_train (struct ('kind', 'cnn', 'd', 2, 'filters', 2, 'widths', 1), ...
%!               int32 ([3 5:17 4 1]), 1, 'classes', 2, 'epochs', 1, 'verbose', false);
%! ee_sv (m, int32 ([3 5:17 4 1]), 'exact', true);   # 13 real tokens: 2^13 coalitions refused
%!test
%! ## the memory budget: refused before allocating, with ee:outOfMemory and
%! ## the estimate; the loaded model is freed (no growth over many refusals)
%! assert_budget_refusal (@() ee_sv (v.model, repmat (v.X, 3000, 1), 'verbose', false));

%!error id=ee:badInput ee_sv (v.model, v.X, 'rows', 0)
%!error id=ee:badInput ee_sv (v.model, v.X, 'rows', true (1, 4))
%!error id=ee:badInput ee_sv (v.model, v.X, 'samples', true)
%!error id=ee:badInput ee_sv (v.model, v.X, 'seed', 1, 'seed', 2)
%!error id=ee:badInput ee_sv (v.model, v.X(:, 1:3))
%!error id=ee:notSupported
%! w = load (fullfile (vdir, 'mlp_tiny.mat'));
%! ee_sv (w.model, w.X);

## ---- the handle form: any model as a function --------------------------------

%!function y = logits_of (m, z, mask)
%!  ## a built-in token model as a function of real-valued rows of ids
%!  [~, lg] = ee_predict (m, int32 (z), 'mask', repmat (mask, rows (z), 1));
%!  y = double (lg);
%!endfunction

%!function y = counted (x, w, B)
%!  ## x w, recording each call's row count; a call of more than B rows fails
%!  global ee_sv_test_calls
%!  ee_sv_test_calls(end+1) = rows (x);
%!  assert (rows (x) <= B);
%!  y = sum (x .* w', 2);
%!endfunction

%!function phi = interaction_exact (x, w, c, bg)
%!  ## closed form of f(x) = x*w + c x1 x2 over a background (rows of bg)
%!  m = mean (bg, 1); m12 = mean (bg(:,1) .* bg(:,2));
%!  phi = w' .* (x - m);
%!  phi(:,1) += c / 2 * (x(:,1) * m(2) - m12 + x(:,1) .* x(:,2) - m(1) * x(:,2));
%!  phi(:,2) += c / 2 * (m(1) * x(:,2) - m12 + x(:,1) .* x(:,2) - x(:,1) * m(2));
%!endfunction

%!test
%! ## a linear model: the Shapley values are w .* (x - b) in closed form, for
%! ## exact enumeration and for sampling (every order gives them), with a
%! ## baseline row, a scalar baseline, zeros and a background set
%! randn ('state', 1);
%! F = 7; w = randn (F, 1); X = randn (9, F); b = randn (1, F); bg = randn (5, F);
%! f = @(x) x * w + 3;
%! for ex = [false true]
%!   [A, info] = ee_sv (f, X, 'baseline', b, 'exact', ex, 'samples', 3, 'verbose', false);
%!   assert (A, w' .* (X - b), 1e-12);
%!   assert (info.fx, X * w + 3, 1e-12);
%!   assert (info.fbaseline, repmat (b * w + 3, 9, 1), 1e-12);
%!   assert (sum (A, 2), info.fx - info.fbaseline, 1e-12);
%!   assert (max (abs (info.delta)) < 1e-12);
%!   assert (ee_sv (f, X, 'exact', ex, 'verbose', false), w' .* X, 1e-12);
%!   assert (ee_sv (f, X, 'baseline', 0.5, 'exact', ex, 'verbose', false), w' .* (X - 0.5), 1e-12);
%!   A = ee_sv (f, X, 'background', bg, 'exact', ex, 'samples', 2, 'verbose', false);
%!   assert (A, w' .* (X - mean (bg)), 1e-12);
%! end

%!test
%! ## groups: a player's value (the sum over its columns for a linear model)
%! ## is spread equally over its columns; id 0 columns are no player (0)
%! randn ('state', 2);
%! F = 6; w = randn (F, 1); X = randn (4, F); b = randn (1, F);
%! g = [4 4 0 9 9 9];
%! [A, info] = ee_sv (@(x) x * w, X, 'groups', g, 'baseline', b, 'exact', true, 'verbose', false);
%! c = w' .* (X - b);
%! p = [sum(c(:,1:2), 2), sum(c(:,4:6), 2)];
%! assert (info.players, p, 1e-12);
%! assert (A, [p(:,1)/2, p(:,1)/2, zeros(4,1), repmat(p(:,2)/3, 1, 3)], 1e-12);
%! assert (sum (A, 2), info.fx - info.fbaseline, 1e-12);

%!test
%! ## a model with an interaction: exact Shapley values equal the closed
%! ## form (a baseline and a background set); sampling converges to them,
%! ## its mean squared error falling as 1/s as info.variance predicts
%! randn ('state', 3);
%! F = 5; w = randn (F, 1); X = randn (40, F); c = 2; bg = randn (6, F);
%! f = @(x) x * w + c * x(:,1) .* x(:,2);
%! E = ee_sv (f, X, 'background', bg, 'exact', true, 'verbose', false);
%! assert (E, interaction_exact (X, w, c, bg), 1e-12);
%! b = randn (1, F);
%! E = ee_sv (f, X, 'baseline', b, 'exact', true, 'verbose', false);
%! assert (E, interaction_exact (X, w, c, b), 1e-12);
%! f3 = @(x) x * w + c * x(:,1) .* x(:,2) + x(:,3) .* x(:,4) .* x(:,5);
%! E = ee_sv (f3, X, 'baseline', b, 'exact', true, 'verbose', false);
%! s = [2 8 32]; err = zeros (size (s));
%! for k = 1:numel (s)
%!   for seed = 1:4
%!     [A, info] = ee_sv (f3, X, 'baseline', b, 'samples', s(k), 'seed', seed, 'verbose', false);
%!     err(k) += mean ((A(:) - E(:)) .^ 2) / 4;
%!     assert (max (abs (info.delta)) < 1e-10);   # efficiency per permutation
%!   end
%!   predicted(k) = mean (info.variance(:)) / s(k);
%! end
%! assert (err(1) > 1e-3);                        # not exact by accident
%! assert (err(2) < err(1) / 2 && err(3) < err(2) / 2, sprintf ('%g ', err));
%! assert (err, predicted, 0.5 * predicted);

%!test
%! ## a handle that wraps a built-in token model gives ee_sv's own numbers
%! ## (same permutations, players and baseline): the players are the real
%! ## tokens in order of position (groups 1..n, specials and pads id 0,
%! ## kept), the baseline the row with PAD at the real tokens, the mask
%! ## the row's own; ids travel as doubles and f turns them into int32.
%! ## 'rows' keeps each row's stream (seed, i). The values agree to the
%! ## rounding of the built-in single output.
%! for name = {'transformer_tiny', 'cnn_tiny'}
%!   w = load (fullfile (vdir, [name{1} '.mat']));
%!   for i = 1:rows (w.X)
%!     x = double (w.X(i, :)); real = x ~= 1 & x ~= 3 & x ~= 4;
%!     g = zeros (size (x)); g(real) = 1:sum (real);
%!     b = x; b(real) = 1;
%!     f = @(z) logits_of (w.model, z, x ~= 1);
%!     [A, info] = ee_sv (f, double (w.X), 'rows', i, 'groups', g, 'baseline', b, 'seed', 3, ...
%!                        'samples', 6, 'verbose', false);
%!     [B, ib] = ee_sv (w.model, w.X, 'rows', i, 'seed', 3, 'samples', 6, 'verbose', false);
%!     scale = max (abs (double (B)));
%!     assert (A, double (B), 1e-6 * scale + 1e-7);
%!     assert (info.target, ib.target);
%!     E = ee_sv (f, double (w.X), 'rows', i, 'groups', g, 'baseline', b, 'exact', true, 'verbose', false);
%!     assert (E, double (ee_sv (w.model, w.X, 'rows', i, 'exact', true, 'verbose', false)), 1e-6 * scale + 1e-7);
%!     if (sum (real) > 1)
%!       assert (any (abs (A - E) > 1e-6 * scale));   # 6 samples are not the exact values
%!     end
%!   end
%! end

%!test
%! ## f is called once per batch, with at most 'batch' rows, batches packed
%! ## across rows; the same bits for any batch and any split of the rows
%! ## (where f's value of a row depends on that row alone: x * w through
%! ## BLAS may not, its bits can change with the number of rows)
%! global ee_sv_test_calls
%! randn ('state', 4);
%! F = 4; w = randn (F, 1); X = randn (6, F); bg = randn (3, F);
%! f = @(x) sum (x .* w', 2) + 0.3 * x(:,1) .* x(:,3);
%! a = ee_sv (f, X, 'background', bg, 'seed', 5, 'samples', 7, 'verbose', false);
%! for B = [1 5 64 5000]
%!   ee_sv_test_calls = [];
%!   [A, info] = ee_sv (@(x) counted (x, w, B) + 0.3 * x(:,1) .* x(:,3), X, 'background', bg, ...
%!                      'seed', 5, 'samples', 7, 'batch', B, 'verbose', false);
%!   assert (A, a);
%!   rows_needed = 6 * (1 + 7 * (F - 1)) * 3;         # coalitions x background rows
%!   assert (info.passes, 6 + rows_needed);
%!   assert (sum (ee_sv_test_calls), info.passes);
%!   assert (numel (ee_sv_test_calls), info.calls);
%!   assert (info.calls, ceil (6 / min (B, max (6, rows_needed))) + ceil (rows_needed / min (B, max (6, rows_needed))));
%! end
%! d = [ee_sv(f, X, 'background', bg, 'seed', 5, 'samples', 7, 'rows', 1:2, 'verbose', false); ...
%!      ee_sv(f, X, 'background', bg, 'seed', 5, 'samples', 7, 'rows', [3 5 4 6], 'verbose', false)];
%! assert (d, a([1 2 3 5 4 6], :));
%! assert (any (abs (a(:) - reshape (ee_sv (f, X, 'background', bg, 'seed', 6, 'samples', 7, 'verbose', false), [], 1)) > 1e-6));
%! clear -global ee_sv_test_calls

%!test
%! ## scores: M x C double or single, M x 1; 'target' picks the class
%! X = [1 2 3; -1 0 2];
%! [A, info] = ee_sv (@(x) [x(:,1), -x(:,1)], X, 'exact', true, 'verbose', false);
%! assert (info.target, [1; 2]);
%! assert (A, [1 0 0; 1 0 0]);
%! A = ee_sv (@(x) single ([x(:,1), 2 * x(:,2)]), X, 'target', 2, 'exact', true, 'verbose', false);
%! assert (A, [0 4 0; 0 0 0]);
%! A = ee_sv (@(x) sum (x, 2), X, 'target', [1; 1], 'exact', true, 'verbose', false);
%! assert (A, X);
%! assert (class (A), 'double');

%!test
%! ## an error inside f: ee:callbackError with f's message and identifier
%! try
%!   ee_sv (@(x) error ('my:own', 'the model broke (%d)', 42), [1 2 3], 'verbose', false);
%!   error ('not raised');
%! catch err
%!   assert (err.identifier, 'ee:callbackError');
%!   assert (! isempty (strfind (err.message, 'the model broke (42)')), err.message);
%!   assert (! isempty (strfind (err.message, 'my:own')), err.message);
%!   assert (! isempty (strfind (err.message, 'call 1')), err.message);
%! end
%! ## a later call, and an undefined function inside f
%! try
%!   ee_sv (@(x) x(:,1) + 1 ./ (rows (x) < 2) * 0 + zeros (rows (x), 1) + undefined_in_f_ (rows (x) > 1), ...
%!          [1 2 3], 'verbose', false);
%!   error ('not raised');
%! catch err
%!   assert (err.identifier, 'ee:callbackError');
%!   assert (! isempty (strfind (err.message, 'undefined_in_f_')), err.message);
%! end
%! ## the session goes on: the same call with a working f
%! assert (ee_sv (@(x) 2 * x(:,1), [1 2 3], 'exact', true, 'verbose', false), [2 0 0]);

%!test
%! ## nothing is kept by calls that fail inside f or on its scores (4 MB
%! ## batches: 100 leaked batches would be 400 MB)
%! rss = @() sscanf (regexp (fileread ('/proc/self/status'), 'VmRSS:\s*(\d+)', 'tokens', 'once'){1}, '%d');
%! X = randn (2, 512);
%! bad = {@(x) ifelse_error_ (x), @(x) [x(:,1); 1], @(x) x(:,1) * NaN};
%! for k = 1:3, try, ee_sv (bad{k}, X, 'samples', 50, 'verbose', false); end, end
%! r0 = rss ();
%! for r = 1:35
%!   for k = 1:3
%!     try, ee_sv (bad{k}, X, 'samples', 50, 'verbose', false); end
%!   end
%! end
%! assert (rss () - r0 < 40000, 'grew by %d kB', rss () - r0);

%!function y = ifelse_error_ (x)
%!  ## fails on the second call (the first is the rows of X themselves)
%!  if (rows (x) > 2) error ('test:late', 'late failure'); end
%!  y = x(:,1);
%!endfunction

%!test
%! ## ee_sv inside f (handle form or a model) is refused, as f's error;
%! ## the outer call ends cleanly and the next call works
%! v = load (fullfile (vdir, 'transformer_tiny.mat'));
%! for inner = {@(x) ee_sv (@(z) z(:,1), x, 'verbose', false), @(x) ee_sv (v.model, v.X, 'verbose', false)}
%!   try
%!     ee_sv (@(x) x(:,1) + 0 * size (inner{1} (x), 1), [1 2 3], 'verbose', false);
%!     error ('not refused');
%!   catch err
%!     assert (err.identifier, 'ee:callbackError');
%!     assert (! isempty (strfind (err.message, 'from inside the model function')), err.message);
%!     assert (! isempty (strfind (err.message, 'ee:notSupported')), err.message);
%!   end
%! end
%! assert (ee_sv (@(x) x(:,2), [1 2 3], 'exact', true, 'verbose', false), [0 2 0]);
%! ## other gateways may run inside f (ee_predict above does)

%!test
%! ## 'target' per row follows the rows 'rows' selects
%! X = [1 2; 3 4; 5 6];
%! f = @(x) [x(:,1), 10 * x(:,2)];
%! [A, info] = ee_sv (f, X, 'target', [1; 2; 1], 'rows', [3 2], 'exact', true, 'verbose', false);
%! assert (info.target, [1; 2]);
%! assert (A, [5 0; 0 40]);

%!test
%! ## the memory budget: refused before f is called, with the estimate
%! assert_budget_refusal (@() ee_sv (@(x) error ('never called'), randn (2, 300), 'samples', 2000, 'verbose', false));

%!error <call 1 of f \(2 rows\).*2x3 int32> ee_sv (@(x) int32 (x), [1 2 3; 4 5 6])
%!error id=ee:badInput ee_sv (@(x) x(1,1), [1 2 3; 4 5 6])
%!error id=ee:badInput ee_sv (@(x) complex (x(:,1), 1), [1 2 3])
%!error id=ee:badInput ee_sv (@(x) {x}, [1 2 3])
%!error <call 2 of f.*NaN> ee_sv (@(x) x(:,1) ./ (rows (x) < 2), [1 2 3], 'verbose', false)
%!error <call 1 of f.*Inf> ee_sv (@(x) x(:,1) / 0, [1 2 3])
%!error id=ee:badInput ee_sv (@(x) [x(:,1), x(:,1)](:, 1:(1 + (rows (x) > 1))), [1 2 3], 'verbose', false)
%!error <baseline.*1 x 3> ee_sv (@(x) x(:,1), [1 2 3], 'baseline', [1 2])
%!error <'baseline' and 'background'> ee_sv (@(x) x(:,1), [1 2 3], 'baseline', [1 2 3], 'background', [1 2 3])
%!error <background.*K x 3> ee_sv (@(x) x(:,1), [1 2 3], 'background', ones (2, 2))
%!error id=ee:badInput ee_sv (@(x) x(:,1), [1 2 3], 'groups', [1 2])
%!error id=ee:badInput ee_sv (@(x) x(:,1), [1 2 3], 'groups', [1 -2 1])
%!error id=ee:badInput ee_sv (@(x) x(:,1), [1 NaN 3])
%!error id=ee:badInput ee_sv (@(x) x(:,1), {1})
%!error <2\^P.*21 players> ee_sv (@(x) x(:,1), 1:21, 'exact', true)
%!error <'target' of row 1 is 3.*2 scores> ee_sv (@(x) [x(:,1) x(:,1)], [1 2 3], 'target', 3)
%!error <unknown option 'incremental'> ee_sv (@(x) x(:,1), [1 2 3], 'incremental', false)
%!error id=ee:badInput ee_sv (@(x) x(:,1), [1 2 3], 'samples', 0)

## ---- KernelSHAP ('method', 'kernelshap') ------------------------------------

%!function phi = kernelshap_outside (f, x, bg, Z, w)
%!  ## KernelSHAP from its definition (MODELS.md), outside libcore: each
%!  ## coalition's value straight from f, the constrained weighted least
%!  ## squares through its KKT system (a Lagrange multiplier for efficiency)
%!  val = @(s) mean (f (bg .* ! s + x .* s));     # absent columns from each background row
%!  P = numel (x); v0 = val (false (1, P)); v1 = f (x);
%!  v = zeros (rows (Z), 1);
%!  for j = 1:rows (Z), v(j) = val (Z(j, :)); end
%!  Zd = double (Z);
%!  K = [2 * Zd' * (w .* Zd), ones(P, 1); ones(1, P), 0];
%!  sol = K \ [2 * Zd' * (w .* (v - v0)); v1 - v0];
%!  phi = sol(1:P)';
%!endfunction

%!test
%! ## linear model: KernelSHAP is exact for any determined set of coalitions
%! ## (the additive fit has no residual): w .* (x - mean (background))
%! wl = [2; -1; 0.5; 3; -2]; X = randn (4, 5); bg = randn (7, 5);
%! [A, info] = ee_sv (@(x) x * wl, X, 'background', bg, 'method', 'kernelshap', 'samples', 25, 'seed', 3);
%! assert (A, wl' .* (X - mean (bg)), 1e-12);
%! assert (info.method, 'kernelshap'); assert (info.coalitions, 25);
%! assert (info.passes, 4 + 4 * 26 * 7); assert (abs (info.delta) < 1e-12);
%! ## and with every coalition (samples >= 2^P - 2) on a baseline row
%! A = ee_sv (@(x) x * wl, X, 'baseline', 1, 'method', 'kernelshap', 'samples', 30);
%! assert (A, wl' .* (X - 1), 1e-12);

%!test
%! ## the interaction model f = x1 x2 + x3 against its closed form: phi_1 =
%! ## mean_k (x1 - b1k) (x2 + b2k) / 2, phi_2 likewise, phi_3 = x3 - mean b3
%! f = @(x) x(:,1) .* x(:,2) + x(:,3);
%! X = randn (3, 3); bg = randn (5, 3);
%! A = ee_sv (f, X, 'background', bg, 'method', 'kernelshap', 'samples', 6);
%! for i = 1:3
%!   x = X(i, :);
%!   ref = [mean((x(1) - bg(:,1)) .* (x(2) + bg(:,2))) / 2, mean((x(2) - bg(:,2)) .* (x(1) + bg(:,1))) / 2, ...
%!          x(3) - mean(bg(:,3))];
%!   assert (A(i, :), ref, 1e-12);
%! end
%! ## all coalitions = exact Shapley values, on a nonlinear model of 6 players
%! g = @(x) tanh (x * [1; -2; 0.5; 1; 0; 2]) + x(:,1) .* x(:,4) .* x(:,6);
%! X = randn (2, 6);
%! E = ee_sv (g, X, 'baseline', 0.3, 'exact', true);
%! K = ee_sv (g, X, 'baseline', 0.3, 'method', 'kernelshap', 'samples', 62);
%! assert (K, E, 1e-12 * max (abs (E(:))));

%!test
%! ## given coalitions: against the definition computed outside libcore, with
%! ## the kernel's weights and with weights of one's own; a 1 % change shows
%! f = @(x) sin (x * [1; 2; -1; 0.5]) + x(:,1) .* x(:,3);
%! x = [0.3 -0.7 1.1 0.4]; bg = randn (3, 4);
%! Z = logical ([1 0 0 0; 0 1 1 0; 1 0 1 1; 0 0 0 1; 1 1 0 0; 0 1 0 1; 1 1 1 0; 0 0 1 0]);
%! s = sum (Z, 2); P = 4;
%! kw = (P - 1) ./ (arrayfun (@(k) nchoosek (P, k), s) .* s .* (P - s));
%! A = ee_sv (f, x, 'background', bg, 'method', 'kernelshap', 'coalitions', Z);
%! ref = kernelshap_outside (f, x, bg, Z, kw);
%! assert (A, ref, 1e-10 * max (abs (ref)));
%! assert (max (abs (A - ref .* [1.01 1 1 1])) > 1e-10 * max (abs (ref)));
%! wt = (1:8)' / 3;
%! A = ee_sv (f, x, 'background', bg, 'method', 'kernelshap', 'coalitions', double (Z), 'weights', wt);
%! assert (A, kernelshap_outside (f, x, bg, Z, wt), 1e-10 * max (abs (ref)));

%!test
%! ## the error against the exact values falls with the samples (10 players:
%! ## 1022 proper coalitions), plain and paired, over 5 seeds
%! g = @(x) tanh (x * (1:10)' / 10) + x(:,1) .* x(:,2) .* x(:,3) - x(:,4) .* x(:,9);
%! X = randn (2, 10);
%! E = ee_sv (g, X, 'exact', true);
%! S = [40 160 640];
%! for paired = [false true]
%!   err = zeros (size (S));
%!   for k = 1:numel (S)
%!     for seed = 1:5
%!       A = ee_sv (g, X, 'method', 'kernelshap', 'samples', S(k), 'seed', seed, 'paired', paired);
%!       err(k) += sqrt (mean ((A(:) - E(:)) .^ 2)) / 5;
%!     end
%!   end
%!   assert (err(1) > 1e-4 && err(2) < err(1) && err(3) < err(2) && err(3) < err(1) / 2.5, sprintf ('%g ', err));
%! end

%!test
%! ## the interaction model on 10 columns, f = x w + 2 x_1 x_2, baseline b:
%! ## sampled KernelSHAP converges to the closed form w .* (x - b) plus
%! ## (x_1 - b_1)(x_2 + b_2) and (x_2 - b_2)(x_1 + b_1) on columns 1 and 2
%! wl = (1:10)' / 5 - 1; b = linspace (-0.5, 0.5, 10);
%! f = @(x) x * wl + 2 * x(:,1) .* x(:,2);
%! X = [0.9 -1.2 0.3 1 -0.4 0.7 0.2 -0.8 1.1 0.5; -0.6 0.8 1.2 -0.3 0.4 -1 0.9 0.1 -0.2 0.6];
%! closed = wl' .* (X - b);
%! closed(:,1) += (X(:,1) - b(1)) .* (X(:,2) + b(2));
%! closed(:,2) += (X(:,2) - b(2)) .* (X(:,1) + b(1));
%! S = [40 160 640]; err = zeros (2, 3);
%! for k = 1:3
%!   for seed = 1:5
%!     A = ee_sv (f, X, 'baseline', b, 'method', 'kernelshap', 'samples', S(k), 'seed', seed);
%!     err(1, k) += sqrt (mean ((A(:) - closed(:)) .^ 2)) / 5;
%!     A = ee_sv (f, X, 'baseline', b, 'samples', ceil (S(k) / 9), 'seed', seed);   # SV, as many coalitions
%!     err(2, k) += sqrt (mean ((A(:) - closed(:)) .^ 2)) / 5;
%!   end
%! end
%! assert (all (err(:, 1) > 1e-3) && all (diff (err, 1, 2)(:) < 0) && all (err(:, 3) < err(:, 1) / 2.5), ...
%!         mat2str (err, 3));
%! A = ee_sv (f, X, 'baseline', b, 'method', 'kernelshap', 'samples', 1022);
%! assert (A, closed, 1e-12);

%!test
%! ## same bits for any batch and row split; groups spread over their columns
%! g = @(x) x(:,1) .* x(:,2) + cos (x(:,3) + x(:,4)) - x(:,5) .* x(:,3);
%! X = randn (5, 5); gr = [1 1 2 3 4];   # 4 players: 14 proper coalitions, 9 drawn
%! ks = @(varargin) ee_sv (g, X, 'method', 'kernelshap', 'samples', 9, 'groups', gr, varargin{:});
%! A = ks ('seed', 4);
%! assert (isequal (A, ks ('seed', 4, 'batch', 3)));
%! B = ks ('seed', 4, 'rows', [2 4 5]);
%! assert (isequal (B, A([2 4 5], :)));
%! assert (A(:, 1), A(:, 2));
%! assert (! isequal (A, ks ('seed', 5)));

%!error <does not determine|do not determine> ee_sv (@(x) x(:,1), [1 2 3], 'method', 'kernelshap', 'coalitions', [1 0 0])
%!error <'coalitions' replaces> ee_sv (@(x) x(:,1), [1 2 3], 'method', 'kernelshap', 'coalitions', [1 0 0], 'samples', 4)
%!error <'weights' are the weights> ee_sv (@(x) x(:,1), [1 2 3], 'method', 'kernelshap', 'weights', 1)
%!error <'coalitions'.*n x 3> ee_sv (@(x) x(:,1), [1 2 3], 'method', 'kernelshap', 'coalitions', [1 0])
%!error <coalitions'\(1,2\) = 2> ee_sv (@(x) x(:,1), [1 2 3], 'method', 'kernelshap', 'coalitions', [1 2 0])
%!error <'weights'\(1\) = -1> ee_sv (@(x) x(:,1), [1 2 3], 'method', 'kernelshap', 'coalitions', [1 0 0; 0 1 0], 'weights', [-1 1])
%!error <'paired' applies> ee_sv (@(x) x(:,1), [1 2 3], 'paired', true)
%!error <contradicts> ee_sv (@(x) x(:,1), [1 2 3], 'method', 'kernelshap', 'exact', true)
%!error <'width' does not apply> ee_sv (@(x) x(:,1), [1 2 3], 'width', 1)
%!error id=ee:badInput ee_sv (@(x) x(:,1), [1 2 3], 'method', 'lime')

%!test
%! ## 'method', 'kernelshap' on the built-in transformer and cnn: every
%! ## coalition gives the exact values; drawn coalitions equal the handle
%! ## form's on a handle that wraps the model; given ones too
%! for name = {'transformer_tiny', 'cnn_tiny'}
%!   w = load (fullfile (vdir, [name{1} '.mat']));
%!   E = ee_sv (w.model, w.X, 'exact', true, 'verbose', false);
%!   [K, info] = ee_sv (w.model, w.X, 'method', 'kernelshap', 'samples', 2 ^ 20, 'verbose', false);
%!   assert (info.method, 'kernelshap');
%!   assert (double (K), double (E), 1e-4 * max (abs (double (E(:)))));
%!   assert (abs (info.delta) < 1e-4 * max (abs (info.fx)) + 1e-5);
%!   [B, ib] = ee_sv (w.model, w.X, 'method', 'kernelshap', 'samples', 30, 'paired', true, 'seed', 5, ...
%!                    'verbose', false);
%!   nreal = sum (w.X ~= 1 & w.X ~= 3 & w.X ~= 4, 2);
%!   ## one player: phi = f(x) - v(empty), no fit; 2^n - 2 <= 30: every coalition once
%!   assert (ib.coalitions, min (30, 2 .^ nreal - 2) .* (nreal > 1));
%!   for i = 1:rows (w.X)
%!     x = double (w.X(i, :)); real = x ~= 1 & x ~= 3 & x ~= 4; n = sum (real);
%!     g = zeros (size (x)); g(real) = 1:n;
%!     b = x; b(real) = 1;
%!     f = @(z) logits_of (w.model, z, x ~= 1);
%!     A = ee_sv (f, double (w.X), 'rows', i, 'groups', g, 'baseline', b, 'method', 'kernelshap', ...
%!                'samples', 30, 'paired', true, 'seed', 5, 'verbose', false);
%!     assert (A, double (B(i, :)), 2e-5 * max (abs (A)) + 1e-6);
%!     Z = rand (3 * n + 3, n) > 0.5; wt = rand (rows (Z), 1);
%!     C = ee_sv (f, x, 'groups', g, 'baseline', b, 'method', 'kernelshap', 'coalitions', Z, 'weights', wt, ...
%!                'verbose', false);
%!     Ci = ee_sv (w.model, w.X(i, :), 'method', 'kernelshap', 'coalitions', {Z}, 'weights', {wt}, 'verbose', false);
%!     assert (C, double (Ci), 2e-5 * max (abs (C)) + 1e-6);
%!   end
%! end

%!test
%! ## kernelshap on an mlp (Shapley sampling refuses it): every coalition
%! ## gives the exact values, computed here from all 2^D coalitions
%! w = load (fullfile (vdir, 'mlp_tiny.mat'));
%! x = w.X(1, :); D = numel (x);
%! [A, info] = ee_sv (w.model, x, 'method', 'kernelshap', 'samples', 2 ^ 20, 'verbose', false);
%! S = dec2bin (0:2^D-1, D) == '1';
%! [~, lg] = ee_predict (w.model, single (S .* x));
%! v = double (lg(:, info.target));
%! phi = zeros (1, D); k = sum (S, 2);
%! for p = 1:D
%!   without = find (! S(:, p)); with = without + 2^(D - p);
%!   wts = factorial (k(without)) .* factorial (D - k(without) - 1) / factorial (D);
%!   phi(p) = sum (wts .* (v(with) - v(without)));
%! end
%! assert (double (A), phi, 1e-4 * max (abs (phi)));

%!test
%! ## kernelshap's bad input: ee:badInput naming the option
%! w = load (fullfile (vdir, 'cnn_tiny.mat'));
%! bad = {{'coalitions', {true(2, 2)}}, {'width', 1}, {'window', 2}, {'incremental', 2}, {'permutations', {}}};
%! addpath (fullfile (fileparts (which ('ee_sv')), '..', 'tests', 'octave'));   # assert_bad_options
%! assert_bad_options (@(o) ee_sv (w.model, w.X, 'method', 'kernelshap', o{:}, 'verbose', false), bad);
