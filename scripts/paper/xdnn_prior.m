## -*- texinfo -*-
## @deftypefn  {} {@var{R} =} xdnn_prior ()
## @deftypefnx {} {@var{R} =} xdnn_prior (@var{name}, @var{value}, @dots{})
## Training with an attribution prior (X-DNN paper, Sec. 4.3) on a decoy
## task built from Fashion-MNIST: a 4 x 4 patch in the top-left corner
## (background in every class) whose brightness encodes the label in the
## training images, 0.1 + 0.1 (label - 1), and is drawn at random in the
## test images.  A bias-free mlp learns the shortcut; the prior
## @code{struct ('mask', M, 'weight', lambda)} with M = 1 on the patch
## penalises the X-Gradient there (ee_train's @qcode{'prior'}).  For each
## lambda in @qcode{'weights'}: test accuracy (decoy at random), the share
## of attribution mass on the patch (mean over the test rows of
## sum(|A| on the patch) / sum(|A|), A the X-Gradient of the label's
## logit) and the seconds per epoch, written to
## @file{figures/xdnn_prior.csv} and drawn in
## @file{figures/xdnn_prior.png}, @file{.pdf}.  Models are cached under
## @file{results/xdnn/}.
##
## Options: @qcode{'weights'} ([0 1 10 100]), @qcode{'epochs'} (5),
## @qcode{'hidden'} ([512 256]), @qcode{'batch'} (128), @qcode{'seed'} (1),
## @qcode{'n_train'} (all 54000 training rows), @qcode{'data'},
## @qcode{'results'}, @qcode{'figures'}, @qcode{'verbose'} (true).
## @end deftypefn
function R = xdnn_prior (varargin)
  root = fileparts (fileparts (fileparts (mfilename ('fullpath'))));   # the checkout: scripts/paper/ is two below it
  addpath (fullfile (root, 'mex'), fullfile (root, 'scripts'));   # the gateways and the toolbox
  P = struct ('weights', [0 1 10 100], 'epochs', 5, 'hidden', [512 256], 'batch', 128, 'seed', 1, ...
              'n_train', Inf, 'data', fullfile (root, 'datasets', 'fashion.mat'), ...
              'results', fullfile (root, 'results', 'xdnn'), ...
              'figures', fullfile (root, 'figures'), 'verbose', true);
  P = ee_options (P, varargin, 'xdnn_prior');
  if (! isnumeric (P.weights) || isempty (P.weights) || any (! isfinite (P.weights) | P.weights < 0))
    error ('ee:badInput', 'xdnn_prior: ''weights'' must be finite values >= 0');
  end
  if (! exist (P.data, 'file'))
    error ('ee:badInput', 'xdnn_prior: %s not found: run datasets/build.sh --only fashion', P.data);
  end
  ee_check_graphics ();
  ensure_dir (P.results);
  ensure_dir (P.figures);
  d = load (P.data);
  tr = d.split.train(1:min (P.n_train, end)); te = d.split.test;
  [Xtr, patch] = decoy (d.x(tr, :), d.labels(tr), false);
  Xte = decoy (d.x(te, :), d.labels(te), true);
  M = zeros (28, 28);
  M(patch) = 1;
  key0 = sprintf ('decoy_h%s_e%d_b%d_s%d_n%d', strjoin (arrayfun (@num2str, P.hidden, 'uniformoutput', false), '-'), ...
                  P.epochs, P.batch, P.seed, numel (tr));
  nw = numel (P.weights);
  R = struct ('P', P, 'weights', P.weights, 'accuracy', zeros (1, nw), 'decoy_share', zeros (1, nw), ...
              'train_accuracy', zeros (1, nw), 'seconds_per_epoch', zeros (1, nw), 'models', {cell(1, nw)});
  spec = struct ('kind', 'mlp', 'hidden', P.hidden, 'bias', false);
  for k = 1:nw
    lambda = P.weights(k);
    mfile = fullfile (P.results, sprintf ('%s_w%g.mat', key0, lambda));
    if (exist (mfile, 'file'))
      m = load (mfile).model;
    else
      say (P, 'xdnn_prior: training with prior weight %g\n', lambda);
      opts = {'epochs', P.epochs, 'batch', P.batch, 'seed', P.seed, 'classes', d.classes, 'verbose', P.verbose};
      ## weight 0 is plain training (no prior computed): the cost reference
      if (lambda > 0)
        opts = [opts, {'prior', struct('mask', M, 'weight', lambda)}];
      end
      m = ee_train (spec, Xtr, d.labels(tr), opts{:});
      ee_atomic_save (mfile, struct ('model', m));
    end
    R.models{k} = m;
    R.seconds_per_epoch(k) = m.history.seconds / m.history.epochs_run;
    R.accuracy(k) = mean (ee_predict (m, Xte) == d.labels(te));
    R.train_accuracy(k) = mean (ee_predict (m, Xtr(1:min (10000, end), :)) == d.labels(tr(1:min (10000, end))));
    A = abs (double (ee_ig (m, Xte, 'method', 'xgrad', 'target', d.labels(te))));
    R.decoy_share(k) = mean (sum (A(:, patch), 2) ./ max (sum (A, 2), realmin));
    say (P, 'xdnn_prior: weight %-6g test accuracy %.4f (train, decoy intact: %.4f)  decoy share %.4f  %.1f s/epoch\n', ...
         lambda, R.accuracy(k), R.train_accuracy(k), R.decoy_share(k), R.seconds_per_epoch(k));
  end
  csv = sprintf ('weight,test_accuracy,train_accuracy,decoy_share,seconds_per_epoch\n');
  for k = 1:nw
    csv = [csv sprintf('%g,%.4f,%.4f,%.4f,%.2f\n', R.weights(k), R.accuracy(k), R.train_accuracy(k), ...
                       R.decoy_share(k), R.seconds_per_epoch(k))];
  end
  R.files = {fullfile(P.figures, 'xdnn_prior.csv')};
  ee_atomic_text (R.files{1}, csv);
  R.files = [R.files, draw_prior(P, R, d, Xte, te)];
end

## The decoy: pixels of the 4 x 4 top-left patch set to 0.1 + 0.1 (label - 1)
## (at random for the test rows: the same levels, drawn with a fixed seed).
function [X, patch] = decoy (X, labels, random)
  [r, c] = ndgrid (1:4, 1:4);
  patch = sub2ind ([28 28], r(:), c(:))';
  if (random)
    ## a Lehmer generator of our own: the same levels on every Octave version
    s = mod (16807 * (1:rows (X))', 2^31 - 1);
    labels = 1 + mod (s, 10);
  end
  X(:, patch) = repmat (single (0.1 + 0.1 * (double (labels(:)) - 1)), 1, numel (patch));
end

## Left: test accuracy and decoy share against the prior weight; right:
## the mean |X-Gradient| over the test rows of the plain and the most
## strongly regularised net.
function files = draw_prior (P, R, d, Xte, te)
  files = ee_draw_figure (P.figures, 'xdnn_prior', 900, 340, @(fig) draw_panels (fig, R, d, Xte, te));
end

## the two panels of draw_prior
function draw_panels (fig, R, d, Xte, te)
  ax = axes ('units', 'pixels', 'position', [70 60 360 240]);
  hold (ax, 'on');
  x = 1:numel (R.weights);
  plot (ax, x, 100 * R.accuracy, '-o', 'color', [0 0.45 0.8], 'linewidth', 1.5, 'markersize', 5);
  plot (ax, x, 100 * R.decoy_share, '-s', 'color', [0.85 0 0], 'linewidth', 1.5, 'markersize', 5);
  set (ax, 'xtick', x, 'xticklabel', arrayfun (@num2str, R.weights, 'uniformoutput', false), ...
       'xlim', [0.7 numel(x) + 0.3], 'ylim', [0 100], 'fontsize', 9);
  xlabel (ax, 'prior weight \lambda', 'fontsize', 9);
  ylabel (ax, '%', 'fontsize', 9);
  legend (ax, {'test accuracy (decoy random)', 'attribution share on the decoy'}, 'location', 'east');
  title (ax, 'decoy patch: accuracy and attribution share', 'fontsize', 10);
  grid (ax, 'on');
  n = 64; t = linspace (0, 1, n)';
  set (fig, 'colormap', [ones(n, 1), flipud(t), flipud(t)]);   # white to red
  pick = [1, numel(R.weights)];
  for j = 1:2
    m = R.models{pick(j)};
    A = abs (double (ee_ig (m, Xte, 'method', 'xgrad', 'target', d.labels(te))));
    v = reshape (mean (A ./ max (sum (A, 2), realmin), 1), 28, 28);
    ax2 = axes ('units', 'pixels', 'position', [480 + (j - 1) * 210, 60, 190, 190]);
    imagesc (ax2, v, [0 max(v(:))]);
    axis (ax2, 'image', 'off');
    title (ax2, sprintf ('mean |X-Gradient|, \\lambda = %g', R.weights(pick(j))), 'fontsize', 9);
  end
end

%!error id=ee:badInput xdnn_prior ('epochs')
%!error id=ee:badInput xdnn_prior ('nonsense', 1)
%!error id=ee:badInput xdnn_prior ('weights', [-1 0])
