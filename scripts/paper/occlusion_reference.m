## -*- texinfo -*-
## @deftypefn  {} {@var{T} =} occlusion_reference ()
## @deftypefnx {} {@var{T} =} occlusion_reference (@var{results})
## What the occlusion scores alone score on figure5's SV panels, without an
## explainer: the mean of each token's leave-one-out and add-one scores,
## and their least-squares mix fitted on the panel's valid rows, both
## against the s = 20 test targets, in the units of the figure (MSE per
## sequence over all T positions, mean over the test rows; multiple of the
## floor).  The references of doc/FIGURE5_LOG.md's occlusion table: how much
## of the explainer's accuracy the two scores give by themselves.
##
## @var{results} is figure5's results folder of the preset (default
## @file{results/default}); it must hold a finished run (figure5.mat and
## the cache).  The scores are computed with @code{ee_sv} and explicit
## permutations (for each token, one order that ends with it and one that
## starts with it), an implementation independent of the explainer's
## (libcore/attr/occlusion.c).
## @seealso{figure5, explainer_study}
## @end deftypefn
function T = occlusion_reference (results)
  root = fileparts (fileparts (fileparts (mfilename ('fullpath'))));   # the checkout: scripts/paper/ is two below it
  addpath (fullfile (root, 'mex'), fullfile (root, 'scripts'));   # the gateways and the toolbox
  if (nargin < 1) results = fullfile (root, 'results', 'default'); end
  f = fullfile (results, 'figure5.mat');
  if (! exist (f, 'file'))
    error ('ee:badInput', 'occlusion_reference: no figure5 run in %s', results);
  end
  R = load (f).R;
  T = struct ([]);
  for p = R.panels(:)'
    if (! strcmp (p.method, 'sv')) continue; end
    dir = fullfile (results, [p.dataset '_sv']);
    d = load (p.data);
    clf = load (fullfile (results, p.dataset, ['classifier_' p.keys.classifier '.mat'])).v.model;
    tt = load (fullfile (dir, ['targets_test_' p.keys.targets.test '.mat'])).v;
    tv = load (fullfile (dir, ['targets_valid_' p.keys.targets.valid '.mat'])).v;
    Xt = d.tokens(p.subsets.test, :); Xv = d.tokens(p.subsets.valid, :);
    [Lt, At] = scores (clf, Xt, tt.info.target);
    [Lv, Av] = scores (clf, Xv, tv.info.target);
    fl = mean (mean (tt.info.variance, 2) / p.S);
    mse = @(P) mean (mean ((P - tt.A) .^ 2, 2));
    w = double ([Lv(:) Av(:)]) \ double (tv.A(:));
    r = struct ('panel', p.name, 'mean_mse', mse ((Lt + At) / 2), 'fit_mse', mse (w(1) * Lt + w(2) * At), ...
                'weights', w', 'floor', fl);
    printf ('%s: (leave-one-out + add-one) / 2: MSE %.3g = %.2f x the floor %.3g; least squares (%.2f, %.2f) on the valid rows: %.3g = %.2f x\n', ...
            p.name, r.mean_mse, r.mean_mse / fl, fl, w, r.fit_mse, r.fit_mse / fl);
    T = [T r];
  end
end

## leave-one-out and add-one scores of every real token (N x T, 0 elsewhere)
## from one ee_sv call: for the k-th real token of a row, the cyclic order
## k+1, ..., n, 1, ..., k ends with it (its contribution is f(x) - f(x
## without it)) and starts with token k+1 (whose contribution is f(baseline
## with it) - f(baseline))
function [L, Ad] = scores (clf, X, target)
  [N, T] = size (X);
  real = ! ismember (X, int32 ([1 3 4]));
  n = sum (real, 2);
  src = repelem ((1:N)', n);
  perms = cell (1, numel (src));
  j = 0;
  for i = 1:N
    for k = 1:n(i)
      perms{++j} = [k+1:n(i), 1:k];
    end
  end
  A = ee_sv (clf, X(src, :), 'permutations', perms, 'target', target(src), 'verbose', false);
  L = zeros (N, T, 'single'); Ad = L; j = 0;
  for i = 1:N
    pos = find (real(i, :));
    for k = 1:n(i)
      j++;
      L(i, pos(k)) = A(j, pos(k));
      f = mod (k, n(i)) + 1;
      Ad(i, pos(f)) = A(j, pos(f));
    end
  end
end
