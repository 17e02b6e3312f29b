## -*- texinfo -*-
## @deftypefn  {} {@var{r} =} fashion_patches ()
## @deftypefnx {} {@var{r} =} fashion_patches (@var{outdir}, @dots{})
## Worked example: an image classifier wrapped in a function handle,
## explained with 4 x 4 pixel patches as the players.
##
## Trains a small mlp on Fashion-MNIST (@file{datasets/fashion.mat}; 6000
## training images, 3 epochs: a few seconds), wraps it in a handle that
## returns its logits, and computes for 4 test images the Shapley values
## of the predicted class's logit by sampling, the 49 patches of 16 pixels
## being the players (@code{'groups'}) and a blank image the baseline, next
## to the model's own Integrated Gradients per pixel (@code{ee_ig}).  The
## figure (@file{fashion_patches.png}, @file{.pdf} in @var{outdir}, default
## @file{figures/examples}) shows each image, its patch values (each
## pixel carries its patch's value / 16) and IG summed over each patch.
##
## Then its Empirical Explainer: an mlp (one hidden layer of 128) trained
## (@code{ee_train (@@f, X, 'sv', ...)}) on the patches' sampled Shapley
## values of @code{'n_explainer'} training images that the classifier did
## not see (default 1000, @code{'explainer_samples'} 1 permutation each:
## many cheap noisy targets rather than few good ones), that predicts the
## 49 patch values of an image in one pass.  On @code{'n_heldout'} test
## images (default 40) its squared error against reference values
## (@code{'reference_samples'} 50 permutations, another seed) is set
## beside that of SV sampling itself at 1, 2, 5, 10 and 20 permutations:
## the convergence point is the first number of permutations at which
## sampling is as close as the explainer.  The figure gets a fourth column
## with its maps.
##
## With @code{'figure5'}, true (default false; the whole example took 89 s
## with it on the shared 2-core machine at load 20),
## the explainer's curve in Figure 5's layout: @code{figure5 ('model',
## @dots{})} with the handle, the explainer and the held-out images, SV
## sampling at s = 1 .. 10 against its own s = 10 (the files in
## @var{outdir}/fashion_figure5, returned in @code{figure5_files}; the
## panel in @code{figure5}).
##
## Options: @code{'figure'} (default true), @code{'samples'} (permutations,
## default 20), @code{'n_train'} (6000), @code{'epochs'} (3), and those of
## the explainer above.  Returns
## @var{r}: @code{rows} (the test images), @code{sv} (4 x 784),
## @code{players} (4 x 49), @code{ig} (4 x 784), @code{ig_patches}
## (4 x 49), @code{delta} (SV's efficiency per image), @code{ig_delta}
## (IG's completeness), @code{passes}, @code{accuracy} (on 2000 test
## images), @code{agreement} (the correlation over patches between the
## two maps, per image), @code{files}, and of the explainer:
## @code{expl} (the model), @code{expl_sv} (4 x 784, the 4 images' maps
## spread as @code{sv}), @code{expl_players} (4 x 49), @code{expl_mse}
## (its mean squared error per patch on the held-out images),
## @code{sv_samples} and @code{sv_mse} (SV's at those counts),
## @code{crossing} (the first count whose error is at most the
## explainer's; Inf when none), @code{equivalent_samples} (the count at
## which sampling's error, falling as 1/s from its value at 1, equals the
## explainer's), @code{zero_mse} (the error of a map of zeros),
## @code{expl_seconds} (training, maps included) and
## @code{expl_apply_seconds} (the held-out images' maps).
## @seealso{ee_sv, ee_ig, shapley_formulas}
## @end deftypefn

function r = fashion_patches (outdir, varargin)
  here = fileparts (mfilename ('fullpath'));
  root = fileparts (fileparts (here));
  if (nargin < 1 || isempty (outdir))
    outdir = fullfile (root, 'figures', 'examples');
  end
  P = struct ('figure', true, 'samples', 20, 'n_train', 6000, 'epochs', 3, 'n_explainer', 1000, ...
              'explainer_samples', 1, 'n_heldout', 40, 'reference_samples', 50, 'figure5', false);
  for k = 1:2:numel (varargin)
    name = lower (varargin{k});
    if (! isfield (P, name))
      error ('ee:badInput', 'fashion_patches: unknown option ''%s''', varargin{k});
    end
    P.(name) = varargin{k + 1};
  end
  file = fullfile (root, 'datasets', 'fashion.mat');
  if (! exist (file, 'file'))
    error ('ee:ioError', 'fashion_patches: %s is missing (datasets/build.sh builds it)', file);
  end
  d = load (file);
  tr = d.split.train(1:P.n_train); te = d.split.test;
  m = ee_train (struct ('kind', 'mlp', 'hidden', 128), d.x(tr, :), d.labels(tr), 'epochs', P.epochs, ...
                'seed', 1, 'verbose', false);
  r.accuracy = mean (ee_predict (m, d.x(te(1:2000), :)) == d.labels(te(1:2000)));
  ## one image of each of 4 classes
  r.rows = zeros (1, 4); classes = [1 2 6 9];   # T-shirt, trouser, sandal, bag
  for k = 1:4
    r.rows(k) = te(find (d.labels(te) == classes(k), 1));
  end
  X = double (d.x(r.rows, :));
  ## the players: 4 x 4 patches, numbered row by row over the 7 x 7 grid;
  ## pixel (i, j) of an image is column 28 (j-1) + i of X (datasets/README.md:
  ## reshape (x, 28, 28) is the image upright)
  [j, i] = meshgrid (1:28, 1:28);
  patch = (ceil (i / 4) - 1) * 7 + ceil (j / 4);
  groups = reshape (patch, 1, []);
  f = @(x) logits (m, x);
  [r.sv, info] = ee_sv (f, X, 'groups', groups, 'samples', P.samples, 'verbose', false);
  r.players = info.players;
  r.delta = info.delta;
  r.passes = info.passes;
  [ig, iinfo] = ee_ig (m, single (X), 'verbose', false);
  r.ig = double (ig);
  r.ig_delta = iinfo.delta;
  r.ig_patches = zeros (4, 49);
  for p = 1:49
    r.ig_patches(:, p) = sum (r.ig(:, groups == p), 2);
  end
  r.agreement = zeros (4, 1);
  for k = 1:4
    c = corrcoef (r.players(k, :), r.ig_patches(k, :));
    r.agreement(k) = c(1, 2);
  end
  r.classes = d.classes(info.target);
  r = empirical_explainer (r, d, f, groups, X, P);
  r.files = {};
  if (P.figure)
    r.files = draw_figure (outdir, X, r);
  end
  if (P.figure5)
    ## the explainer's curve in Figure 5's layout (figure5's 'model' panel)
    ho = d.split.test(setdiff (1:numel (d.split.test), r.rows)(1:P.n_heldout));
    M = struct ('f', f, 'X', double (d.x(ho, :)), 'explainer', r.expl, 'S', 10, 'name', 'fashion_patches', ...
                'title', 'SV sampling, Fashion-MNIST mlp, 4 x 4 patches');
    ## figure5 belongs to the paper's reproduction (scripts/paper), beside
    ## the toolbox this example otherwise uses
    addpath (fullfile (fileparts (mfilename ('fullpath')), '..', 'paper'));
    F5 = figure5 ('model', M, 'figures', fullfile (outdir, 'fashion_figure5'), 'verbose', false);
    r.figure5 = F5.panels;
    r.figure5_files = F5.files;
  end
end

## The Empirical Explainer of the patches' Shapley values, and where SV
## sampling catches up with it on held-out test images.
function r = empirical_explainer (r, d, f, groups, X, P)
  ## training images after the classifier's own (none of its rows)
  tr = d.split.train(P.n_train + (1:P.n_explainer));
  t0 = tic;
  r.expl = ee_train (f, double (d.x(tr, :)), 'sv', 'groups', groups, ...
                     'options', {'samples', P.explainer_samples, 'verbose', false}, ...
                     'hidden', 128, 'epochs', 40, 'seed', 1, 'verbose', false);
  r.expl_seconds = toc (t0);
  [r.expl_sv, ei] = ee_explain (r.expl, X, 'model', f);   # the class f predicts, efficiency
  r.expl_players = ei.players;
  ## held-out test images (after the 4 shown), their reference values
  ho = d.split.test(setdiff (1:numel (d.split.test), r.rows)(1:P.n_heldout));
  Xh = double (d.x(ho, :));
  [~, ri] = ee_sv (f, Xh, 'groups', groups, 'samples', P.reference_samples, 'seed', 2, 'verbose', false);
  t0 = tic;
  [~, hi] = ee_explain (r.expl, Xh, 'model', f);
  r.expl_apply_seconds = toc (t0);
  r.expl_mse = mean ((hi.players(:) - ri.players(:)) .^ 2);
  r.zero_mse = mean (ri.players(:) .^ 2);
  r.sv_samples = [1 2 5 10 20];
  r.sv_mse = zeros (size (r.sv_samples));
  for k = 1:numel (r.sv_samples)
    [~, si] = ee_sv (f, Xh, 'groups', groups, 'samples', r.sv_samples(k), 'seed', 1, 'verbose', false);
    r.sv_mse(k) = mean ((si.players(:) - ri.players(:)) .^ 2);
  end
  r.equivalent_samples = r.sv_mse(1) / r.expl_mse;
  k = find (r.sv_mse <= r.expl_mse, 1);
  if (isempty (k))
    r.crossing = Inf;
  else
    r.crossing = r.sv_samples(k);
  end
end

function y = logits (m, x)
  [~, lg] = ee_predict (m, single (x));
  y = double (lg);
end

## the 28 x 28 image of a 1 x 784 row
function I = image_of (v)
  I = reshape (v, 28, 28);
end

function files = draw_figure (outdir, X, r)
  files = ee_draw_figure (outdir, 'fashion_patches', 1000, 600, @(fig) draw_maps (fig, X, r));
end

## per image: the image, its Shapley values and its IG per patch
function draw_maps (fig, X, r)
  ## blue (against) - white - red (for), as ee_heatmap
  t = linspace (0, 1, 64)';
  cmap = [[t; ones(64, 1)], [t; flipud(t)], [ones(64, 1); flipud(t)]];
  set (fig, 'colormap', cmap);
  titles = {'image', 'Shapley values, 4 x 4 patches', 'IG, summed per patch', ...
            sprintf('Empirical Explainer (one pass)')};
  for k = 1:4
    ## patch values as images: a pixel carries its patch's value / 16 in
    ## A; patch p = 7 (row - 1) + col of the 7 x 7 grid
    maps = cell (1, 4);
    maps{1} = image_of (X(k, :));
    maps{2} = image_of (r.sv(k, :) * 16);
    maps{3} = kron (reshape (r.ig_patches(k, :), 7, 7)', ones (4, 4));
    maps{4} = image_of (r.expl_sv(k, :) * 16);
    for c = 1:4
      ax = axes ('position', [0.02 + (c - 1) * 0.25, 0.725 - (k - 1) * 0.235, 0.21, 0.2]);
      if (c == 1)   # truecolor (the figure's colormap is the maps'): cloth dark on white
        image (ax, repmat (1 - maps{c}, [1 1 3]));
        ylabel (ax, r.classes{k}, 'fontsize', 9);
      else
        s = max (abs (maps{c}(:))) + eps;
        imagesc (ax, maps{c}, [-s s]);
      end
      axis (ax, 'image');
      set (ax, 'xtick', [], 'ytick', []);
      if (k == 1)
        title (ax, titles{c}, 'fontsize', 9);
      end
    end
  end
end
