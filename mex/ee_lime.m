## -*- texinfo -*-
## @deftypefn  {} {@var{A} =} ee_lime (@var{f}, @var{X}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_lime (@var{f}, @var{X}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_lime (@var{clf}, @var{X}, @dots{})
## LIME (local interpretable model-agnostic explanations) of a model given
## as a function handle @var{f}: for each row x of @var{X}, the
## coefficients of a weighted linear model, with intercept, fitted to f's
## values on coalitions of the row's players (@code{doc/MODELS.md},
## "Coalition methods").
##
## @var{f}, @var{X}, the players, the absent values ('baseline',
## 'background'), 'groups', 'target', 'rows', 'batch' and 'verbose' are
## those of @code{ee_sv}'s handle form: a coalition S of the P players has
## the value v(S), f at the row with the players outside S taken from the
## baseline (or the mean of f over the background rows).  For coalitions
## z_1..z_n (0/1 vectors over the players) LIME solves
##
## @example
## min over b, c of  sum_j w_j (v(z_j) - b - z_j c')^2 + ridge |c|^2
## @end example
##
## and returns c, spread equally over a group's columns (@var{A} is N x F;
## @code{info.players} is N x P).  The defaults follow Captum's
## @code{Lime} where they apply: each player present with probability 1/2
## (coalition j of row i from the stream (seed, i, 2^32 0x4C4D + j),
## @code{doc/RANDOM.md}); the weight of z is the exponential kernel
## exp(-d^2 / (2 width^2)) of its cosine distance d = 1 - cos(z, 1) =
## 1 - sqrt(|z| / P) from the row's own all-ones vector (d = 1 for the
## empty coalition), width 1.  Two differences, on purpose: Captum measures
## the cosine distance between the perturbed and original @emph{inputs}
## (which have no single value once a background set stands for absent
## players), here it is taken on the interpretable vector, as LIME's paper
## does for text and images, so the weights depend on the coalition alone;
## and Captum fits a Lasso (alpha 0.01), here least squares (with an
## optional ridge), whose solution is unique and exact on a linear model.
## The fit and its kernel are solved in double.
##
## On a model that is linear in the players (any linear f with a baseline
## or a background), LIME returns w .* (x - b) exactly, like the Shapley
## values; elsewhere it estimates another quantity, so it does not satisfy
## efficiency: @code{info.delta} = sum(A, 2) - (fx - fbaseline) reports how
## far off it is.
##
## Options (besides those of @code{ee_sv}'s handle form named above):
## @table @asis
## @item 'samples'
## coalitions per row (default 2 P + 2048).  Cost: 1 + samples coalitions
## of K rows per row.  Fewer than the fit needs is @code{ee:badInput}.
## @item 'seed'
## generator seed (default 1).
## @item 'width'
## the kernel width (default 1).
## @item 'ridge'
## penalty on the coefficients (not the intercept), default 0.
## @item 'coalitions'
## an n x P logical (or 0/1) matrix of coalitions, the same for every row,
## instead of drawing them.
## @item 'weights'
## their n weights (default: the kernel's).
## @end table
##
## @var{info}: @code{target}, @code{fx}, @code{fbaseline} (v of the empty
## coalition), @code{delta}, @code{players}, @code{method} ('lime'),
## @code{coalitions} (per row), @code{passes}, @code{calls},
## @code{seconds}, @code{seconds_callback}, @code{seconds_f}.  Errors as
## for @code{ee_sv}'s handle form.
##
## @strong{A built-in classifier} @var{clf} (transformer, cnn or mlp
## struct; @var{X} its int32 token ids or dense rows): the players of row i
## are its n_i real tokens in position order (an mlp's D features), a
## coalition's value the target logit with the absent tokens replaced by
## the baseline id (PAD or the 'baseline' ids) under the row's own mask,
## exactly as @code{ee_sv} makes them absent (an mlp's features: 0).  The
## coalitions of row i are the handle form's with P = n_i, from the
## stream of row i ('samples' per row, default 2 n_i + 2048; 'seed'), so a
## handle that wraps the model gives the same numbers; or 'coalitions', a
## 1 x N cell with one K_i x n_i logical matrix per row of @var{X}, and
## 'weights', a cell of K_i-vectors.  @var{A} is N x T (N x D) single, 0
## at special tokens.  Cost: 2 + (non-empty coalitions) forward passes per
## row, all rows' copies filling the passes ('batch') in length order.
## Options: 'samples', 'seed', 'width', 'ridge', 'coalitions', 'weights',
## 'baseline' ('pad' or N x T ids), 'target', 'rows', 'batch', 'device',
## 'precision', 'verbose' (progress with rate and ETA), 'incremental'
## (default true: the transformer's layer-0 cache on the CPU, as
## @code{ee_sv}; false: full passes).  @var{info}:
## @code{target}, @code{fx}, @code{fbaseline}, @code{delta},
## @code{passes}, @code{forward_passes}, @code{seconds}, @code{method}
## ('lime'), @code{coalitions} (per row).  Coalition cells of the wrong
## shape, values other than 0/1, negative weights, or coalitions that do
## not determine the fit are @code{ee:badInput}; past the memory budget
## @code{ee:outOfMemory}; Ctrl-C @code{ee:interrupted}
## (@code{doc/MODELS.md}, "Coalition methods on the built-in models").
##
## @example
## w = [2; -1; 0.5];
## A = ee_lime (@@(x) x * w, [3 0 2], 'baseline', [1 1 1], 'samples', 50)
## @result{} A = 4 1 0.5      # w' .* (x - b): a linear model is fitted exactly
## @end example
## @seealso{ee_sv, ee_occlusion, ee_ig}
## @end deftypefn

## The function itself is the MEX file beside this help stub.

%!function c = lime_outside (f, x, bg, Z, width, ridge)
%!  ## LIME from its definition, outside libcore: the coalition values from f,
%!  ## the cosine of each z with the all-ones vector, the normal equations
%!  val = @(s) mean (f (bg .* ! s + x .* s));
%!  P = numel (x); n = rows (Z); v = zeros (n, 1); wt = v;
%!  for j = 1:n
%!    v(j) = val (Z(j, :));
%!    z = double (Z(j, :));
%!    if (any (z)), d = 1 - dot (z, ones (1, P)) / (norm (z) * sqrt (P)); else, d = 1; end
%!    wt(j) = exp (-d ^ 2 / (2 * width ^ 2));
%!  end
%!  D = [ones(n, 1), double(Z)];
%!  sol = (D' * (wt .* D) + ridge * diag ([0, ones(1, P)])) \ (D' * (wt .* v));
%!  c = sol(2:end)';
%!endfunction

%!test
%! ## a linear model is fitted exactly: w .* (x - b), any baseline or background
%! wl = [2; -1; 0.5; 3]; X = randn (3, 4); bg = randn (6, 4);
%! [A, info] = ee_lime (@(x) x * wl, X, 'background', bg, 'samples', 40, 'seed', 2);
%! assert (A, wl' .* (X - mean (bg)), 1e-12);
%! assert (info.method, 'lime'); assert (info.coalitions, 40); assert (abs (info.delta) < 1e-12);
%! assert (info.passes, 3 + 3 * 41 * 6);
%! A = ee_lime (@(x) x * wl, X, 'baseline', [1 0 -1 2], 'samples', 40);
%! assert (A, wl' .* (X - [1 0 -1 2]), 1e-12);

%!test
%! ## given coalitions against the definition computed outside libcore, with
%! ## the default kernel, another width and a ridge; a 1 % change shows
%! f = @(x) sin (x * [1; 2; -1; 0.5]) + x(:,1) .* x(:,3);
%! x = [0.3 -0.7 1.1 0.4]; bg = randn (3, 4);
%! Z = logical ([1 0 0 0; 0 1 1 0; 1 0 1 1; 0 0 0 1; 1 1 0 0; 0 1 0 1; 1 1 1 0; 0 0 1 0; 0 0 0 0; 1 1 1 1]);
%! A = ee_lime (f, x, 'background', bg, 'coalitions', Z);
%! ref = lime_outside (f, x, bg, Z, 1, 0);
%! assert (A, ref, 1e-10 * max (abs (ref)));
%! assert (max (abs (A - ref .* [1 1 1.01 1])) > 1e-10 * max (abs (ref)));
%! A = ee_lime (f, x, 'background', bg, 'coalitions', Z, 'width', 0.3, 'ridge', 0.2);
%! ref = lime_outside (f, x, bg, Z, 0.3, 0.2);
%! assert (A, ref, 1e-10 * max (abs (ref)));
%! ## the drawn coalitions: the same bits for any batch, other bits for another
%! ## seed (f elementwise: x * w through BLAS may change its last bits with the
%! ## rows of a call)
%! f = @(x) sin (x(:,1) + 2 * x(:,2) - x(:,3) + 0.5 * x(:,4)) + x(:,1) .* x(:,3);
%! X = randn (4, 4);
%! A = ee_lime (f, X, 'samples', 30, 'seed', 7);
%! assert (isequal (A, ee_lime (f, X, 'samples', 30, 'seed', 7, 'batch', 5)));
%! assert (isequal (A(2:3, :), ee_lime (f, X, 'samples', 30, 'seed', 7, 'rows', 2:3)));
%! assert (! isequal (A, ee_lime (f, X, 'samples', 30, 'seed', 8)));

%!test
%! ## the estimate settles as the samples grow: the spread over seeds falls
%! f = @(x) tanh (x * (1:6)' / 3) + x(:,1) .* x(:,2);
%! x = [0.5 -0.2 0.9 -1 0.3 0.7];
%! S = [30 120 480]; sd = zeros (size (S));
%! for k = 1:numel (S)
%!   A = zeros (8, 6);
%!   for seed = 1:8, A(seed, :) = ee_lime (f, x, 'samples', S(k), 'seed', seed); end
%!   sd(k) = mean (std (A));
%! end
%! assert (sd(1) > 1e-4 && sd(2) < sd(1) && sd(3) < sd(2) && sd(3) < sd(1) / 2, sprintf ('%g ', sd));

%!error id=ee:badModel ee_lime (struct ('kind', 'mlp'), [1 2 3])
%!error <do not determine> ee_lime (@(x) x(:,1), [1 2 3], 'coalitions', [1 0 0; 0 1 0])
%!error <'paired' does not apply> ee_lime (@(x) x(:,1), [1 2 3], 'paired', true)
%!error <'width' must be> ee_lime (@(x) x(:,1), [1 2 3], 'width', 0)
%!error <'ridge' must be> ee_lime (@(x) x(:,1), [1 2 3], 'ridge', -1)
%!error <'exact' does not apply> ee_lime (@(x) x(:,1), [1 2 3], 'exact', true)
%!error id=ee:callbackError ee_lime (@(x) error ('my:id', 'boom'), [1 2 3])

%!test
%! ## ee_lime inside its own f is refused, as f's error; the next call works
%! try
%!   ee_lime (@(x) x(:,1) + 0 * size (ee_lime (@(z) z(:,1), x, 'samples', 8), 1), [1 2 3], 'samples', 8);
%!   error ('not refused');
%! catch err
%!   assert (err.identifier, 'ee:callbackError');
%!   assert (! isempty (strfind (err.message, 'from inside the model function')), err.message);
%! end
%! assert (ee_lime (@(x) 2 * x(:,2), [1 2 3], 'samples', 20), [0 4 0], 1e-12);

%!shared vdir
%! vdir = fullfile (fileparts (which ('ee_lime')), '..', 'tests', 'vectors');

%!function y = logits_of (m, z, mask)
%!  ## a built-in token model as a function of real-valued rows of ids
%!  [~, lg] = ee_predict (m, int32 (z), 'mask', repmat (mask, rows (z), 1));
%!  y = double (lg);
%!endfunction

%!test
%! ## the built-in transformer and cnn against a handle that wraps them (real
%! ## tokens as players, PAD baseline, the row's mask): the same drawn
%! ## coalitions (row i's stream) and the same given ones give the same map
%! for name = {'transformer_tiny', 'cnn_tiny'}
%!   w = load (fullfile (vdir, [name{1} '.mat']));
%!   [B, ib] = ee_lime (w.model, w.X, 'samples', 60, 'seed', 4, 'verbose', false);
%!   assert (class (B), 'single'); assert (ib.method, 'lime');
%!   Zc = cell (1, rows (w.X));
%!   for i = 1:rows (w.X)
%!     x = double (w.X(i, :)); real = x ~= 1 & x ~= 3 & x ~= 4; n = sum (real);
%!     g = zeros (size (x)); g(real) = 1:n;
%!     b = x; b(real) = 1;
%!     f = @(z) logits_of (w.model, z, x ~= 1);
%!     [A, ia] = ee_lime (f, double (w.X), 'rows', i, 'groups', g, 'baseline', b, 'samples', 60, 'seed', 4, ...
%!                        'verbose', false);
%!     scale = max (abs (double (B(i, :)))) + 1e-6;
%!     assert (A, double (B(i, :)), 2e-5 * scale);
%!     assert (ia.target, ib.target(i));
%!     assert (ib.coalitions(i), 60 * (n > 0));
%!     Zc{i} = rand (3 * n + 4, n) > 0.5;
%!     C = ee_lime (f, x, 'groups', g, 'baseline', b, 'coalitions', Zc{i}, 'ridge', 0.1, 'verbose', false);
%!     Ci = ee_lime (w.model, w.X(i, :), 'coalitions', Zc(i), 'ridge', 0.1, 'verbose', false);
%!     assert (C, double (Ci), 2e-5 * (max (abs (C)) + 1e-6));
%!   end
%!   ## all rows with their given coalitions at once: the same as one by one
%!   D = ee_lime (w.model, w.X, 'coalitions', Zc, 'ridge', 0.1, 'verbose', false, 'batch', 3);
%!   for i = 1:rows (w.X)
%!     assert (D(i, :), ee_lime (w.model, w.X(i, :), 'coalitions', Zc(i), 'ridge', 0.1, 'verbose', false));
%!   end
%!   ## 'rows' keeps each row's stream
%!   assert (ee_lime (w.model, w.X, 'rows', [3 1], 'samples', 60, 'seed', 4, 'verbose', false), B([3 1], :));
%! end

%!test
%! ## an mlp: on a linear model (no hidden layers would be exact; here the
%! ## fit is compared with the handle form on the same function)
%! w = load (fullfile (vdir, 'mlp_tiny.mat'));
%! X = w.X(1:3, :);
%! [B, ib] = ee_lime (w.model, X, 'samples', 80, 'seed', 2, 'verbose', false);
%! f = @(z) double (nthargout (2, @ee_predict, w.model, single (z)));
%! for i = 1:3
%!   A = ee_lime (f, double (X), 'rows', i, 'samples', 80, 'seed', 2, 'verbose', false);
%!   assert (A, double (B(i, :)), 2e-5 * max (abs (A)));
%! end

%!test
%! ## bad input: one-line ee:badInput errors naming the option
%! w = load (fullfile (vdir, 'transformer_tiny.mat'));
%! n1 = sum (w.X(1, :) ~= 1 & w.X(1, :) ~= 3 & w.X(1, :) ~= 4);
%! Zbad = {true(2, n1 + 1)}; Zval = {2 * ones(4, n1)};
%! bad = {{'coalitions', Zbad}, {'coalitions', Zval}, {'coalitions', true(3, n1)}, {'window', 2}, ...
%!        {'paired', true}, {'width', -1}, {'ridge', -1}, {'weights', {ones(3, 1)}}, {'samples', 0}};
%! addpath (fullfile (fileparts (which ('ee_lime')), '..', 'tests', 'octave'));   # assert_bad_options
%! assert_bad_options (@(o) ee_lime (w.model, w.X(1, :), o{:}, 'verbose', false), bad);
%! ## one coalition cannot determine the fit
%! try
%!   ee_lime (w.model, w.X(1, :), 'coalitions', {true(1, n1)}, 'verbose', false);
%!   error ('no error');
%! catch err
%!   assert (err.identifier, 'ee:badInput'); assert (! isempty (strfind (err.message, 'LIME')), err.message);
%! end

%!test
%! ## the memory budget: ee:outOfMemory before anything is computed, for each
%! ## coalition method of a built-in model
%! addpath (fullfile (fileparts (which ('ee_lime')), '..', 'tests', 'octave'));   # assert_budget_refusal
%! w = load (fullfile (fileparts (which ('ee_lime')), '..', 'tests', 'vectors', 'transformer_tiny.mat'));
%! X = repmat (w.X, 200, 1);
%! assert_budget_refusal (@() ee_lime (w.model, X, 'samples', 5000, 'verbose', false));
%! assert_budget_refusal (@() ee_sv (w.model, X, 'method', 'kernelshap', 'samples', 5000, 'verbose', false));
%! assert_budget_refusal (@() ee_occlusion (w.model, repmat (X, 50, 1), 'verbose', false));
