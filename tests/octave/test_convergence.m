## test_convergence: ee_convergence (scripts/) on a tiny transformer trained
## here on a synthetic token task (a few seconds).
1;

%!shared clf, X, ex, A
%! rand ('seed', 3);
%! N = 80; T = 12; V = 24;
%! X = ones (N, T, 'int32');
%! for i = 1:N
%!   L = randi ([4 T-2]);
%!   X(i, 1) = 3; X(i, 2:L+1) = randi ([5 V], 1, L); X(i, L+2) = 4;
%! end
%! y = int32 (1 + (sum (X == 7 | X == 9, 2) > sum (X == 11 | X == 13, 2)));
%! clf = ee_train (struct ('kind', 'transformer', 'd', 16, 'heads', 2, 'layers', 1, 'ffn', 32), ...
%!                 X, y, 'epochs', 8, 'lr', 3e-3, 'verbose', false, 'vocab', V);
%! A = ee_ig (clf, X, 'steps', 10, 'verbose', false);
%! ex = ee_train (clf, X(1:60,:), A(1:60,:), 'epochs', 5, 'verbose', false);
%! X = X(61:end,:);

%!test
%! C = ee_convergence (clf, X, 'ig', 10, 'verbose', false, 'explainer', ex);
%! assert (C.s, 1:10);
%! assert (size (C.mse), [rows(X) 10]);
%! assert (all (C.mse(:) >= 0));
%! assert (all (C.mse(:, end) == 0));            # IG is deterministic
%! assert (C.curve(end), 0);
%! assert (mean (C.curve(1:5)) > mean (C.curve(6:10)));
%! assert (C.curve(1) > C.curve(9));
%! ## passes per explanation: s forward + s backward + 2 forwards (fx, fbaseline)
%! assert (C.passes, 2 * (1:10) + 2);
%! assert (size (C.target), size (X));
%! assert (C.target, ee_ig (clf, X, 'steps', 10, 'verbose', false));
%! assert (size (C.explainer_mse), [rows(X) 1]);
%! assert (C.explainer_curve, mean (C.explainer_mse), 1e-12);
%! ## the default explainer: a forward and a backward pass of the classifier
%! ## (its gradient inputs), its own forward pass, and a forward and a
%! ## backward pass at the baseline (its gradient there, and f(baseline) for
%! ## the efficiency projection) per distinct baseline (length) and class
%! [~, info] = ee_explain (ex, X);
%! nD = rows (unique ([sum(X != 1, 2), double(info.target)], 'rows'));
%! assert (C.explainer_passes, 3 + 2 * nD / rows (X), 1e-12);
%! assert (isnan (C.crossing) || C.curve(C.crossing) < C.explainer_curve);
%! assert (size (C.quartiles), [3 10]);

%!test
%! C = ee_convergence (clf, X, 'sv', 10, 'verbose', false, 'seed', 5);
%! assert (all (C.mse(:) >= 0));
%! assert (all (C.mse(:, end) == 0));            # the same seed reproduces the target
%! assert (mean (C.curve(1:5)) > mean (C.curve(6:10)));
%! assert (C.curve(1) > C.curve(9));
%! assert (C.target, ee_sv (clf, X, 'samples', 10, 'seed', 5, 'verbose', false));
%! ## 1 + s n_real forward passes (+ 1 for f(x)) per sequence
%! n = mean (sum (X != 1 & X != 3 & X != 4, 2));
%! assert (C.passes, 2 + (1:10) * n, 1e-9);
%! ## no explainer: no line, no crossing
%! assert (isnan (C.explainer_curve));
%! assert (isnan (C.crossing));

%!test
%! ## independent runs: s = 1..S-1 use a new seed each, so the curve at s = 1
%! ## differs from a run that shares the target's permutations
%! C = ee_convergence (clf, X(1:5,:), 'sv', 4, 'verbose', false, 'seed', 1);
%! a = ee_sv (clf, X(1:5,:), 'samples', 2, 'seed', 3, 'verbose', false);
%! assert (C.mse(:, 2), mean ((double (a) - double (C.target)) .^ 2, 2), 1e-12);

%!test
%! ## a given target is used as is; the Riemann rules start at s = 2
%! T0 = ee_ig (clf, X, 'steps', 6, 'method', 'riemann_middle', 'verbose', false);
%! C = ee_convergence (clf, X, 'ig', 6, 'method', 'riemann_middle', 'target', T0, 'verbose', false);
%! assert (isnan (C.curve(1)));
%! assert (all (C.mse(:, 6) == 0));
%! assert (all (C.mse(:, 2:5)(:) > 0));

%!test
%! ## checkpoint: a second call resumes (nothing recomputed) and agrees
%! f = [tempname() '.mat'];
%! unwind_protect
%!   C1 = ee_convergence (clf, X, 'sv', 5, 'verbose', false, 'checkpoint', f);
%!   assert (exist (f, 'file') == 2);
%!   t0 = tic ();
%!   C2 = ee_convergence (clf, X, 'sv', 5, 'verbose', false, 'checkpoint', f);
%!   assert (C2.mse, C1.mse);
%!   assert (C2.passes, C1.passes);
%!   assert (C2.target, C1.target);
%! unwind_protect_cleanup
%!   if (exist (f, 'file')) delete (f); end
%! end_unwind_protect

%!error <METHOD must be> ee_convergence (clf, X, 'shap', 5)
%!error <'gradxinput' is deterministic> ee_convergence (clf, X, 'gradxinput', 5)
%!error <unknown option> ee_convergence (clf, X, 'ig', 5, 'nosuch', 1)
%!error <S must be> ee_convergence (clf, X, 'ig', 0)
