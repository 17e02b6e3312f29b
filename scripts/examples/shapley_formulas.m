## -*- texinfo -*-
## @deftypefn  {} {@var{r} =} shapley_formulas ()
## @deftypefnx {} {@var{r} =} shapley_formulas (@var{outdir})
## @deftypefnx {} {@var{r} =} shapley_formulas (@var{outdir}, 'figure', @var{tf})
## Worked example: Shapley values of two models written as formulas, by
## @code{ee_sv} with a function handle, checked against their closed forms.
##
## @itemize
## @item a linear model f(x) = x w + 1: the Shapley value of column j is
## w_j (x_j - E b_j), the background's mean b, for every order of the
## players; exact enumeration and Shapley Value Sampling with 4
## permutations both give it to rounding;
## @item the same model with one interaction term, f(x) = x w + 2 x_1 x_2:
## the interaction's credit is split between x_1 and x_2 (half each of
## 2 (x_1 x_2 - E b_1 b_2) when the background is centred, in general
## the closed form of @code{doc/MODELS.md}), and exact enumeration equals
## that closed form;
## @item Shapley Value Sampling on a model with a three-way term: its
## mean squared error against the exact values falls as 1/s with the
## permutations s, as @code{mean (info.variance) / s} predicts.
## @end itemize
##
## The players are the 5 columns; absent columns take the values of a
## background set of 8 rows (interventional expectation). Takes about a
## second. Writes @file{shapley_formulas.png} and @file{.pdf} into
## @var{outdir} (default @file{figures/examples}) unless @code{'figure'} is
## false: (a) the exact values of one row for both models beside their
## closed forms, (b) the convergence of sampling. Returns @var{r} with the
## largest deviations from the closed forms (@code{linear_error},
## @code{interaction_error}), the convergence (@code{samples}, @code{mse},
## @code{predicted}) and @code{files}.
## @seealso{ee_sv}
## @end deftypefn

function r = shapley_formulas (varargin)
  [outdir, draw] = example_options ('shapley_formulas', varargin);
  ## data from fixed formulas (the global generators stay as they are)
  [X, bg] = formula_data (5);
  w = [1.5; -1; 0.5; 2; -0.5]; c = 2;
  m = mean (bg, 1); m12 = mean (bg(:,1) .* bg(:,2));
  opts = {'background', bg, 'verbose', false};

  ## the linear model: exact and 4 permutations against w .* (x - mean (bg))
  lin = @(x) x * w + 1;
  closed_lin = w' .* (X - m);
  A_lin = ee_sv (lin, X, opts{:}, 'exact', true);
  S_lin = ee_sv (lin, X, opts{:}, 'samples', 4);
  r.linear_error = max (abs ([A_lin(:) - closed_lin(:); S_lin(:) - closed_lin(:)]));

  ## one interaction term: the closed form of MODELS.md over the background
  int = @(x) x * w + c * x(:,1) .* x(:,2);
  closed_int = closed_lin;
  closed_int(:,1) += c / 2 * (X(:,1) * m(2) - m12 + X(:,1) .* X(:,2) - m(1) * X(:,2));
  closed_int(:,2) += c / 2 * (m(1) * X(:,2) - m12 + X(:,1) .* X(:,2) - X(:,1) * m(2));
  [A_int, info] = ee_sv (int, X, opts{:}, 'exact', true);
  r.interaction_error = max (abs (A_int(:) - closed_int(:)));
  r.efficiency_error = max (abs (sum (A_int, 2) - (info.fx - info.fbaseline)));

  ## sampling's convergence on a model with a three-way term
  f3 = @(x) x * w + c * x(:,1) .* x(:,2) + x(:,3) .* x(:,4) .* x(:,5);
  E = ee_sv (f3, X, opts{:}, 'exact', true);
  r.samples = [1 2 4 8 16 32 64];
  seeds = 1:5;
  r.mse = zeros (size (r.samples));
  for k = 1:numel (r.samples)
    for seed = seeds
      A = ee_sv (f3, X, opts{:}, 'samples', r.samples(k), 'seed', seed);
      r.mse(k) += mean ((A(:) - E(:)) .^ 2) / numel (seeds);
    end
  end
  ## the prediction: a one-permutation estimate's variance (measured with
  ## 200 permutations, another seed) over s
  [~, info] = ee_sv (f3, X, opts{:}, 'samples', 200, 'seed', 99);
  r.predicted = mean (info.variance(:)) ./ r.samples;

  r.files = {};
  if (draw)
    r.files = draw_figure (outdir, X(1,:), A_lin(1,:), closed_lin(1,:), A_int(1,:), closed_int(1,:), r);
  end
end

function files = draw_figure (outdir, x, a_lin, c_lin, a_int, c_int, r)
  warning ('off', 'Octave:negative-data-log-axis', 'local');   # the legend's own points
  files = ee_draw_figure (outdir, 'shapley_formulas', 900, 360, @(fig) draw_panels (x, a_lin, c_lin, a_int, c_int, r));
end

## (a) one row against the closed forms, (b) the convergence of sampling
function draw_panels (x, a_lin, c_lin, a_int, c_int, r)
  ax = axes ('position', [0.07 0.16 0.4 0.72]);
  hold (ax, 'on');
  j = 1:numel (x);
  h1 = bar (ax, j - 0.2, a_lin, 0.35, 'facecolor', [0.6 0.75 0.9], 'edgecolor', 'none');
  h2 = bar (ax, j + 0.2, a_int, 0.35, 'facecolor', [0.95 0.65 0.5], 'edgecolor', 'none');
  h3 = plot (ax, [j - 0.2, j + 0.2], [c_lin, c_int], 'k+', 'markersize', 7, 'linewidth', 1.2);
  plot (ax, [0.4 numel(x) + 0.6], [0 0], 'k-', 'linewidth', 0.5);
  set (ax, 'xtick', j, 'xticklabel', arrayfun (@(k) sprintf ('x_%d', k), j, 'uniformoutput', false), ...
       'xlim', [0.4 numel(x) + 0.6], 'fontsize', 10);
  ylabel (ax, 'Shapley value (exact)', 'fontsize', 10);
  title (ax, '(a) one row: x w + 1 and x w + 2 x_1 x_2', 'fontsize', 10);
  legend ([h1 h2 h3], {'linear', 'with interaction', 'closed form'}, 'location', 'northeast');
  ax2 = axes ('position', [0.58 0.16 0.38 0.72]);
  loglog (ax2, r.samples, r.mse, '-o', 'color', [0 0 0], 'linewidth', 1.5, 'markersize', 5);
  hold (ax2, 'on');
  loglog (ax2, r.samples, r.predicted, '--', 'color', [0 0.45 0.8], 'linewidth', 1.5);
  set (ax2, 'xtick', r.samples, 'xticklabel', arrayfun (@num2str, r.samples, 'uniformoutput', false), ...
       'xlim', [0.8 80], 'fontsize', 10);
  xlabel (ax2, 'permutations s', 'fontsize', 10);
  ylabel (ax2, 'mean squared error against exact', 'fontsize', 10);
  title (ax2, '(b) sampling x w + 2 x_1 x_2 + x_3 x_4 x_5', 'fontsize', 10);
  legend (ax2, {'Shapley Value Sampling', 'mean (info.variance) / s'}, 'location', 'northeast');
  grid (ax2, 'on');
end
