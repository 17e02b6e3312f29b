## test_figure5_methods: figure5 panels of methods other than IG and SV
## ('panels', METHOD_DATASET): the 'tiny' preset with a KernelSHAP panel on
## fortunes and a SmoothGrad panel on spam, each with its convergence curve
## in its own sample count (coalitions, noise samples), its floor from a
## second run at S, its explainer, the figure and the csv rows; and two
## deterministic panels (absolute saliency on spam, occlusion on fortunes:
## no curve, the exact maps as the target, the explainer's MSE and the
## speed ratio); the numbers recomputed here with the gateways from the
## cached classifiers and explainers.  (About 60 s on the shared 2-core
## machine.)
1;

%!test
%! res = tempname (); fig = tempname ();
%! unwind_protect
%!   R = figure5 ('tiny', 'panels', {'kernelshap_fortunes', 'smoothgrad_spam', 'saliency_abs_spam', ...
%!                'occlusion_fortunes'}, 'results', res, 'figures', fig, 'verbose', false);
%!   assert ({R.panels.name}, {'kernelshap_fortunes', 'smoothgrad_spam', 'saliency_abs_spam', 'occlusion_fortunes'});
%!   assert ({R.panels.method}, {'kernelshap', 'smoothgrad', 'saliency_abs', 'occlusion'});
%!   assert ([R.panels.exact], [false false true true]);
%!   ## the settings of the preset's panel on that dataset: SV's on fortunes
%!   ## (attention_top inputs; but the MSE on the method's maps, not SV's
%!   ## target-free loss), IG's on spam (tokens); the deterministic panels'
%!   ## explainers read the token ids only
%!   assert (arrayfun (@(p) p.settings.expl.inputs, R.panels, 'uniformoutput', false), ...
%!           {'attention_top', 'tokens', 'tokens', 'tokens'});
%!   assert (arrayfun (@(p) p.settings.expl.loss, R.panels, 'uniformoutput', false), ...
%!           {'mse', 'mse', 'mse', 'mse'});
%!   assert ({R.panels(3:4).explainer_inputs}, {'tokens', 'tokens'});
%!   S = R.panels(1).S;
%!   for k = 1:2
%!     p = R.panels(k); C = p.curve;
%!     assert (size (C.mse), [p.n.test S]);
%!     assert (C.mse(:, S), zeros (p.n.test, 1));          # s = S reproduces the target
%!     assert (C.floor > 0 && isfinite (C.explainer_curve));
%!     assert (all (isfinite (C.curve(2:S))));
%!     assert (C.passes(2:S-1) < C.passes(3:S));           # the cost grows with the samples
%!     ## the classifier the panel explained, from the cache
%!     z = load (fullfile (res, p.dataset, ['classifier_' p.keys.classifier '.mat']));
%!     clf = z.v.model;
%!     if (k == 1)
%!       ## KernelSHAP: s x K coalitions per row, K = T; the target at S with
%!       ## seed 1, s < S with seed 1 + s; the floor half the MSE of seed S + 2
%!       K = columns (p.X);
%!       assert (C.coalitions, K);
%!       run = @(s, seed) ee_sv (clf, p.X, 'method', 'kernelshap', 'samples', s * K, 'seed', seed, 'verbose', false);
%!     else
%!       ## SmoothGrad: s noise samples of the saliency, stdev 0.15
%!       run = @(s, seed) ee_gradient (clf, p.X, 'noise', 'smoothgrad', 'samples', s, 'stdev', 0.15, 'seed', seed, ...
%!                                     'verbose', false);
%!     end
%!     A = run (S, 1);
%!     assert (p.target, A);
%!     B = run (2, 3);
%!     assert (C.mse(:, 2), mean ((double (B) - double (A)) .^ 2, 2), 1e-12 * max (C.mse(:)));
%!     A2 = run (S, S + 2);
%!     assert (C.floor, mean (mean ((double (A2) - double (A)) .^ 2, 2)) / 2, 1e-12 * C.floor);
%!   end
%!   ## the csv rows of both panels and the summary
%!   fid = fopen (fullfile (fig, 'figure5.csv'), 'r'); fgetl (fid);
%!   c = textscan (fid, ['%s %s %s' repmat(' %f', 1, 19)], 'delimiter', ',');
%!   fclose (fid);
%!   assert (c{1}, [repmat({'kernelshap_fortunes'}, S, 1); repmat({'smoothgrad_spam'}, S, 1); ...
%!                  {'saliency_abs_spam'; 'occlusion_fortunes'}]);
%!   assert (c{3}, [repmat({'kernelshap'}, S, 1); repmat({'smoothgrad'}, S, 1); {'saliency_abs'; 'occlusion'}]);
%!   assert (c{6}(1:2*S), [R.panels(1).curve.curve'; R.panels(2).curve.curve'], -1e-5);
%!   assert (c{19}(1:2*S), [repmat(R.panels(1).curve.floor, S, 1); repmat(R.panels(2).curve.floor, S, 1)], -1e-5);
%!   ## a deterministic panel's one row: s = 1, its exact run (MSE 0, full
%!   ## agreement), its passes, floor 0; explainer_over_floor and crossing NaN
%!   d = 2 * S + (1:2);
%!   assert ([c{4}(d) c{6}(d) c{10}(d) c{19}(d)], [1 0 1 0; 1 0 1 0]);
%!   assert (c{5}(d), [R.panels(3).curve.passes; R.panels(4).curve.passes], -1e-9);
%!   assert (c{12}(d), [R.panels(3).curve.explainer_curve; R.panels(4).curve.explainer_curve], -1e-8);
%!   assert (isnan (c{20}(d)) & isnan (c{22}(d)));
%!   fid = fopen (fullfile (fig, 'figure5_summary.csv'), 'r'); fgetl (fid);
%!   z = textscan (fid, ['%s' repmat(' %f', 1, 13)], 'delimiter', ',');
%!   fclose (fid);
%!   assert (z{1}, {'kernelshap_fortunes'; 'smoothgrad_spam'; 'saliency_abs_spam'; 'occlusion_fortunes'});
%!   for k = 1:2
%!     C = R.panels(k).curve;
%!     cx = find (C.curve(1:S-1) <= C.explainer_curve, 1);
%!     assert (z{14}(k), double (isempty (cx)));
%!     if (isempty (cx)) cx = S; end
%!     assert (z{2}(k), cx);
%!     assert (z{4}(k) > 0 && z{5}(k) > 0);               # times measured, not NaN
%!     assert (z{7}(k), C.passes(cx) / C.explainer_passes, -1e-5);
%!   end
%!   ## the deterministic panels: the target is a fresh run of the method
%!   ## on the cached classifier (bit for bit), the explainer's MSE is
%!   ## recomputed from the cached explainer, and the summary row holds the
%!   ## speed ratio with the crossing NaN (not applicable), not a bound
%!   for k = 3:4
%!     p = R.panels(k); C = p.curve;
%!     z0 = load (fullfile (res, p.dataset, ['classifier_' p.keys.classifier '.mat']));
%!     clf = z0.v.model;
%!     if (k == 3)
%!       [A, info] = ee_gradient (clf, p.X, 'method', 'saliency_abs', 'verbose', false);
%!       assert (all (A(:) >= 0) && any (A(:) > 0));
%!     else
%!       [A, info] = ee_occlusion (clf, p.X, 'verbose', false);
%!     end
%!     assert (p.S, 1);
%!     assert (p.target, A);
%!     assert (C.passes, info.passes / rows (p.X), 1e-12);
%!     assert ([C.curve C.floor], [0 0]);
%!     assert (isnan (C.crossing));
%!     assert (C.target_mean_square, mean (mean (double (A) .^ 2, 2)), 1e-12 * C.target_mean_square);
%!     ze = load (fullfile (res, [p.dataset '_' p.method], ['explainer_' p.keys.explainer{1} '.mat']));
%!     E = ee_explain (ze.v.model, p.X);
%!     mse = mean (mean ((double (E) - double (A)) .^ 2, 2));
%!     assert (mse > 0);
%!     assert (C.explainer_curve, mse, 1e-6 * mse);
%!     assert (isnan (z{2}(k)) && z{14}(k) == 0);           # no crossing, not a bound
%!     assert (z{11}(k), 0);
%!     assert (z{10}(k), mse, -1e-5);
%!     assert (z{4}(k) > 0 && z{5}(k) > 0);
%!     assert (z{6}(k), z{5}(k) / z{4}(k), -1e-5);          # method seconds / explainer seconds
%!     assert (z{7}(k), C.passes / C.explainer_passes, -1e-5);
%!     assert (isnan (R.summary(k).crossing) && ! R.summary(k).lower_bound);
%!   end
%!   img = imread (fullfile (fig, 'figure5.png'));
%!   assert (size (img, 3) == 3 && numel (unique (img(:))) > 10);
%!   assert (exist (fullfile (fig, 'figure5_cost.png'), 'file') == 2);
%!   assert (exist (fullfile (fig, 'heatmaps_smoothgrad_spam.html'), 'file') == 2);
%!   assert (exist (fullfile (fig, 'heatmaps_occlusion_fortunes.html'), 'file') == 2);
%!   rt = fileread (fullfile (fig, 'runtime_tiny.txt'));
%!   assert (! isempty (strfind (rt, 'Occlusion is deterministic (one run is exact)')));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   if (exist (res, 'dir')) rmdir (res, 's'); end
%!   if (exist (fig, 'dir')) rmdir (fig, 's'); end
%! end_unwind_protect

%!test
%! ## a function handle's LIME panel ('model', method 'lime'): the target is
%! ## ee_lime at S x K coalitions, seed 1; the floor half the MSE of seed S + 2
%! randn ('seed', 3);
%! w = [1 -2 0.5 3]; f = @(x) x * w' + x(:, 1) .* x(:, 2);
%! X = randn (20, 4); b = zeros (1, 4); d = tempname ();
%! unwind_protect
%!   R = figure5 ('model', struct ('f', f, 'X', X, 'method', 'lime', 'S', 4, 'coalitions', 8, ...
%!                                 'options', {{'baseline', b}}), 'figures', d, 'verbose', false);
%!   C = R.panels.curve;
%!   A = ee_lime (f, X, 'samples', 32, 'seed', 1, 'baseline', b, 'verbose', false);
%!   assert (C.target, A);
%!   A2 = ee_lime (f, X, 'samples', 32, 'seed', 6, 'baseline', b, 'verbose', false);
%!   assert (C.floor, mean (mean ((A2 - A) .^ 2, 2)) / 2, 1e-12);
%!   B = ee_lime (f, X, 'samples', 24, 'seed', 4, 'baseline', b, 'verbose', false);
%!   assert (C.mse(:, 3), mean ((B - A) .^ 2, 2), 1e-12);
%!   assert (R.panels.title, 'LIME (s x 8 coalitions) of model');
%!   assert (exist (fullfile (d, 'figure5.png'), 'file') == 2);
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   if (exist (d, 'dir')) rmdir (d, 's'); end
%! end_unwind_protect
