## -*- texinfo -*-
## @deftypefn  {} {@var{A} =} ee_occlusion (@var{f}, @var{X}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_occlusion (@var{f}, @var{X}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_occlusion (@var{clf}, @var{X}, @dots{})
## Leave-one-out occlusion of a model given as a function handle @var{f}:
## each player's value is what f's target score loses when that player
## alone is made absent,
##
## @example
## phi_p = f(x) - v(all players but p)
## @end example
##
## (@code{doc/MODELS.md}, "Coalition methods"; Captum's
## @code{FeatureAblation} with a feature mask of the players).  @var{f},
## @var{X}, the players, the absent values ('baseline', 'background':
## v(S) is the mean of f over the background rows with the absent players'
## columns replaced), 'groups', 'target', 'rows', 'batch' and 'verbose' are
## those of @code{ee_sv}'s handle form; a player's value is spread equally
## over its columns.  Cost: 1 + P coalitions of K rows per row, drawn
## from no generator.  On a linear model it equals the Shapley values,
## w .* (x - b); with interactions it does not (each player is credited
## with every interaction it takes part in), and @code{info.delta} =
## sum(A, 2) - (fx - fbaseline) reports how far from efficiency it is.
##
## @var{info}: @code{target}, @code{fx}, @code{fbaseline} (v of the empty
## coalition, evaluated for delta), @code{delta}, @code{players},
## @code{method} ('occlusion'), @code{coalitions} (P per row),
## @code{passes}, @code{calls}, @code{seconds}, @code{seconds_callback},
## @code{seconds_f}.  Errors as for @code{ee_sv}'s handle form.
##
## @strong{A built-in classifier} @var{clf} (transformer, cnn or mlp
## struct; @var{X} its int32 token ids or dense rows): occlusion with
## windows of 'window' consecutive real tokens (an mlp's features) every
## 'stride' (Captum's @code{Occlusion} on the token sequence).  Windows
## k = 0, 1, @dots{} cover the real tokens k stride + 1 .. k stride +
## window of the row (in position order), the last one cut at the end,
## ceil((n - window) / stride) + 1 windows for n real tokens (one window of
## all of them when n <= window; with a stride above the window the last
## of those shifts may start past the last token, and is then no window); a window's value is the drop of the
## target logit when its tokens are replaced by the baseline id (PAD, or
## the 'baseline' ids) under the row's own mask, exactly as @code{ee_sv}
## makes tokens absent (an mlp's features: 0), and a token's score is the
## mean over the windows that cover it.  'window' 1, 'stride' 1 (the
## defaults) is feature ablation (leave-one-out): f(x) - f(x without the
## token).  Special tokens and pads get 0.  @var{A} is N x T (N x D)
## single.  Cost: 2 + (windows) forward passes per row (f(x), the empty
## coalition for @code{info.fbaseline} and @code{info.delta}, one per
## window; a window of every token is the empty coalition and costs none),
## all rows' copies filling the passes ('batch') in length order.
## Options: 'window', 'stride' (integers 1..T), 'baseline' ('pad' or
## N x T ids), 'target', 'rows', 'batch', 'device', 'precision',
## 'verbose' (progress with rate and ETA), 'incremental' (default true: on
## the CPU the cnn recomputes only the convolution windows a window of
## tokens touches, starting from the input's, and the transformer reuses
## its layer-0 projections of the input and baseline, as @code{ee_sv}
## does; the same values up to float rounding; false: full passes); the
## handle form's 'groups' and
## 'background' do not apply.  @var{info}: @code{target}, @code{fx},
## @code{fbaseline}, @code{delta}, @code{passes}, @code{forward_passes},
## @code{seconds}, @code{method} ('occlusion'), @code{coalitions} (windows
## per row), @code{window}, @code{stride}.  A window or stride out of
## range is @code{ee:badInput}; past the memory budget
## @code{ee:outOfMemory}; Ctrl-C @code{ee:interrupted}
## (@code{doc/MODELS.md}, "Coalition methods on the built-in models").
##
## @example
## A = ee_occlusion (@@(x) x(:,1) .* x(:,2), [2 3], 'baseline', [0 0])
## @result{} A = 6 6      # Shapley: 3 3
## @end example
## @example
## A = ee_occlusion (clf, X, 'window', 3, 'stride', 1);   # 3-token windows
## @end example
## @seealso{ee_sv, ee_lime, ee_ig}
## @end deftypefn

## The function itself is the MEX file beside this help stub.

%!test
%! ## linear model: w .* (x - b); interaction model x1 x2 + x3: the closed form
%! wl = [2; -1; 0.5; 3]; X = randn (3, 4); bg = randn (5, 4);
%! [A, info] = ee_occlusion (@(x) x * wl, X, 'background', bg);
%! assert (A, wl' .* (X - mean (bg)), 1e-12);
%! assert (info.method, 'occlusion'); assert (info.coalitions, 4); assert (info.passes, 3 + 3 * 5 * 5);
%! f = @(x) x(:,1) .* x(:,2) + x(:,3);
%! [A, info] = ee_occlusion (f, X(:, 1:3), 'background', bg(:, 1:3));
%! for i = 1:3
%!   x = X(i, :);
%!   ref = [x(1) * x(2) - mean(bg(:,1)) * x(2), x(1) * x(2) - x(1) * mean(bg(:,2)), x(3) - mean(bg(:,3))];
%!   assert (A(i, :), ref, 1e-12);
%!   ## delta: the interaction counted twice less the empty coalition's share
%!   assert (info.delta(i), sum (ref) - (f (x) - mean (f (bg(:, 1:3)))), 1e-12);
%! end

%!test
%! ## groups: the group's loss spread over its columns; id 0 keeps x and gets 0
%! f = @(x) x(:,1) .* x(:,2) + x(:,3) .^ 2 + x(:,4);
%! x = [1 2 3 4];
%! [A, info] = ee_occlusion (f, x, 'groups', [1 1 2 0]);
%! assert (info.players, [2, 9]);
%! assert (A, [1 1 9 0]);
%! assert (isequal (ee_occlusion (f, [x; 2 * x], 'batch', 1), ee_occlusion (f, [x; 2 * x])));

%!test
%! ## every window and stride up to 3 x the window (strides past the window
%! ## leave gaps; the shift past the end is no window): the scores against
%! ## a plain enumeration of the windows through ee_predict, on an mlp of 7
%! ## features (absent: 0), a cnn and a transformer (absent: PAD under the
%! ## row's own mask)
%! randn ('seed', 1); rand ('seed', 1);
%! m = ee_train ('mlp', single (randn (40, 7)), randi (2, 40, 1), 'hidden', 6, 'epochs', 1, 'verbose', false);
%! Xt = int32 (ones (6, 12)); Xt(:, 1) = 3;
%! for i = 1:6, n = 3 + i; Xt(i, 2:n+1) = randi ([5 30], 1, n); Xt(i, n+2) = 4; end
%! yt = randi (2, 6, 1);
%! c = ee_train ('cnn', Xt, yt, 'd', 8, 'filters', 4, 'widths', [2 3], 'vocab', 30, 'epochs', 1, 'verbose', false);
%! t = ee_train ('transformer', Xt, yt, 'd', 8, 'heads', 2, 'layers', 1, 'ffn', 16, 'vocab', 30, 'epochs', 1, 'verbose', false);
%! models = {m, c, t};
%! rows_of = {single(randn (2, 7)), Xt([1 6], :), Xt([2 5], :)};
%! for q = 1:3
%!   M = models{q}; X = rows_of{q}; tok = q > 1;
%!   for w = 1:3
%!     for s = 1:min (3 * w, columns (X))
%!       A = ee_occlusion (M, X, 'window', w, 'stride', s, 'target', 1, 'verbose', false);
%!       for i = 1:rows (X)
%!         x = X(i,:);
%!         if (tok) pos = find (x > 4); else pos = 1:numel (x); end
%!         n = numel (pos); starts = 0;
%!         while (starts(end) + w < n && starts(end) + s < n) starts(end+1) = starts(end) + s; end
%!         [~, z] = ee_predict (M, x); z1 = double (z(1));
%!         sum_ = zeros (1, n); cover = zeros (1, n);
%!         for a = starts
%!           k = pos(a+1:min (a + w, n)); xa = x; xa(k) = tok;  # PAD = 1, or 0
%!           if (tok) [~, za] = ee_predict (M, xa, 'mask', x != 1); else [~, za] = ee_predict (M, xa); end
%!           sum_(a+1:min (a + w, n)) += z1 - double (za(1)); cover(a+1:min (a + w, n)) += 1;
%!         end
%!         ref = zeros (1, columns (X)); ref(pos(cover > 0)) = sum_(cover > 0) ./ cover(cover > 0);
%!         assert (double (A(i,:)), ref, 1e-4);
%!       end
%!     end
%!   end
%! end

%!error id=ee:badModel ee_occlusion (struct ('kind', 'mlp'), [1 2 3])
%!error <'samples' does not apply> ee_occlusion (@(x) x(:,1), [1 2 3], 'samples', 5)
%!error <'coalitions' does not apply> ee_occlusion (@(x) x(:,1), [1 2 3], 'coalitions', [1 0 0])
%!error <'baseline' and 'background'> ee_occlusion (@(x) x(:,1), [1 2 3], 'baseline', 0, 'background', [1 2 3])

%!test
%! ## ee_occlusion inside its own f is refused, as f's error; the outer call
%! ## ends cleanly and the next works; ee_sv may run inside it (another gateway)
%! try
%!   ee_occlusion (@(x) x(:,1) + 0 * size (ee_occlusion (@(z) z(:,1), x), 1), [1 2 3]);
%!   error ('not refused');
%! catch err
%!   assert (err.identifier, 'ee:callbackError');
%!   assert (! isempty (strfind (err.message, 'from inside the model function')), err.message);
%! end
%! assert (ee_occlusion (@(x) x(:,2) + 0 * size (ee_sv (@(z) z(:,1), x(1,:), 'exact', true), 1), [1 2 3]), [0 2 0]);
%! ## f's own error keeps its message and identifier
%! try
%!   ee_occlusion (@(x) error ('my:id', 'boom %d', rows (x)), [1 2 3]);
%!   error ('not raised');
%! catch err
%!   assert (err.identifier, 'ee:callbackError');
%!   assert (! isempty (strfind (err.message, 'boom 1')) && ! isempty (strfind (err.message, 'my:id')), err.message);
%! end

%!shared vdir
%! vdir = fullfile (fileparts (which ('ee_occlusion')), '..', 'tests', 'vectors');

%!function y = target_logits (m, Z, mask, t)
%!  ## the target logit of rows of ids through ee_predict under one mask
%!  [~, lg] = ee_predict (m, int32 (Z), 'mask', repmat (mask, rows (Z), 1));
%!  y = double (lg(:, t));
%!endfunction

%!function phi = windows_outside (m, x, t, w, s)
%!  ## occlusion with windows from its definition, outside libcore
%!  pos = find (x ~= 1 & x ~= 3 & x ~= 4); n = numel (pos); mask = x ~= 1;
%!  fx = target_logits (m, x, mask, t);
%!  phi = zeros (1, numel (x)); cover = phi;
%!  start = 0;
%!  while (n > 0)
%!    idx = pos(start + 1:min (start + w, n));
%!    z = x; z(idx) = 1;
%!    phi(idx) += fx - target_logits (m, z, mask, t); cover(idx) += 1;
%!    if (start + w >= n), break; end
%!    start += s;
%!  end
%!  phi(cover > 0) ./= cover(cover > 0);
%!endfunction

%!test
%! ## built-in transformer and cnn: windows and strides against the definition
%! ## computed here through ee_predict; feature ablation by default
%! for name = {'transformer_tiny', 'cnn_tiny'}
%!   w = load (fullfile (vdir, [name{1} '.mat']));
%!   for ws = [1 1; 2 1; 3 2; 2 3]'
%!     [A, info] = ee_occlusion (w.model, w.X, 'window', ws(1), 'stride', ws(2), 'verbose', false, 'batch', 5);
%!     assert (class (A), 'single'); assert (size (A), size (w.X));
%!     assert (info.method, 'occlusion'); assert ([info.window info.stride], ws');
%!     for i = 1:rows (w.X)
%!       x = double (w.X(i, :));
%!       ref = windows_outside (w.model, x, info.target(i), ws(1), ws(2));
%!       assert (double (A(i, :)), ref, 1e-5 * max (1, max (abs (ref))));
%!     end
%!     n = sum (w.X ~= 1 & w.X ~= 3 & w.X ~= 4, 2);
%!     Kc = ceil (max (n - ws(1), 0) / ws(2));        # the shift past the end is no window
%!     K = Kc + (n > 0 & Kc * ws(2) < n);
%!     assert (info.coalitions, K);
%!     ## f(x), v(empty), one pass per window but one that takes every token (= v(empty))
%!     assert (info.passes, sum (1 + (n > 0) + K - (n > 0 & n <= ws(1))));
%!   end
%!   ## the default is leave-one-out
%!   assert (ee_occlusion (w.model, w.X, 'verbose', false), ...
%!           ee_occlusion (w.model, w.X, 'window', 1, 'stride', 1, 'verbose', false));
%!   ## the CPU shortcuts give the full passes' values up to rounding
%!   A = ee_occlusion (w.model, w.X, 'window', 2, 'verbose', false);
%!   F = ee_occlusion (w.model, w.X, 'window', 2, 'incremental', false, 'verbose', false);
%!   assert (A, F, 1e-5 * max (1, max (abs (F(:)))));
%! end

%!function y = logits_of (m, z, mask)
%!  [~, lg] = ee_predict (m, int32 (z), 'mask', repmat (mask, rows (z), 1));
%!  y = double (lg);
%!endfunction

%!test
%! ## a handle that wraps the built-in model (real tokens as players, PAD
%! ## baseline) gives the built-in feature ablation of full passes (the
%! ## CPU shortcut's layer-0 attention from the row's sums agrees with them
%! ## to rounding, checked above, not to these bits); 'rows' and 'batch'
%! ## change no bit of the built-in one
%! w = load (fullfile (vdir, 'transformer_tiny.mat'));
%! B = ee_occlusion (w.model, w.X, 'verbose', false);
%! Bf = ee_occlusion (w.model, w.X, 'incremental', false, 'verbose', false);
%! assert (B, Bf, 1e-5 * max (1, max (abs (Bf(:)))));
%! for i = 1:rows (w.X)
%!   x = double (w.X(i, :)); real = x ~= 1 & x ~= 3 & x ~= 4;
%!   g = zeros (size (x)); g(real) = 1:sum (real);
%!   b = x; b(real) = 1;
%!   A = ee_occlusion (@(z) logits_of (w.model, z, x ~= 1), x, 'groups', g, 'baseline', b, 'verbose', false);
%!   assert (A, double (Bf(i, :)), 1e-6 * max (abs (double (Bf(i, :)))) + 1e-7);
%!   assert (ee_occlusion (w.model, w.X, 'rows', i, 'batch', 1, 'verbose', false), B(i, :));
%! end

%!test
%! ## an mlp: a feature ablated is set to 0
%! w = load (fullfile (vdir, 'mlp_tiny.mat'));
%! X = w.X(1:2, :);
%! [A, info] = ee_occlusion (w.model, X, 'verbose', false);
%! [~, lg] = ee_predict (w.model, X);
%! for i = 1:2
%!   t = info.target(i); D = columns (X);
%!   Z = repmat (X(i, :), D, 1); Z(logical (eye (D))) = 0;
%!   [~, lz] = ee_predict (w.model, Z);
%!   ref = double (lg(i, t)) - double (lz(:, t))';
%!   assert (double (A(i, :)), ref, 1e-5 * max (1, max (abs (ref))));
%! end
%! assert (info.passes, 2 * (2 + columns (X)));

%!test
%! ## bad input: one-line ee:badInput errors naming the option
%! w = load (fullfile (vdir, 'cnn_tiny.mat'));
%! T = columns (w.X);
%! bad = {{'window', 0}, {'window', T + 1}, {'stride', 0}, {'stride', 1.5}, {'samples', 10}, ...
%!        {'coalitions', {}}, {'width', 1}, {'window', 'x'}};
%! addpath (fullfile (fileparts (which ('ee_occlusion')), '..', 'tests', 'octave'));   # assert_bad_options
%! assert_bad_options (@(o) ee_occlusion (w.model, w.X, o{:}, 'verbose', false), bad);
