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
## Options: @code{'figure'} (default true), @code{'samples'} (permutations,
## default 20), @code{'n_train'} (6000), @code{'epochs'} (3).  Returns
## @var{r}: @code{rows} (the test images), @code{sv} (4 x 784),
## @code{players} (4 x 49), @code{ig} (4 x 784), @code{ig_patches}
## (4 x 49), @code{delta} (SV's efficiency per image), @code{ig_delta}
## (IG's completeness), @code{passes}, @code{accuracy} (on 2000 test
## images), @code{agreement} (the correlation over patches between the
## two maps, per image) and @code{files}.
## @seealso{ee_sv, ee_ig, shapley_formulas}
## @end deftypefn

function r = fashion_patches (outdir, varargin)
  here = fileparts (mfilename ('fullpath'));
  root = fileparts (fileparts (here));
  if (nargin < 1 || isempty (outdir))
    outdir = fullfile (root, 'figures', 'examples');
  end
  P = struct ('figure', true, 'samples', 20, 'n_train', 6000, 'epochs', 3);
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
  r.files = {};
  if (P.figure)
    r.files = draw_figure (outdir, X, r);
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
  files = ee_draw_figure (outdir, 'fashion_patches', 760, 600, @(fig) draw_maps (fig, X, r));
end

## per image: the image, its Shapley values and its IG per patch
function draw_maps (fig, X, r)
  ## blue (against) - white - red (for), as ee_heatmap
  t = linspace (0, 1, 64)';
  cmap = [[t; ones(64, 1)], [t; flipud(t)], [ones(64, 1); flipud(t)]];
  set (fig, 'colormap', cmap);
  titles = {'image', 'Shapley values, 4 x 4 patches', 'IG, summed per patch'};
  for k = 1:4
    ## patch values as images: a pixel carries its patch's value / 16 in
    ## A; patch p = 7 (row - 1) + col of the 7 x 7 grid
    maps = cell (1, 3);
    maps{1} = image_of (X(k, :));
    maps{2} = image_of (r.sv(k, :) * 16);
    maps{3} = kron (reshape (r.ig_patches(k, :), 7, 7)', ones (4, 4));
    for c = 1:3
      ax = axes ('position', [0.03 + (c - 1) * 0.33, 0.725 - (k - 1) * 0.235, 0.27, 0.2]);
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
