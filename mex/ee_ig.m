## -*- texinfo -*-
## @deftypefn  {} {@var{A} =} ee_ig (@var{model}, @var{X}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_ig (@var{model}, @var{X}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_ig (@var{f}, @var{X}, @dots{})
## Integrated Gradients (and X-Gradient) of a classifier's target logit,
## or of any model given as a function handle @var{f} (see "Any model"
## below).
##
## Attributes to the embedding-layer output and sums over the embedding
## dimension: @var{A} is N x T single, one score per token (N x D for an
## mlp).  Definitions follow doc/MODELS.md (Captum's semantics).
##
## Options:
## @table @asis
## @item 'steps'
## s, the number of interpolation nodes (default 20); costs s forward and s
## backward passes per sequence.
## @item 'method'
## 'gausslegendre' (default), 'riemann_right', 'riemann_left',
## 'riemann_middle', 'riemann_trapezoid' (Riemann rules need s >= 2), or
## 'xgrad': X-Gradient, one gradient, equal to IG with the zero baseline on
## a bias-free ReLU cnn/mlp (refused with ee:notSupported elsewhere);
## 'gradxinput': Input x Gradient (e .* grad f(e), one gradient) on any
## model: xgrad's numbers without its check, which is not IG where the
## network has biases (doc/XDNN.md compares the two).
## How fast each rule converges to the path integral as s grows (for a
## smooth integrand): Gauss-Legendre, faster than any power of 1/s (s
## nodes integrate polynomials of degree 2 s - 1 exactly; often a few
## nodes suffice); 'riemann_middle', as 1/s^2; 'riemann_right' and
## 'riemann_left', as 1/s; 'riemann_trapezoid', as 1/s as well, on
## purpose: its weights are Captum's, which sum to (s - 1)/s rather than
## 1, so its completeness delta stays near (f(x) - f(baseline))/s
## (doc/MODELS.md).  A kink on the path (a ReLU switching) slows every
## rule down.
## @item 'baseline'
## 'pad' (default: real tokens replaced by PAD), 'zero' (e = 0 everywhere),
## or an int32 N x T matrix of baseline ids.  The mask of the original
## input is kept at every node.
## @item 'target'
## 'argmax' (default) or class indices (N x 1, or one for all rows).
## @item 'rows'
## compute only these rows of X (to split long runs and checkpoint).
## @item 'incremental'
## true (default): on the CPU, the cnn's interpolation points come from two
## convolutions per sequence (convolutions are linear in e) and gradients
## flow through each filter's winning window only (the same numbers up to
## float rounding); false runs s full forward and backward passes.
## @item 'batch', 'device', 'verbose'
## rows per model pass, 'auto'|'cpu'|'gpu', progress with rate and ETA.
## @item 'precision'
## 'fp32' (default) computes every matrix product in single precision;
## 'tf32' and 'bf16' use a GPU's tensor cores with the products' inputs
## rounded to tf32 or bf16 and FP32 accumulation (activations, LayerNorm,
## softmax sums, the IG accumulation and the losses stay FP32). 'tf32' is
## faster at the larger model sizes and moves IG maps by about 5e-4 of
## their largest score; 'bf16' is for studying that rounding (slower than
## 'tf32' here). doc/GPU.md gives speeds and errors. On the CPU both raise
## @code{ee:notSupported}.
## @end table
##
## @var{info}: @code{target}, @code{fx}, @code{fbaseline}, @code{delta}
## (completeness: sum(A,2) - (fx - fbaseline)), @code{passes},
## @code{forward_passes}, @code{backward_passes}, @code{seconds}.
##
## @strong{Any model: a function handle.}  @var{f} takes an M x F double
## matrix of rows and returns their scores, M x C (or M x 1), as for
## @code{ee_sv}'s handle form; @var{X} is N x F.  @var{A} (N x F double) is
## IG per column of f's target score (the largest score of f at the row
## unless @code{'target'} says otherwise) from the baseline row b:
## A_j = (x_j - b_j) sum_k w_k df/dx_j (b + a_k (x - b)), the nodes and
## weights of @code{'method'} with @code{'steps'} (as above;
## @code{'gradxinput'}: (x .* the gradient at x), no baseline;
## @code{'xgrad'} is refused).  The gradient:
## @table @asis
## @item 'gradient', 'function' (default)
## f returns it: @code{[y, g] = f (x)}, g the M x F gradient of its one
## score, or M x F x C, the gradient of each score (g(:,:,c) of y(:,c)).
## f is always asked for both outputs (where only the scores are needed
## too), so a handle such as @code{@@(x) deal (x * w', repmat (w, rows
## (x), 1))} works as written.  One row per node: s rows of f per row of
## X.
## @item 'gradient', 'fd'
## central differences of f: (f(z + h e_j) - f(z - h e_j)) / (2 h) for
## every column j, with the step @code{'step'}, h (default 1e-4, in the
## units of X).  Its error is about h^2 times f's third derivative plus
## the rounding of f's scores over h (single-precision scores: take h
## near 1e-3); where f has a kink within h of a node (a ReLU) the
## difference is not the derivative.  2 F rows per node.
## @end table
## Options of the handle form: @code{'baseline'} (1 x F, or a scalar;
## default zeros), @code{'steps'}, @code{'method'}, @code{'target'},
## @code{'rows'}, @code{'batch'} (rows per call of f, default 1024; one
## call for the rows of X and the baseline, then the nodes of all rows
## packed), @code{'verbose'}, @code{'gradient'}, @code{'step'}, and for
## expected gradients:
## @table @asis
## @item 'background'
## K x F rows (excludes 'baseline'): A is IG averaged over baselines taken
## from them, A_j = mean over the row's baselines b of IG_j(x; b) (Erion et
## al.'s expected gradients, with the quadrature of 'method' on each path
## instead of a random point); @code{info.fbaseline} is the mean of f over
## the same baselines, so @code{info.delta} is still completeness.  By
## default every row of the background is a baseline of every row of X
## (K s rows of f per row).
## @item 'samples'
## m: m baselines drawn per row instead, uniformly with replacement from
## the K rows, row i from the stream (seed, i, 2^32 0x4547)
## (@code{doc/RANDOM.md}), the same for any batch or split of the rows.
## @item 'seed'
## the draw's seed (default 1).
## @end table
## @var{info}: @code{target}, @code{fx}, @code{fbaseline}, @code{delta}
## (completeness: sum (A, 2) - (fx - fbaseline), the quadrature's and the
## differences' error), @code{passes} (rows f evaluated), @code{calls},
## @code{seconds}, @code{seconds_callback}, @code{seconds_f},
## @code{method}, @code{steps}, @code{gradient}, (fd) @code{step} and
## ('background') @code{baselines}, the number of baselines per row.
## Errors as for @code{ee_sv}'s handle form (@code{ee:callbackError},
## @code{ee:badInput} naming the call, @code{ee:interrupted}).
##
## @example
## f = @@(x) x(:,1) .^ 2 .* x(:,2);       # one interaction term
## ee_ig (f, [2 3], 'gradient', 'fd')    # @result{} 8 4  (2/3 and 1/3 of f(x) - f(0))
## ee_sv (f, [2 3], 'exact', true)       # @result{} 6 6  (Shapley: an equal split)
## @end example
## @seealso{ee_sv, ee_predict, ee_train}
## @end deftypefn

## The function itself is the MEX file beside this help stub.

%!shared vdir, v, tol
%! addpath (fullfile (fileparts (which ('ee_ig')), '..', 'tests', 'octave'));   # assert_budget_refusal
%! vdir = fullfile (fileparts (which ('ee_ig')), '..', 'tests', 'vectors');
%! v = load (fullfile (vdir, 'transformer_tiny.mat'));
%! tol = @(w, ref) 1e-4 * max (max (abs (ref(:))), max (abs (w.logits(:))));

%!test
%! ## every IG field of every reference file
%! for f = {'transformer_tiny', 'cnn_tiny', 'cnn_tiny_nobias', 'mlp_tiny', 'mlp_tiny_nobias'}
%!   w = load (fullfile (vdir, [f{1} '.mat']));
%!   for n = fieldnames (w)'
%!     t = regexp (n{1}, '^ig_(\w+)_s(\d+)$', 'tokens');
%!     if (isempty (t)) continue; end
%!     meth = t{1}{1}; bl = w.info.ig_baseline;
%!     if (strcmp (meth, 'zero')) meth = 'gausslegendre'; bl = 'zero'; end
%!     [A, info] = ee_ig (w.model, w.X, 'method', meth, 'steps', str2double (t{1}{2}), ...
%!                        'baseline', bl, 'verbose', false);
%!     assert (double (A), w.(n{1}), tol (w, w.(n{1})));
%!   end
%!   [A, info] = ee_ig (w.model, w.X, 'verbose', false);
%!   assert (info.target, w.target);
%!   assert (info.fx, w.fx, tol (w, w.fx));
%!   assert (info.fbaseline, w.fbaseline, tol (w, w.fx));
%!   assert (info.delta, w.delta, tol (w, w.delta));
%!   assert (info.forward_passes, 22 * rows (w.X));
%!   assert (info.backward_passes, 20 * rows (w.X));
%!   if (isfield (w, 'xgrad'))
%!     assert (double (ee_ig (w.model, w.X, 'method', 'xgrad')), w.xgrad, tol (w, w.xgrad));
%!   end
%! end

%!test
%! ## pad baseline: special tokens and pads get exactly 0; zero baseline: pads 0
%! A = ee_ig (v.model, v.X, 'verbose', false);
%! special = v.X == 1 | v.X == 3 | v.X == 4;
%! assert (all (A(special) == 0));
%! A = ee_ig (v.model, v.X, 'baseline', 'zero', 'verbose', false);
%! assert (all (A(v.X == 1) == 0));
%! assert (any (A(v.X == 3) != 0));

%!test
%! ## completeness from outside: sum(A) at large s equals f(x) - f(baseline) by ee_predict
%! [A, info] = ee_ig (v.model, v.X, 'steps', 300, 'verbose', false);
%! [~, lx] = ee_predict (v.model, v.X);
%! [~, lb] = ee_predict (v.model, v.baseline_ids, 'mask', v.X ~= 1);
%! idx = sub2ind (size (lx), (1:rows (lx))', info.target);
%! gap = double (lx(idx) - lb(idx));
%! assert (sum (double (A), 2), gap, 1e-3 * (abs (gap) + 0.01));

%!test
%! ## |delta| shrinks with s on the smooth transformer until float rounding
%! ## (about 1e-6 here, reached near s = 10); at s = 300 it is tiny
%! d = [];
%! for s = [1 2 3 5]
%!   [~, info] = ee_ig (v.model, v.X, 'steps', s, 'verbose', false);
%!   d(end+1) = max (abs (info.delta));
%! end
%! assert (all (diff (d) < 0));
%! [~, info] = ee_ig (v.model, v.X, 'steps', 300, 'verbose', false);
%! assert (all (abs (info.delta) < 1e-3 * (abs (info.fx - info.fbaseline) + 0.01)));

%!test
%! ## X-Gradient equals IG (zero baseline, s = 300) on bias-free networks, not with biases
%! for f = {'cnn_tiny', 'mlp_tiny'}
%!   w = load (fullfile (vdir, [f{1} '_nobias.mat']));
%!   xg = double (ee_ig (w.model, w.X, 'method', 'xgrad'));
%!   ig = double (ee_ig (w.model, w.X, 'baseline', 'zero', 'steps', 300, 'verbose', false));
%!   assert (xg, ig, 1e-4 * max (abs (ig(:))));
%! end
%! ## with biases, gradient x input (by central differences of ee_predict on
%! ## the dense mlp input) is far from IG with the zero baseline
%! w = load (fullfile (vdir, 'mlp_tiny.mat'));
%! ig = double (ee_ig (w.model, w.X, 'baseline', 'zero', 'steps', 300, 'verbose', false));
%! gx = zeros (size (w.X)); h = 1e-2;
%! for j = 1:columns (w.X)
%!   Xp = w.X; Xp(:, j) += h; Xm = w.X; Xm(:, j) -= h;
%!   [~, lp] = ee_predict (w.model, single (Xp)); [~, lm] = ee_predict (w.model, single (Xm));
%!   idx = sub2ind (size (lp), (1:rows (lp))', w.target);
%!   gx(:, j) = w.X(:, j) .* double (lp(idx) - lm(idx)) / (2 * h);
%! end
%! assert (max (abs (gx(:) - ig(:))) > 0.1 * max (abs (ig(:))));
%! ## 'gradxinput' is that gradient x input, computed by one backward pass
%! gi = double (ee_ig (w.model, w.X, 'method', 'gradxinput', 'target', w.target));
%! assert (gi, gx, 1e-3 * max (abs (gx(:))));
%! ## and equals xgrad on the bias-free networks
%! for f = {'cnn_tiny', 'mlp_tiny'}
%!   w = load (fullfile (vdir, [f{1} '_nobias.mat']));
%!   assert (ee_ig (w.model, w.X, 'method', 'gradxinput'), ee_ig (w.model, w.X, 'method', 'xgrad'));
%! end

%!test
%! ## split runs by rows and other batches give the same bits; target option
%! A = ee_ig (v.model, v.X, 'verbose', false);
%! B = [ee_ig(v.model, v.X, 'rows', 1:2, 'verbose', false); ee_ig(v.model, v.X, 'rows', 3:5, 'verbose', false)];
%! assert (A, B);
%! for bt = [1 3 7 100]
%!   assert (ee_ig (v.model, v.X, 'batch', bt, 'verbose', false), A);
%! end
%! ## 'rows' as a logical mask selects like X(mask, :); true is not row 1
%! assert (ee_ig (v.model, v.X, 'rows', true (1, 5), 'verbose', false), A);
%! assert (ee_ig (v.model, v.X, 'rows', logical ([1 0 0 1 0]), 'verbose', false), A([1 4], :));
%! [A2, info] = ee_ig (v.model, v.X, 'target', 2, 'verbose', false);
%! assert (info.target, 2 * ones (5, 1));

%!test
%! ## the cnn's incremental path equals full passes within float32 rounding
%! for f = {'cnn_tiny', 'cnn_tiny_nobias'}
%!   w = load (fullfile (vdir, [f{1} '.mat']));
%!   for bl = {'pad', 'zero'}
%!     [a, ia] = ee_ig (w.model, w.X, 'baseline', bl{1}, 'method', 'riemann_middle', 'steps', 7, 'verbose', false);
%!     [b, ib] = ee_ig (w.model, w.X, 'baseline', bl{1}, 'method', 'riemann_middle', 'steps', 7, ...
%!                      'incremental', false, 'verbose', false);
%!     assert (double (a), double (b), tol (w, b));
%!     assert (ia.delta, ib.delta, tol (w, w.fx));
%!     assert (ia.passes, ib.passes);
%!   end
%! end

%!test
%! ## the memory budget: refused before allocating, with ee:outOfMemory and
%! ## the estimate; the loaded model is freed (no growth over many refusals)
%! assert_budget_refusal (@() ee_ig (v.model, repmat (v.X, 3000, 1), 'verbose', false));

%!test
%! ## the reproducer of issue 10: 5e7 rows asked an allocation far beyond the
%! ## machine and failed with an empty id, leaking the model; now the
%! ## estimate refuses it up front (EE_MEMORY_MB keeps the test independent
%! ## of the machine's memory); what the process keeps after refused calls
%! ## is measured by bench/gateway_bounds.m (a memory size depends on the
%! ## machine's allocator: not a test assertion)
%! old = getenv ('EE_MEMORY_MB');
%! unwind_protect
%!   setenv ('EE_MEMORY_MB', '300');
%!   r = ones (1, 5e6);
%!   for k = 1:3
%!     try
%!       ee_ig (v.model, v.X, 'rows', r);
%!       error ('not refused');
%!     catch err
%!       assert (err.identifier, 'ee:outOfMemory', err.message);
%!     end
%!   end
%!   assert (size (ee_ig (v.model, v.X, 'verbose', false)), size (v.X));   # and Octave still works
%! unwind_protect_cleanup
%!   setenv ('EE_MEMORY_MB', old);
%! end_unwind_protect

%!error id=ee:notSupported ee_ig (v.model, v.X, 'method', 'xgrad')
%!error id=ee:notSupported ee_ig (v.model, v.X, 'device', 'cpu', 'precision', 'bf16', 'verbose', false)
%!error id=ee:badInput ee_ig (v.model, v.X, 'precision', 16)
%!error id=ee:notSupported
%! w = load (fullfile (vdir, 'cnn_tiny.mat'));
%! ee_ig (w.model, w.X, 'method', 'xgrad');
%!error id=ee:badInput ee_ig (v.model, v.X, 'method', 'gradxinput', 'steps', 2)
%!error id=ee:badInput ee_ig (v.model, v.X, 'method', 'gradxinput', 'baseline', 'zero')
%!error id=ee:badInput ee_ig (v.model, v.X, 'steps', 0)
%!error id=ee:badInput ee_ig (v.model, v.X, 'steps', 2.5)
%!error id=ee:badInput ee_ig (v.model, v.X, 'method', 'simpson')
%!error id=ee:badInput ee_ig (v.model, v.X, 'method', 'riemann_right', 'steps', 1)
%!error id=ee:badInput ee_ig (v.model, v.X, 'method', 'riemann_trapezoid', 'steps', 1)
%!error id=ee:badInput ee_ig (v.model, v.X, 'target', 4)
%!error id=ee:badInput ee_ig (v.model, v.X, 'target', [1; 2])
%!error id=ee:badInput ee_ig (v.model, v.X, 'target', 'max')
%!error id=ee:badInput ee_ig (v.model, v.X, 'baseline', v.X + 100)
%!error id=ee:badInput ee_ig (v.model, v.X, 'baseline', v.X(1:2, :))
%!error id=ee:badInput ee_ig (v.model, v.X, 'baseline', 'mean')
%!error id=ee:badInput ee_ig (v.model, v.X(:, 1:4))
%!error id=ee:badInput ee_ig (v.model, v.X, 'rows', 6)
%!error id=ee:badInput ee_ig (v.model, v.X, 'rows', true (4, 1))
%!error id=ee:badInput ee_ig (v.model, v.X, 'steps', true)
%!error id=ee:badInput ee_ig (v.model, v.X, 'steps', 3, 'steps', 0)
%!error id=ee:badInput ee_ig (v.model, v.X, 'batch', 0)
%!error id=ee:badInput ee_ig (v.model, v.X, 'method', 'xgrad', 'steps', 3)
%!error id=ee:badModel ee_ig (rmfield (v.model, 'Wc'), v.X)
%!error id=ee:badInput
%! w = load (fullfile (vdir, 'mlp_tiny.mat'));
%! ee_ig (w.model, w.X, 'baseline', 'pad');

## ---- the handle form: any model as a function --------------------------------
%!test
%! ## the two-output idiom: f = @(x) deal (y, g) is always asked for both
%! ## outputs; IG of a linear f is (x - b) .* w exactly
%! w = [2 -1 0.5]; b = [0.1 0.2 -0.3];
%! f = @(x) deal (x * w', repmat (w, rows (x), 1));
%! X = [1 2 3; -1 0 4];
%! [A, info] = ee_ig (f, X, 'baseline', b, 'steps', 3, 'verbose', false);
%! assert (A, (X - b) .* w, 1e-12);
%! assert (info.fx, X * w', 1e-12);


%!function [y, g] = lin_with_grad (x, w)
%!  y = x * w;
%!  g = repmat (reshape (w, 1, rows (w), columns (w)), rows (x), 1);   # M x F x C
%!endfunction

%!function [y, g] = square_times (x)
%!  ## f = x1^2 x2 with its gradient (one score: g is M x F)
%!  y = x(:,1) .^ 2 .* x(:,2);
%!  g = [2 * x(:,1) .* x(:,2), x(:,1) .^ 2, zeros(rows (x), columns (x) - 2)];
%!endfunction

%!function [y, g] = first_with (x, gfun)
%!  ## the first column as the score, gfun (x) as its "gradient"
%!  y = x(:,1);
%!  g = gfun (x);
%!endfunction

%!function y = mlp_logits (m, x)
%!  [~, lg] = ee_predict (m, single (x));
%!  y = double (lg);
%!endfunction

%!test
%! ## a linear model: IG is w .* (x - b) for both gradients and any rule,
%! ## Gradient x Input is w .* x; completeness holds
%! randn ('state', 5);
%! F = 6; W = randn (F, 3); X = randn (7, F); b = randn (1, F);
%! [~, t] = max (X * W, [], 2);
%! want = W(:, t)' .* (X - b);
%! for grad = {'function', 'fd'}
%!   [A, info] = ee_ig (@(x) lin_with_grad (x, W), X, 'baseline', b, 'gradient', grad{1}, 'verbose', false);
%!   assert (A, want, 1e-9);
%!   assert (info.target, t);
%!   assert (max (abs (info.delta)) < 1e-9);
%!   A = ee_ig (@(x) lin_with_grad (x, W), X, 'baseline', b, 'gradient', grad{1}, 'method', 'riemann_middle', ...
%!              'steps', 3, 'verbose', false);
%!   assert (A, want, 1e-9);
%!   A = ee_ig (@(x) lin_with_grad (x, W), X, 'gradient', grad{1}, 'method', 'gradxinput', 'verbose', false);
%!   assert (A, W(:, t)' .* X, 1e-9);
%! end

%!test
%! ## x1^2 x2 from a baseline: IG's closed form (the path integrals of the
%! ## gradient, which 20 Gauss-Legendre nodes integrate exactly), by the
%! ## function's gradient and by differences; Shapley values split the
%! ## same total differently (the interaction shared equally from b = 0)
%! X = [2 3 1; -1 0.5 2; 1.5 -2 0]; b = [0.5 -1 0.3];
%! d = X - b;
%! want = [d(:,1) .* (2 * (b(1) * b(2) + (b(1) * d(:,2) + b(2) * d(:,1)) / 2 + d(:,1) .* d(:,2) / 3)), ...
%!         d(:,2) .* (b(1) ^ 2 + b(1) * d(:,1) + d(:,1) .^ 2 / 3), zeros(3, 1)];
%! [A, info] = ee_ig (@square_times, X, 'baseline', b, 'verbose', false);
%! assert (A, want, 1e-12);
%! assert (max (abs (info.delta)) < 1e-12);
%! assert (info.fx - info.fbaseline, X(:,1) .^ 2 .* X(:,2) - b(1) ^ 2 * b(2), 1e-12);
%! A = ee_ig (@square_times, X, 'baseline', b, 'gradient', 'fd', 'verbose', false);
%! assert (A, want, 1e-8);
%! x = [2 3 1];
%! assert (ee_ig (@square_times, x, 'verbose', false), [8 4 0], 1e-12);
%! assert (ee_sv (@square_times, x, 'exact', true, 'verbose', false), [6 6 0], 1e-12);

%!test
%! ## a handle around the tiny mlp gives ee_ig's own numbers, its gradient
%! ## by differences of the single-precision logits (h = 1e-3: the
%! ## rounding over h against the kinks of the ReLUs)
%! w = load (fullfile (vdir, 'mlp_tiny.mat'));
%! [B, ib] = ee_ig (w.model, w.X, 'verbose', false);
%! [A, ia] = ee_ig (@(x) mlp_logits (w.model, x), double (w.X), 'gradient', 'fd', 'step', 1e-3, 'verbose', false);
%! assert (ia.target, ib.target);
%! assert (A, double (B), 2e-4 * max (abs (B(:))));
%! assert (ia.passes, 5 + 1 + 5 * 20 * 2 * columns (w.X));

%!test
%! ## one call of f per batch, the same bits for any batch and row split
%! ## (f's value of a row depends on that row alone here)
%! X = [1 2 3; -1 0.5 2; 0 1 -1; 2 2 2];
%! f = @(x) [sum(x .^ 2, 2), prod(x, 2)];
%! [a, ia] = ee_ig (f, X, 'gradient', 'fd', 'baseline', 0.25, 'verbose', false);
%! for B = [1 7 100]
%!   [A, info] = ee_ig (f, X, 'gradient', 'fd', 'baseline', 0.25, 'batch', B, 'verbose', false);
%!   assert (A, a);
%!   assert (info.passes, 5 + 4 * 20 * 6);
%!   assert (info.calls, ceil (5 / B) + ceil (4 * 20 * 6 / B));
%! end
%! assert ([ee_ig(f, X, 'gradient', 'fd', 'baseline', 0.25, 'rows', [3 1], 'verbose', false); ...
%!          ee_ig(f, X, 'gradient', 'fd', 'baseline', 0.25, 'rows', 4, 'verbose', false)], a([3 1 4], :));

%!error <second output.*'gradient', 'fd'> ee_ig (@(x) x(:,1), [1 2 3], 'verbose', false)
%!error <call 1 of f \(2 rows\): f's second output.*2 x 3.*2x2 double> ee_ig (@(x) first_with (x, @(z) z(:,1:2)), [1 2 3], 'verbose', false)
%!error <call 2.*gradient of NaN> ee_ig (@(x) first_with (x, @(z) z * NaN), [1 2 3], 'verbose', false)
%!error id=ee:notSupported ee_ig (@(x) x(:,1), [1 2 3], 'method', 'xgrad')
%!error <no baseline> ee_ig (@(x) x(:,1), [1 2 3], 'method', 'gradxinput', 'baseline', [1 1 1])
%!error <'step' applies> ee_ig (@(x) x(:,1), [1 2 3], 'step', 1e-3)
%!error <'step' must be > 0> ee_ig (@(x) x(:,1), [1 2 3], 'gradient', 'fd', 'step', 0)
%!error <'gradient' must be one of> ee_ig (@(x) x(:,1), [1 2 3], 'gradient', 'exact')
%!error id=ee:callbackError ee_ig (@(x) error ('my:id', 'no'), [1 2 3], 'gradient', 'fd')
%!error id=ee:badInput ee_ig (@(x) x(:,1), [1 2 3], 'baseline', [1 2])

%!function [y, g] = quad_with_grad (x, Q, w)
%!  ## elementwise (broadcast), not x * Q: BLAS may change the last bits
%!  ## with the number of rows in a call, and the test compares bits
%!  g = w';
%!  for k = 1:rows (Q), g = g + x(:,k) .* Q(k,:); end
%!  y = sum ((g + w') .* x, 2) / 2;       # x'Qx/2 + w'x = x'(Qx + 2w)/2
%!endfunction

%!test
%! ## expected gradients on a quadratic f = x' Q x / 2 + w' x: IG from b is
%! ## (x - b) .* (Q (x + b) / 2 + w) exactly (the path's gradient is linear
%! ## in the node), so over a background: the mean of that over its rows
%! Q = [2 1 0; 1 -1 0.5; 0 0.5 3]; wq = [1; -2; 0.5];
%! fg = @(x) quad_with_grad (x, Q, wq);
%! X = randn (4, 3); bg = randn (6, 3);
%! [A, info] = ee_ig (fg, X, 'background', bg, 'steps', 2);
%! for i = 1:4
%!   x = X(i, :);
%!   ref = mean ((x - bg) .* ((x + bg) * Q / 2 + wq'), 1);
%!   assert (A(i, :), ref, 1e-12 * max (abs (ref)));
%! end
%! assert (info.baselines, 6);
%! assert (info.passes, 4 + 6 + 4 * 6 * 2);
%! assert (abs (info.delta) < 1e-12);
%! ## 'fd' agrees; drawn baselines: 'samples' m of them per row, seeded
%! Afd = ee_ig (fg, X, 'background', bg, 'steps', 2, 'gradient', 'fd');
%! assert (Afd, A, 1e-6 * max (abs (A(:))));
%! [D, di] = ee_ig (fg, X, 'background', bg, 'steps', 2, 'samples', 40, 'seed', 3);
%! assert (di.baselines, 40);
%! assert (isequal (D, ee_ig (fg, X, 'background', bg, 'steps', 2, 'samples', 40, 'seed', 3, 'batch', 7)));
%! assert (isequal (D(3:4, :), ee_ig (fg, X, 'background', bg, 'steps', 2, 'samples', 40, 'seed', 3, 'rows', 3:4)));
%! assert (! isequal (D, ee_ig (fg, X, 'background', bg, 'steps', 2, 'samples', 40, 'seed', 4)));
%! assert (abs (di.delta) < 1e-12);       # completeness against its own baselines
%! ## the drawn estimate approaches the all-rows one as m grows
%! e = zeros (1, 3); ms = [5 50 500];
%! for k = 1:3
%!   for seed = 1:4
%!     e(k) += mean (abs (ee_ig (fg, X, 'background', bg, 'steps', 2, 'samples', ms(k), 'seed', seed)(:) - A(:))) / 4;
%!   end
%! end
%! assert (e(2) < e(1) && e(3) < e(2), sprintf ('%g ', e));

%!error <'baseline' and 'background'> ee_ig (@(x) x(:,1), [1 2 3], 'baseline', 0, 'background', [1 2 3], 'gradient', 'fd')
%!error <'samples' and 'seed' draw> ee_ig (@(x) x(:,1), [1 2 3], 'samples', 4, 'gradient', 'fd')
%!error <background.*K x 3> ee_ig (@(x) x(:,1), [1 2 3], 'background', ones (2, 2), 'gradient', 'fd')
%!error <no 'background'> ee_ig (@(x) x(:,1), [1 2 3], 'background', ones (2, 3), 'method', 'gradxinput', 'gradient', 'fd')
