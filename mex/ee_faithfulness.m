## -*- texinfo -*-
## @deftypefn {} {@var{F} =} ee_faithfulness (@var{model}, @var{X}, @var{A}, @dots{})
## @deftypefnx {} {@var{F} =} ee_faithfulness (@@@var{f}, @var{X}, @var{A}, 'baseline', @var{b}, @dots{})
## How faithful attribution maps @var{A} are to the classifier @var{model}
## that they explain, measured by removing the players of each row of
## @var{X} in the order of its map: ERASER comprehensiveness and
## sufficiency, the deletion and insertion curves and their areas, and the
## log-odds drop.  doc/MODELS.md ("Faithfulness") defines every number.
##
## @var{A} has the size of @var{X}: N x T for a token model (transformer,
## cnn; one score per position, as @code{ee_ig}, @code{ee_sv} and
## @code{ee_explain} return them), N x D for an mlp.  The players of a
## row are its real tokens (every position but [CLS], [SEP] and PAD; the D
## features of an mlp), ranked by their score, largest first, ties to the
## lower position; the scores of the special tokens are not read.  A
## removed player takes the baseline of @code{ee_sv}: PAD (or the
## @code{'baseline'} ids) under the original input's mask; 0 for an mlp.
## s is the target class's softmax probability (or its logit, see
## @code{'score'}); with n players, D_j is s at the row without its top j
## players and I_j s at the baseline with only its top j players.
##
## @table @asis
## @item comprehensiveness
## mean over the bins k = 1, 5, 10, 20, 50 % of s(x) - D_m, m =
## ceil(k n / 100): how much the top-ranked players carry (higher is
## more faithful);
## @item sufficiency
## mean over the same bins of s(x) - I_m: what is lost when only the top
## players are kept (lower is more faithful);
## @item deletion_auc, insertion_auc
## the areas under D and I over the fraction j / n of players removed
## (inserted), by trapezoids at j = round(q n / K), q = 0..K (K =
## @code{'steps'}; every j = 0..n for K = 0): deletion lower and insertion
## higher is more faithful;
## @item log_odds_drop
## log(p / (1 - p)) of the target at x minus the same without the top
## ceil(P n / 100) players (P = @code{'logodds'});
## @item infidelity
## (with @code{'infidelity'} m > 0) the mean over m random subsets S of
## the players (each in S with probability 1/2, drawn from the row's own
## stream) of (sum of A over S - (z(x) - z(x without S)))^2, z the target
## logit: how far the map is from additive for the subsets removed (Yeh
## et al.'s infidelity with subset-removal perturbations; 0 for the exact
## attribution of a linear model; lower is more faithful).  It reads the
## map's values, not only its order, so maps are compared in the units of
## the logit;
## @item infidelity_normalized
## the same with the map scaled by the factor that fits the drops best
## (least squares; Captum's @code{normalize}): the same for any positive
## rescaling of the map;
## @item sensitivity_max
## (with @code{'sensitivity'} naming a gradient method of
## @code{ee_gradient}) Captum's sensitivity-max of that method: the
## largest over n perturbations x' of ||M(x') - M(x)|| / ||M(x)||
## (Frobenius norms of the map rows; not divided where M(x) = 0), M the
## method's map, x' the embedding-layer output (the features of an mlp)
## plus uniform noise in [-r, r] on every attended element, drawn from
## the row's own stream, the target that of x.  It does not read @var{A}:
## it measures the method, not a given map (lower is more stable).
## @end table
##
## Each is an N x 1 column; rows without real tokens get NaN.  @var{F} also
## holds @code{comprehensiveness_bins} and @code{sufficiency_bins} (N x 5,
## per bin), @code{bins} ([1 5 10 20 50]), @code{deletion_curve} and
## @code{insertion_curve} (N x (K + 1), D and I at the K + 1 points; for
## K > 0), @code{target}, @code{players} (n per row), @code{fx} and
## @code{fbaseline} (s at x and at the baseline), @code{score},
## @code{steps}, @code{logodds}, @code{passes} (forward passes) and
## @code{seconds}.
##
## Cost: one forward pass for each row and one for each distinct
## perturbed copy the measures read (at most the K + 1 curve points, the 5
## bins and the log-odds count, for deletion and insertion: about 2 K + 10
## per row), all batched across rows as @code{ee_predict} batches.
##
## Options:
## @table @asis
## @item 'steps'
## K, the points of the curves (default 20); 0: every count 0..n (2 n
## passes per row of n players).
## @item 'logodds'
## P, the percentage of the players removed for @code{log_odds_drop}
## (default 20, an integer in 1..100).
## @item 'score'
## 'probability' (default) or 'logit' (of the target class).
## @item 'infidelity'
## m, the random subsets per row for @code{infidelity} (default 0: not
## computed; m more forward passes per row).
## @item 'seed'
## of the subsets (default 1); row i of @var{X} draws from its own
## stream, so @code{'rows'} and any batch give the same numbers.
## @item 'baseline'
## 'pad' (default) or an int32 N x T id matrix (token models).
## @item 'target'
## 'argmax' (default: the class of the largest logit at x), a class for
## every row, or one per row.
## @item 'sensitivity'
## the gradient method whose sensitivity-max to compute: 'saliency',
## 'saliency_abs', 'saliency_l2', 'gradxinput' or 'ig' (IG from the
## @code{'baseline'}, Gauss-Legendre).  Not given: not computed.
## @item 'sensitivity_samples'
## n, its perturbations per row (default 10, Captum's); each costs the
## method's passes again (1 forward and backward, @code{'sensitivity_steps'}
## for ig).
## @item 'radius'
## r, their half-width (default 0.02, Captum's), in the units of the
## embedding output.
## @item 'sensitivity_steps'
## IG's quadrature nodes for @code{'sensitivity', 'ig'} (default 20).
## @item 'rows', 'batch', 'device', 'precision', 'verbose'
## as for @code{ee_ig}.
## @end table
##
## With 'sensitivity', @var{F} also holds @code{sensitivity}, its
## @code{sensitivity_samples}, @code{radius}, @code{seed},
## @code{sensitivity_passes} (forward and backward) and
## @code{sensitivity_seconds}.
##
## @strong{A function handle as the model.}  @code{ee_faithfulness (@@f, X,
## A, @dots{})} measures maps of any model: @var{f} takes an M x F double
## matrix of rows and returns M x C scores (or M x 1), as for
## @code{ee_sv (@@f, @dots{})}, which also defines the players (the
## columns of @var{X}, or @code{'groups'}: a 1 x F vector of player ids,
## 0 = no player) and what a removed player becomes (@code{'baseline'}:
## a 1 x F row or a scalar, default 0; @code{'background'}: K rows, the
## score then the mean of f over them).  @var{A} is N x F (a player's
## score is the sum over its columns) or N x P (one per player).  s is
## the target's score as f returns it (no softmax), so
## @code{log_odds_drop}, @code{'score'} and @code{'logodds'} do not
## apply; every other field is defined as above, with the players in
## the place of the real tokens.  Options: @code{'steps'},
## @code{'infidelity'}, @code{'seed'}, @code{'baseline'},
## @code{'background'}, @code{'groups'}, @code{'target'}, @code{'rows'},
## @code{'batch'} (rows per call of f, default 1024) and
## @code{'verbose'}; @var{F} also has @code{calls} and @code{seconds_f}
## (the time inside f).  f is called with batches of copies of many rows,
## never once per row; its errors come back as ee:callbackError.
##
## @example
## A = ee_ig (clf, X);
## F = ee_faithfulness (clf, X, A);
## R = ee_faithfulness (clf, X, rand (size (A)));   # a random map
## [mean(F.comprehensiveness), mean(R.comprehensiveness)]
## S = ee_faithfulness (clf, X, A, 'sensitivity', 'ig', 'radius', 0.05);
## w = [2 -1 0.5]; x = [1 1 1; 2 0 1];
## G = ee_faithfulness (@@(z) z * w', x, x .* w, 'baseline', 0);
## @end example
## @seealso{ee_ig, ee_sv, ee_explain, ee_predict}
## @end deftypefn

## The function itself is the MEX file beside this help stub.

%!shared vdir, v, c, mlp
%! vdir = fullfile (fileparts (which ('ee_faithfulness')), '..', 'tests', 'vectors');
%! v = load (fullfile (vdir, 'transformer_tiny.mat'));
%! c = load (fullfile (vdir, 'cnn_tiny.mat'));
%! mlp = load (fullfile (vdir, 'mlp_tiny.mat'));

%!function [D, I, lo, tg] = curves_outside (w, x, a, base)
%!  ## D_j and I_j (j = 0..n) and the log-odds of the deletion copies of one
%!  ## row, every copy through ee_predict (the input's mask), from outside
%!  token = isinteger (x);
%!  if (token)
%!    pos = find (x ~= 1 & x ~= 3 & x ~= 4);
%!  else
%!    pos = 1:numel (x);
%!  end
%!  n = numel (pos);
%!  [~, k] = sortrows ([-double(a(pos))', pos']);   # largest first, ties to the lower position
%!  ord = pos(k);
%!  Xd = repmat (x, n + 1, 1); Xi = repmat (base, n + 1, 1);
%!  for j = 1:n
%!    Xd(j+1:end, ord(j)) = base(ord(j));
%!    Xi(j+1:end, ord(j)) = x(ord(j));
%!  end
%!  if (token)
%!    m = repmat (x ~= 1, n + 1, 1);
%!    [~, zd] = ee_predict (w.model, Xd, 'mask', m); [~, zi] = ee_predict (w.model, Xi, 'mask', m);
%!  else
%!    [~, zd] = ee_predict (w.model, Xd); [~, zi] = ee_predict (w.model, Xi);
%!  end
%!  zd = double (zd); zi = double (zi);
%!  [~, tg] = max (zd(1,:));
%!  p = @(z) exp (z(:, tg) - max (z, [], 2)) ./ sum (exp (z - max (z, [], 2)), 2);
%!  D = p (zd); I = p (zi);
%!  lo = log (D) - log1p (-D);
%!endfunction

%!function check_against_outside (w, A, F, K, P)
%!  token = isinteger (w.X);
%!  for i = 1:rows (w.X)
%!    x = w.X(i,:);
%!    if (token) base = x; base(x ~= 1 & x ~= 3 & x ~= 4) = 1; else base = zeros (size (x), 'like', x); end
%!    [D, I, lo, tg] = curves_outside (w, x, A(i,:), base);
%!    n = numel (D) - 1;
%!    assert (F.target(i), tg);
%!    assert (F.players(i), n);
%!    m = ceil ([1 5 10 20 50] * n / 100);
%!    assert (F.comprehensiveness_bins(i,:), D(1) - D(m + 1)', 1e-6);
%!    assert (F.sufficiency_bins(i,:), D(1) - I(m + 1)', 1e-6);
%!    assert (F.comprehensiveness(i), mean (D(1) - D(m + 1)), 1e-6);
%!    assert (F.sufficiency(i), mean (D(1) - I(m + 1)), 1e-6);
%!    if (K == 0) j = 0:n; else j = floor ((0:K) * n / K + 0.5); end
%!    assert (F.deletion_auc(i), trapz (j / n, D(j + 1)), 1e-6);
%!    assert (F.insertion_auc(i), trapz (j / n, I(j + 1)), 1e-6);
%!    if (K > 0) assert (F.deletion_curve(i,:), D(j + 1)', 1e-6); end
%!    assert (F.log_odds_drop(i), lo(1) - lo(ceil (P * n / 100) + 1), 1e-4);
%!  end
%!endfunction

%!test
%! ## every measure from the copies evaluated outside by ee_predict
%! A = ee_ig (v.model, v.X, 'verbose', false);
%! F = ee_faithfulness (v.model, v.X, A, 'steps', 0, 'verbose', false);
%! check_against_outside (v, A, F, 0, 20);
%! assert (F.bins, [1 5 10 20 50]);
%! assert (isfield (F, 'deletion_curve'), false);

%!test
%! ## the cnn with 4-point curves and the log-odds at 50 %, a random map
%! rand ('seed', 3); A = rand (size (c.X));
%! F = ee_faithfulness (c.model, c.X, A, 'steps', 4, 'logodds', 50, 'batch', 3, 'verbose', false);
%! check_against_outside (c, A, F, 4, 50);
%! assert (size (F.deletion_curve), [rows(c.X), 5]);
%! assert (F.deletion_curve(:, 1), F.fx);
%! assert (F.deletion_curve(:, end), F.fbaseline);

%!test
%! ## the mlp: the features are the players, absent ones 0
%! rand ('seed', 4); A = randn (size (mlp.X));
%! F = ee_faithfulness (mlp.model, mlp.X, A, 'steps', 0, 'verbose', false);
%! check_against_outside (mlp, A, F, 0, 20);
%! assert (F.players, repmat (columns (mlp.X), rows (mlp.X), 1));

%!test
%! ## 'rows' gives the rows' own numbers, bit for bit; 'score', 'logit'
%! A = ee_sv (v.model, v.X, 'samples', 3, 'verbose', false);
%! F = ee_faithfulness (v.model, v.X, A, 'verbose', false);
%! G = ee_faithfulness (v.model, v.X, A, 'rows', [4 2], 'batch', 1, 'verbose', false);
%! assert (G.comprehensiveness, F.comprehensiveness([4 2]));
%! assert (G.deletion_curve, F.deletion_curve([4 2], :));
%! assert (G.log_odds_drop, F.log_odds_drop([4 2]));
%! L = ee_faithfulness (v.model, v.X, A, 'score', 'logit', 'verbose', false);
%! [~, z] = ee_predict (v.model, v.X);
%! assert (L.fx, double (z(sub2ind (size (z), (1:rows (z))', L.target))), 1e-6);
%! assert (F.passes > rows (v.X));

%!test
%! ## the map that reverses a map's order does worse on average
%! A = ee_ig (v.model, v.X, 'verbose', false);
%! F = ee_faithfulness (v.model, v.X, A, 'steps', 0, 'verbose', false);
%! R = ee_faithfulness (v.model, v.X, -A, 'steps', 0, 'verbose', false);
%! assert (mean (F.comprehensiveness) > mean (R.comprehensiveness));
%! assert (mean (F.deletion_auc) < mean (R.deletion_auc));

%!test
%! ## infidelity: only when asked; the rows' own subsets under 'rows'; a map
%! ## scaled far from the logit's units is far less faithful by it (the
%! ## ERASER measures read the order only: the same numbers)
%! A = ee_ig (v.model, v.X, 'verbose', false);
%! F = ee_faithfulness (v.model, v.X, A, 'verbose', false);
%! assert (isfield (F, 'infidelity'), false);
%! F = ee_faithfulness (v.model, v.X, A, 'infidelity', 16, 'seed', 3, 'verbose', false);
%! G = ee_faithfulness (v.model, v.X, A, 'infidelity', 16, 'seed', 3, 'rows', [5 2 3], 'verbose', false);
%! assert (G.infidelity, F.infidelity([5 2 3]));
%! assert (F.passes, G.passes + ee_faithfulness (v.model, v.X, A, 'infidelity', 16, 'rows', [1 4], 'verbose', false).passes);
%! H = ee_faithfulness (v.model, v.X, 50 * A, 'infidelity', 16, 'seed', 3, 'verbose', false);
%! assert (all (F.infidelity >= 0) && mean (H.infidelity) > 10 * mean (F.infidelity));
%! assert (H.comprehensiveness, F.comprehensiveness);
%! assert (H.infidelity_normalized, F.infidelity_normalized, 1e-6 * max (F.infidelity_normalized));
%! assert (all (F.infidelity_normalized <= F.infidelity + 1e-9));

%!error <'seed' applies> ee_faithfulness (v.model, v.X, zeros (5, 12), 'seed', 2)
%!error <'infidelity'> ee_faithfulness (v.model, v.X, zeros (5, 12), 'infidelity', -1)
%!error <A must be 5x12> ee_faithfulness (v.model, v.X, zeros (5, 11))
%!error <A must be 5x12> ee_faithfulness (v.model, v.X, zeros (4, 12))
%!error <A.*finite|A\(1,2\)> ee_faithfulness (v.model, v.X, [0 NaN zeros(1, 10); zeros(4, 12)], 'verbose', false)
%!error <'score'> ee_faithfulness (v.model, v.X, zeros (5, 12), 'score', 'odds')
%!error <'steps'> ee_faithfulness (v.model, v.X, zeros (5, 12), 'steps', -1)
%!error <'logodds'> ee_faithfulness (v.model, v.X, zeros (5, 12), 'logodds', 0)
%!error <'baseline'> ee_faithfulness (v.model, v.X, zeros (5, 12), 'baseline', 'zero')
%!error <usage> ee_faithfulness (v.model, v.X)
%!test
%! try
%!   ee_faithfulness (v.model, v.X, zeros (5, 11));
%!   error ('no error');
%! catch err
%!   assert (err.identifier, 'ee:badInput');
%! end

%!test
%! ## sensitivity-max: >= 0, 0 at radius 0, growing with the radius, the
%! ## same for a row alone ('rows'), with its own fields
%! A = ee_ig (v.model, v.X, 'verbose', false);
%! S0 = ee_faithfulness (v.model, v.X, A, 'sensitivity', 'saliency', 'radius', 0, 'verbose', false);
%! assert (S0.sensitivity_max, zeros (rows (v.X), 1), 1e-6);
%! S1 = ee_faithfulness (v.model, v.X, A, 'sensitivity', 'saliency', 'radius', 0.05, 'sensitivity_samples', 4, 'verbose', false);
%! S2 = ee_faithfulness (v.model, v.X, A, 'sensitivity', 'saliency', 'radius', 0.5, 'sensitivity_samples', 4, 'verbose', false);
%! assert (all (S1.sensitivity_max > 0) && all (isfinite (S1.sensitivity_max)));
%! assert (mean (S2.sensitivity_max) > mean (S1.sensitivity_max));
%! assert (S1.sensitivity, 'saliency'); assert (S1.sensitivity_samples, 4); assert (S1.radius, 0.05);
%! R = ee_faithfulness (v.model, v.X, A, 'sensitivity', 'saliency', 'radius', 0.05, 'sensitivity_samples', 4, 'rows', 3, 'verbose', false);
%! assert (R.sensitivity_max, S1.sensitivity_max(3));
%! ## from outside: the max ratio can be no smaller than that of one noisy map
%! ## of the same radius; IG with few nodes on the mlp
%! M = ee_faithfulness (mlp.model, mlp.X, zeros (size (mlp.X)), 'sensitivity', 'ig', 'sensitivity_steps', 4, 'radius', 0.1, 'verbose', false);
%! assert (all (M.sensitivity_max >= 0) && M.sensitivity_steps == 4 && M.sensitivity_passes > 0);

%!error id=ee:badInput ee_faithfulness (v.model, v.X, zeros (size (v.X)), 'sensitivity', 'gradientshap')
%!error id=ee:badInput ee_faithfulness (v.model, v.X, zeros (size (v.X)), 'sensitivity', 'saliency', 'radius', -1)
%!error id=ee:badInput ee_faithfulness (v.model, v.X, zeros (size (v.X)), 'radius', 0.1)
%!error id=ee:badInput ee_faithfulness (v.model, v.X, zeros (size (v.X)), 'sensitivity', 'saliency', 'sensitivity_steps', 3)

%!test
%! ## a function handle: a linear model from a zero baseline; the exact
%! ## attribution w .* x ranks the players by their true effect, so its
%! ## comprehensiveness is the largest of any map's in every row-bin, and
%! ## its infidelity 0
%! rand ('seed', 11); randn ('seed', 11);
%! w = randn (1, 12); X = randn (30, 12); f = @(z) z * w';
%! E = ee_faithfulness (f, X, X .* w, 'baseline', 0, 'infidelity', 8, 'verbose', false);
%! for t = 1:20
%!   R = ee_faithfulness (f, X, randn (size (X)), 'baseline', 0, 'verbose', false);
%!   assert (all (E.comprehensiveness_bins(:) >= R.comprehensiveness_bins(:) - 1e-12));
%! end
%! assert (E.infidelity, zeros (30, 1), 1e-20);
%! assert (E.fx, X * w', 1e-12);
%! assert (E.fbaseline, zeros (30, 1));
%! assert (E.players, repmat (12, 30, 1));
%! ## a bin from outside: the top 20 % removed (m = ceil (0.2 * 12) = 3)
%! [~, ord] = sort (-(X(1,:) .* w)); c = X(1,:) .* w;
%! assert (E.comprehensiveness_bins(1, 4), sum (c(ord(1:3))), 1e-12);
%! assert (isfield (E, 'log_odds_drop'), false);

%!test
%! ## groups and a background; the same map per player or per column;
%! ## f called in batches, never per row
%! X = [1 2 3 4; -1 0 2 1; 3 1 -2 0];
%! f = @(z) [z(:,1) .* z(:,2) + z(:,3), -z(:,4)];
%! g = [1 1 2 0];
%! A = [5 5 1 0; 1 1 4 0; 0 0 1 9];
%! P = [10 1; 2 4; 0 1];
%! F1 = ee_faithfulness (f, X, A, 'groups', g, 'background', [0 0 0 0; 1 1 1 1], 'steps', 0, 'verbose', false);
%! F2 = ee_faithfulness (f, X, P, 'groups', g, 'background', [0 0 0 0; 1 1 1 1], 'steps', 0, 'verbose', false);
%! assert (F1.comprehensiveness, F2.comprehensiveness);
%! assert (F1.players, [2; 2; 2]);
%! assert (F1.calls <= 3);
%! ## row 1 (target 1): the top player is group 1; removed: v = mean over
%! ## the background of f with columns 1:2 from it
%! v = mean ([0 * 0 + 3, 1 * 1 + 3]);
%! assert (F1.comprehensiveness_bins(1, 1), (1 * 2 + 3) - v, 1e-12);

%!error id=ee:badInput ee_faithfulness (@(z) z, ones (2, 3), ones (2, 2))
%!error id=ee:badInput ee_faithfulness (@(z) z, ones (2, 3), ones (2, 3), 'score', 'logit')
%!error id=ee:callbackError ee_faithfulness (@(z) error ('my:id', 'boom'), ones (2, 3), ones (2, 3))
