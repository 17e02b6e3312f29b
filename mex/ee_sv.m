## -*- texinfo -*-
## @deftypefn  {} {@var{A} =} ee_sv (@var{model}, @var{X}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_sv (@var{model}, @var{X}, @dots{})
## Shapley Value Sampling of a token classifier's target logit.
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
## @seealso{ee_ig, ee_predict}
## @end deftypefn

## The function itself is the MEX file beside this help stub.

%!shared vdir, v, c, tol
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
%! old = getenv ('EE_MEMORY_MB');
%! unwind_protect
%!   setenv ('EE_MEMORY_MB', '1');
%!   try
%!     ee_sv (v.model, repmat (v.X, 3000, 1), 'verbose', false);
%!     error ('not refused');
%!   catch err
%!     assert (err.identifier, 'ee:outOfMemory');
%!     assert (! isempty (regexp (err.message, 'about \d+ MB.*only 1 MB.*EE_MEMORY_MB', 'once')), err.message);
%!   end
%! unwind_protect_cleanup
%!   setenv ('EE_MEMORY_MB', old);
%! end_unwind_protect

%!error id=ee:badInput ee_sv (v.model, v.X, 'rows', 0)
%!error id=ee:badInput ee_sv (v.model, v.X, 'rows', true (1, 4))
%!error id=ee:badInput ee_sv (v.model, v.X, 'samples', true)
%!error id=ee:badInput ee_sv (v.model, v.X, 'seed', 1, 'seed', 2)
%!error id=ee:badInput ee_sv (v.model, v.X(:, 1:3))
%!error id=ee:notSupported
%! w = load (fullfile (vdir, 'mlp_tiny.mat'));
%! ee_sv (w.model, w.X);
