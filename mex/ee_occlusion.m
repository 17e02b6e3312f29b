## -*- texinfo -*-
## @deftypefn  {} {@var{A} =} ee_occlusion (@var{f}, @var{X}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_occlusion (@var{f}, @var{X}, @dots{})
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
## @example
## A = ee_occlusion (@@(x) x(:,1) .* x(:,2), [2 3], 'baseline', [0 0])
## @result{} A = 6 6      # Shapley: 3 3
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

%!error id=ee:notSupported ee_occlusion (struct ('kind', 'mlp'), [1 2 3])
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
