## -*- texinfo -*-
## @deftypefn  {} {@var{R} =} xdnn_figures ()
## @deftypefnx {} {@var{R} =} xdnn_figures (@var{name}, @var{value}, @dots{})
## The X-DNN paper's evidence (../shared/papers/x-dnn.md, Table 2 and
## Fig. 2) on Fashion-MNIST (datasets/fashion.mat): a regular ReLU mlp
## and its bias-free twin (an X-DNN), trained alike, then
## @table @file
## @item figures/xdnn_table.csv
## one row per model (@code{bias}, @code{nobias}): test accuracy,
## @code{rel_distance} (mean over the test rows of ||A1 - IG|| / ||IG||, IG
## with the zero baseline and 128 Gauss-Legendre nodes, A1 Input x Gradient
## for the regular net and X-Gradient for the bias-free one), and the
## seconds IG and the one-gradient method took for those rows;
## @item figures/xdnn_contrast.png, .pdf
## test accuracy of both nets when every image is scaled by alpha, 1 down
## to 0.05;
## @item figures/xdnn_attributions.png, .pdf
## test images with IG and the one-gradient attribution of both nets, at
## contrast 1 and 0.3, each map divided by its largest magnitude.
## @item figures/xdnn_prior.csv, xdnn_prior.png, .pdf
## the attribution prior on a decoy task (scripts/paper/xdnn_prior.m, with the
## same @qcode{'hidden'}, @qcode{'batch'}, @qcode{'seed'}, folders);
## @qcode{'prior'}, false skips it.
## @end table
## The trained models and the IG maps are cached under
## @file{results/xdnn/} (keyed by the settings), so a second run only
## redraws; delete the folder to measure again.  doc/XDNN.md has the
## numbers of a run and the command.
##
## Options: @qcode{'epochs'} (10), @qcode{'hidden'} ([512 256]),
## @qcode{'batch'} (128), @qcode{'seed'} (1), @qcode{'steps'} (128),
## @qcode{'n_ig'} (the test rows for rel_distance and the timings: all
## 10000 by default; fewer for a quick look), @qcode{'data'}
## (datasets/fashion.mat), @qcode{'results'}, @qcode{'figures'},
## @qcode{'n_train'} (the first rows of the training split, all 54000 by
## default), @qcode{'prior'} (true), @qcode{'prior_epochs'} (5),
## @qcode{'verbose'} (true).
## @end deftypefn
function R = xdnn_figures (varargin)
  root = fileparts (fileparts (fileparts (mfilename ('fullpath'))));   # the checkout: scripts/paper/ is two below it
  addpath (fullfile (root, 'mex'), fullfile (root, 'scripts'));   # the gateways and the toolbox
  P = struct ('epochs', 10, 'hidden', [512 256], 'batch', 128, 'seed', 1, 'steps', 128, ...
              'n_ig', Inf, 'data', fullfile (root, 'datasets', 'fashion.mat'), ...
              'results', fullfile (root, 'results', 'xdnn'), ...
              'figures', fullfile (root, 'figures'), 'prior', true, 'prior_epochs', 5, 'n_train', Inf, 'verbose', true);
  P = ee_options (P, varargin, 'xdnn_figures');
  if (! exist (P.data, 'file'))
    error ('ee:badInput', 'xdnn_figures: %s not found: run datasets/build.sh --only fashion', P.data);
  end
  ## before minutes of computing: can this machine write the figures?
  ee_check_graphics ();
  ensure_dir (P.results);
  ensure_dir (P.figures);
  t_all = tic ();
  d = load (P.data);
  tr = d.split.train(1:min (P.n_train, end)); va = d.split.valid; te = d.split.test;
  n_ig = min (P.n_ig, numel (te));
  te_ig = te(1:n_ig);

  names = {'bias', 'nobias'};
  R = struct ('P', P, 'models', {cell(1, 2)}, 'accuracy', zeros (1, 2), 'rel_distance', zeros (1, 2), ...
              'ig_seconds', zeros (1, 2), 'xgrad_seconds', zeros (1, 2), 'train_seconds', zeros (1, 2));
  for k = 1:2
    bias = k == 1;
    key = sprintf ('mlp_%s_n%d_h%s_e%d_b%d_s%d', names{k}, numel (tr), strjoin (arrayfun (@num2str, P.hidden, 'uniformoutput', false), '-'), ...
                   P.epochs, P.batch, P.seed);
    mfile = fullfile (P.results, [key '.mat']);
    if (exist (mfile, 'file'))
      m = load (mfile).model;
      say (P, 'xdnn: %s model from %s\n', names{k}, mfile);
    else
      say (P, 'xdnn: training the %s mlp (%s)\n', names{k}, key);
      m = ee_train (struct ('kind', 'mlp', 'hidden', P.hidden, 'bias', bias), d.x(tr, :), d.labels(tr), ...
                    'epochs', P.epochs, 'batch', P.batch, 'seed', P.seed, 'classes', d.classes, ...
                    'validation', {d.x(va, :), d.labels(va)}, 'verbose', P.verbose);
      ee_atomic_save (mfile, struct ('model', m));
    end
    R.models{k} = m;
    R.train_seconds(k) = m.history.seconds;
    R.accuracy(k) = mean (ee_predict (m, d.x(te, :)) == d.labels(te));

    ## IG and the one-gradient method on the same rows, for the same target
    ## (the argmax); IG's maps and both timings are cached with the model's key
    igfile = fullfile (P.results, sprintf ('%s_ig%d_n%d.mat', key, P.steps, n_ig));
    if (exist (igfile, 'file'))
      c = load (igfile);
    else
      say (P, 'xdnn: IG (zero baseline, %d steps) on %d test rows, %s mlp\n', P.steps, n_ig, names{k});
      c = struct ();
      t0 = tic ();
      c.ig = ee_ig (m, d.x(te_ig, :), 'baseline', 'zero', 'steps', P.steps, 'verbose', P.verbose);
      c.ig_seconds = toc (t0);
      ee_atomic_save (igfile, c);
    end
    method = {'gradxinput', 'xgrad'}{k};
    t0 = tic ();
    a1 = ee_ig (m, d.x(te_ig, :), 'method', method);
    R.xgrad_seconds(k) = toc (t0);
    R.ig_seconds(k) = c.ig_seconds;
    ig = double (c.ig);
    R.rel_distance(k) = mean (sqrt (sum ((double (a1) - ig) .^ 2, 2)) ./ sqrt (sum (ig .^ 2, 2)));
    say (P, 'xdnn: %-6s accuracy %.4f  rel_distance %.3g  IG %.1f s  %s %.3f s\n', names{k}, ...
         R.accuracy(k), R.rel_distance(k), R.ig_seconds(k), method, R.xgrad_seconds(k));
  end

  csv = sprintf ('model,accuracy,rel_distance,ig_seconds,xgrad_seconds\n');
  for k = 1:2
    csv = [csv sprintf('%s,%.4f,%.4g,%.3f,%.4f\n', names{k}, R.accuracy(k), R.rel_distance(k), ...
                       R.ig_seconds(k), R.xgrad_seconds(k))];
  end
  R.files = {fullfile(P.figures, 'xdnn_table.csv')};
  ee_atomic_text (R.files{1}, csv);

  ## contrast: accuracy of both nets on the test images scaled by alpha
  R.alpha = [1 0.9 0.8 0.7 0.6 0.5 0.4 0.3 0.2 0.1 0.05];
  R.contrast_accuracy = zeros (2, numel (R.alpha));
  for k = 1:2
    for j = 1:numel (R.alpha)
      R.contrast_accuracy(k, j) = mean (ee_predict (R.models{k}, R.alpha(j) * d.x(te, :)) == d.labels(te));
    end
  end
  R.files = [R.files, xdnn_draw_contrast(P, R)];
  R.files = [R.files, xdnn_draw_attributions(P, R, d)];
  if (P.prior)
    R.prior = xdnn_prior ('hidden', P.hidden, 'batch', P.batch, 'seed', P.seed, 'data', P.data, ...
                          'epochs', P.prior_epochs, 'n_train', P.n_train, ...
                          'results', P.results, 'figures', P.figures, 'verbose', P.verbose);
    R.files = [R.files, R.prior.files];
  end
  R.seconds = toc (t_all);
  say (P, 'xdnn: done in %.0f s: %s\n', R.seconds, strjoin (R.files, ', '));
end


## Accuracy against alpha, both nets, log alpha axis (1 on the right).
function files = xdnn_draw_contrast (P, R)
  files = ee_draw_figure (P.figures, 'xdnn_contrast', 560, 400, @(fig) draw_contrast (R));
end

## the two accuracy curves of xdnn_draw_contrast
function draw_contrast (R)
  ax = axes ('position', [0.13 0.15 0.82 0.75]);
  hold (ax, 'on');
  semilogx (ax, R.alpha, 100 * R.contrast_accuracy(1, :), '-o', 'color', [0.85 0 0], 'linewidth', 1.5, 'markersize', 5);
  semilogx (ax, R.alpha, 100 * R.contrast_accuracy(2, :), '-s', 'color', [0 0.45 0.8], 'linewidth', 1.5, 'markersize', 5);
  set (ax, 'xscale', 'log', 'xlim', [0.04 1.1], 'ylim', [0 100], 'fontsize', 10, ...
       'xtick', [0.05 0.1 0.2 0.3 0.5 1], 'xticklabel', {'0.05', '0.1', '0.2', '0.3', '0.5', '1'});
  xlabel (ax, 'contrast \alpha (test images scaled by \alpha)', 'fontsize', 10);
  ylabel (ax, 'test accuracy (%)', 'fontsize', 10);
  title (ax, 'mlp on Fashion-MNIST: reduced contrast', 'fontsize', 10);
  legend (ax, {'regular (with bias)', 'X-DNN (bias-free)'}, 'location', 'southeast');
  grid (ax, 'on');
end

## Rows: test images (one per class shown) at contrast 1 and 0.3; columns:
## the image, IG and Input x Gradient of the regular net, IG and
## X-Gradient of the X-DNN. Each map is divided by its largest magnitude
## (the paper's normalisation: at contrast 0.3 the X-DNN's maps are the
## same up to that factor), so one colour scale, -1 .. 1, serves every
## column; the target is the class each net predicts at contrast 1.
function files = xdnn_draw_attributions (P, R, d)
  te = d.split.test;
  show = [1 2 9 10];                 # T-shirt/top, Trouser, Bag, Ankle boot
  rows_ = zeros (1, numel (show));
  for i = 1:numel (show)
    rows_(i) = te(find (d.labels(te) == show(i), 1));
  end
  alphas = [1 0.3];
  cols = {'image', 'IG, regular', 'Input x Grad, regular', 'IG, X-DNN', 'X-Gradient, X-DNN'};
  nr = numel (rows_) * numel (alphas); nc = numel (cols);
  maps = cell (nr, nc);
  for k = 1:2
    m = R.models{k};
    x1 = d.x(rows_, :);
    [~, lg] = ee_predict (m, x1);
    [~, tgt] = max (lg, [], 2);
    for a = 1:numel (alphas)
      x = alphas(a) * x1;
      ig = ee_ig (m, x, 'baseline', 'zero', 'steps', P.steps, 'target', tgt, 'verbose', false);
      g1 = ee_ig (m, x, 'method', {'gradxinput', 'xgrad'}{k}, 'target', tgt);
      for i = 1:numel (rows_)
        r = (i - 1) * numel (alphas) + a;
        maps{r, 1} = x(i, :);
        maps{r, 2 * k} = ig(i, :);
        maps{r, 2 * k + 1} = g1(i, :);
      end
    end
  end
  ## red-white-blue: positive red, negative blue
  n = 64; t = linspace (0, 1, n)';
  cmap = [[t; ones(n, 1)], [t; flipud(t)], [ones(n, 1); flipud(t)]];
  cw = 120; ch = 120; left = 150; top = 40; bottom = 70;
  W = left + nc * cw + 20; H = top + nr * ch + bottom;
  files = ee_draw_figure (P.figures, 'xdnn_attributions', W, H, ...
                          @(fig) draw_maps (fig, W, H, maps, cmap, n, cols, alphas, d, rows_, left, top, cw, ch));
end

## the grid of xdnn_draw_attributions: the maps, their row labels and the colour bar
function draw_maps (fig, W, H, maps, cmap, n, cols, alphas, d, rows_, left, top, cw, ch)
  [nr, nc] = size (maps);
  set (fig, 'colormap', cmap);
  for r = 1:nr
    for c = 1:nc
      ax = axes ('units', 'pixels', 'position', [left + (c - 1) * cw + 4, H - top - r * ch + 4, cw - 8, ch - 8]);
      v = reshape (double (maps{r, c}), 28, 28);
      if (c == 1)
        ## the input in grey (true colour, so the colour map stays the maps')
        image (ax, repmat (1 - min (v, 1), [1 1 3]));
      else
        s = max (abs (v(:)));
        if (s > 0) v = v / s; end
        imagesc (ax, v, [-1 1]);
      end
      axis (ax, 'image', 'off');
      if (r == 1)
        title (ax, cols{c}, 'fontsize', 8);
      end
    end
  end
  ## row labels on an overlay in pixel coordinates (text beside an axes
  ## that is switched off is not drawn where asked by gnuplot)
  lab = axes ('units', 'pixels', 'position', [0 0 W H], 'xlim', [0 W], 'ylim', [0 H], 'visible', 'off');
  for r = 1:nr
    i = ceil (r / numel (alphas)); a = alphas(mod (r - 1, numel (alphas)) + 1);
    text (lab, left - 6, H - top - (r - 0.5) * ch, sprintf ('%s, \\alpha = %g', d.classes{d.labels(rows_(i))}, a), ...
          'horizontalalignment', 'right', 'fontsize', 8);
  end
  cb = axes ('units', 'pixels', 'position', [left + cw, 25, (nc - 1) * cw - 20, 14]);
  imagesc (cb, linspace (-1, 1, 2 * n), [0 1], linspace (-1, 1, 2 * n), [-1 1]);
  set (cb, 'ytick', [], 'xtick', [-1 0 1], 'fontsize', 8);
  xlabel (cb, 'attribution / its largest magnitude in the map', 'fontsize', 8);
end

%!shared fashion
%! ## the end-to-end run needs the dataset (datasets/build.sh makes it in the
%! ## tree; an Octave package has none): a testif block on this flag, counted
%! ## as skipped, not passed, where it is missing
%! fashion = fullfile (fileparts (which ('xdnn_figures')), '..', '..', 'datasets', 'fashion.mat');
%! setenv ('EE_TEST_FASHION', sprintf ('%d', exist (fashion, 'file') == 2));
%! if (exist (fashion, 'file') != 2)
%!   printf ('SKIP xdnn_figures: the end-to-end run: no %s (datasets/build.sh)\n', fashion);
%! end

%!testif ; strcmp (getenv ('EE_TEST_FASHION'), '1')
%! ## a small run end to end (two mlps of 32 hidden units on 3000 images,
%! ## 2 epochs, 300 test rows for IG; the prior on 3000 images with
%! ## weights 0, 1, 10, 100): the X-DNN's X-Gradient is IG, the regular net's gradient x
%! ## input is not, the X-DNN's accuracy does not depend on the contrast,
%! ## and every file is written
%! out = tempname ();
%! unwind_protect
%!   R = xdnn_figures ('hidden', 32, 'epochs', 2, 'n_train', 3000, 'n_ig', 300, 'steps', 64, ...
%!                     'prior_epochs', 2, 'results', fullfile (out, 'r'), 'figures', fullfile (out, 'f'), ...
%!                     'verbose', false);
%!   assert (R.rel_distance(2) < 1e-4);
%!   assert (R.rel_distance(1) > 0.05);
%!   assert (all (R.contrast_accuracy(2, :) == R.contrast_accuracy(2, 1)));
%!   assert (R.contrast_accuracy(1, end) < R.contrast_accuracy(1, 1));
%!   for f = {'xdnn_table.csv', 'xdnn_contrast.png', 'xdnn_contrast.pdf', 'xdnn_attributions.png', ...
%!            'xdnn_attributions.pdf', 'xdnn_prior.csv', 'xdnn_prior.png', 'xdnn_prior.pdf'}
%!     assert (exist (fullfile (out, 'f', f{1}), 'file') == 2, f{1});
%!   end
%!   t = fileread (fullfile (out, 'f', 'xdnn_table.csv'));
%!   assert (strncmp (t, 'model,accuracy,rel_distance,ig_seconds,xgrad_seconds', 52));
%!   ## the prior moves attribution off the decoy
%!   assert (R.prior.decoy_share(end) < R.prior.decoy_share(1));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   if (exist (out, 'dir')) rmdir (out, 's'); end
%! end_unwind_protect

%!error id=ee:badInput xdnn_figures ('epochs')
%!error id=ee:badInput xdnn_figures ('nonsense', 1)
%!error id=ee:badInput xdnn_figures ('data', '/nonexistent/fashion.mat')
