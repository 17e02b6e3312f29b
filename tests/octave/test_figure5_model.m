## test_figure5_model: figure5 ('model', ...) draws a Figure 5 panel for a
## model given as a function handle with its feature explainer (a 6-column
## function with an interaction, 3 players; 72 s on the shared 2-core
## machine at load 20, the figure's three files included).
1;

%!function [y, g] = sine (x)
%!  ## a function that returns its gradient as its second output
%!  y = sum (sin (2 * x), 2);
%!  g = 2 * cos (2 * x);
%!endfunction

%!shared f, g, X, Xt, e
%! randn ('seed', 11);
%! w = [1 -2 0.5 3 1 -1];
%! f = @(x) x * w' + 2 * x(:, 1) .* x(:, 4);   # players 1 and 2 interact
%! g = [1 1 2 2 3 3];
%! X = randn (200, 6); Xt = randn (150, 6);
%! e = ee_train (f, X, 'exact', 'groups', g, 'hidden', [16], 'epochs', 80, 'lr', 1e-2, ...
%!               'seed', 1, 'verbose', false);

%!test
%! d = tempname ();
%! unwind_protect
%!   S = 8;
%!   R = figure5 ('model', struct ('f', f, 'X', Xt, 'explainer', e, 'S', S, 'name', 'interaction'), ...
%!                'figures', d, 'verbose', false);
%!   p = R.panels; C = p.curve;
%!   assert (p.name, 'interaction');
%!   assert (size (C.mse), [150 S]);
%!   ## the target is ee_sv at s = S with the explainer's players, seed 1
%!   A = ee_sv (f, Xt, 'groups', g, 'samples', S, 'seed', 1, 'verbose', false);
%!   assert (C.target, A);
%!   assert (C.mse(:, S), zeros (150, 1));
%!   assert (C.curve(1) > 2 * C.curve(S - 1));          # the curve falls with s
%!   ## the explainer's line: its own MSE against that target
%!   E = ee_explain (e, Xt, 'model', f);             # the class f predicts, efficiency
%!   assert (C.explainer_curve, mean (mean ((E - A) .^ 2, 2)), 1e-12);
%!   assert (C.explainer_passes, 2);
%!   ## the floor estimates the MSE of the exact values against the target
%!   Ex = ee_sv (f, Xt, 'groups', g, 'method', 'exact', 'verbose', false);
%!   actual = mean ((Ex(:) - A(:)) .^ 2);
%!   assert (C.floor > 0.7 * actual && C.floor < 1.4 * actual, ...
%!           'floor %g against the exact values'' MSE %g', C.floor, actual);
%!   if (ee_check_graphics ())
%!     assert (numel (R.files), 3);
%!     assert (R.files{1}, fullfile (d, 'figure5.png'));
%!     info = imfinfo (R.files{1});
%!     ## one 640 x 560 panel at 300 dpi (ghostscript may round off a few pixels)
%!     assert (abs ([info.Width info.Height] - [1920 1680]) <= 6, 'figure5.png is %dx%d', info.Width, info.Height);
%!     for k = 2:3
%!       assert (dir (R.files{k}).bytes > 1000);
%!     end
%!   end
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   if (exist (d, 'dir')) rmdir (d, 's'); end
%! end_unwind_protect

%!test
%! ## IG of a function that returns its gradient: the floor is IG at 2 S against S
%! d = tempname ();
%! unwind_protect
%!   h = @sine;
%!   R = figure5 ('model', struct ('f', h, 'X', Xt(1:20, :), 'method', 'ig', 'S', 6, 'name', 'sine', ...
%!                'title', 'IG of a sine', 'notes', {{'one line'}}), 'figures', d, 'verbose', false);
%!   C = R.panels.curve;
%!   assert (R.panels.title, 'IG of a sine');
%!   assert (R.panels.notes, {'one line'});
%!   A6 = ee_ig (h, Xt(1:20, :), 'steps', 6, 'verbose', false);
%!   A12 = ee_ig (h, Xt(1:20, :), 'steps', 12, 'verbose', false);
%!   assert (C.floor, mean (mean ((A12 - A6) .^ 2, 2)), 1e-15);
%!   assert (isnan (C.explainer_curve));                 # no explainer, no line
%!   assert (C.mse(:, 6), zeros (20, 1));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   if (exist (d, 'dir')) rmdir (d, 's'); end
%! end_unwind_protect

%!test
%! ## a KernelSHAP panel: the convergence in its own coalition count (s x K
%! ## coalitions per row), the line of an explainer of KernelSHAP maps
%! ## (ee_train (@f, X, 'kernelshap')), the floor from a second run
%! d = tempname ();
%! unwind_protect
%!   ek = ee_train (f, X, 'kernelshap', 'options', {'samples', 24}, 'hidden', [16], 'epochs', 80, 'lr', 1e-2, ...
%!                  'seed', 1, 'verbose', false);
%!   S = 5; K = 6; Xs = Xt(1:40, :);
%!   R = figure5 ('model', struct ('f', f, 'X', Xs, 'explainer', ek, 'method', 'kernelshap', 'S', S, ...
%!                'coalitions', K, 'name', 'ks'), 'figures', d, 'verbose', false);
%!   p = R.panels; C = p.curve;
%!   assert (p.method, 'kernelshap');
%!   assert (C.coalitions, K);
%!   assert (! isempty (strfind (p.title, 'KernelSHAP')));
%!   ## the target: KernelSHAP with S K coalitions, seed 1, the 6 columns as players
%!   A = ee_sv (f, Xs, 'method', 'kernelshap', 'samples', S * K, 'seed', 1, 'verbose', false);
%!   assert (C.target, A);
%!   assert (C.mse(:, S), zeros (40, 1));
%!   ## s = 1: 6 coalitions (with repeats) leave 5 unknowns undetermined: no value
%!   assert (isnan (C.curve(1)) && all (isfinite (C.curve(2:S))));
%!   assert (C.passes(2:S), 2 + (2:S) * K);
%!   assert (C.curve(2) > 2 * C.curve(S - 1));          # the curve falls with s
%!   B = ee_sv (f, Xs, 'method', 'kernelshap', 'samples', 2 * K, 'seed', 3, 'verbose', false);
%!   assert (C.mse(:, 2), mean ((B - A) .^ 2, 2), 1e-12);
%!   ## the floor: half the MSE of a second run at s = S; it estimates the
%!   ## MSE of the exact Shapley values against the target
%!   B = ee_sv (f, Xs, 'method', 'kernelshap', 'samples', S * K, 'seed', 1 + S + 1, 'verbose', false);
%!   assert (C.floor, mean (mean ((B - A) .^ 2, 2)) / 2, 1e-12);
%!   Ex = ee_sv (f, Xs, 'exact', true, 'verbose', false);
%!   actual = mean ((Ex(:) - A(:)) .^ 2);
%!   assert (C.floor > 0.5 * actual && C.floor < 2 * actual, 'floor %g against the exact values'' MSE %g', C.floor, actual);
%!   E = ee_explain (ek, Xs, 'model', f);
%!   assert (C.explainer_curve, mean (mean ((E - A) .^ 2, 2)), 1e-12);
%!   if (ee_check_graphics ())
%!     assert (numel (R.files), 3);
%!   end
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   if (exist (d, 'dir')) rmdir (d, 's'); end
%! end_unwind_protect

%!error <'model'.method must be 'sv', 'ig', 'kernelshap' or 'lime'> figure5 ('model', struct ('f', @(x) x, 'X', 1, 'method', 'shap'), 'figures', tempname ())
%!error <'model'.coalitions> figure5 ('model', struct ('f', @(x) x, 'X', 1, 'method', 'kernelshap', 'coalitions', 0), 'figures', tempname ())
%!error <'model' has no field 'nosuch'> figure5 ('model', struct ('f', @(x) x, 'X', 1, 'nosuch', 1), 'figures', tempname ())
%!error <'model'.X must be> figure5 ('model', struct ('f', @(x) x), 'figures', tempname ())
%!error <excludes 'data_ig'> figure5 ('model', struct ('f', @(x) x, 'X', 1), 'panels', 'ig')
%!error <'model'.method must be> figure5 ('model', struct ('f', @(x) x, 'X', 1, 'method', 'saliency'), 'figures', tempname ())
%!error <'model'.S must be> figure5 ('model', struct ('f', @(x) x, 'X', 1, 'S', 1.5), 'figures', tempname ())
