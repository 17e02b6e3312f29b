## -*- texinfo -*-
## @deftypefn  {} {@var{A} =} ee_lime (@var{f}, @var{X}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_lime (@var{f}, @var{X}, @dots{})
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

%!error id=ee:notSupported ee_lime (struct ('kind', 'mlp'), [1 2 3])
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
