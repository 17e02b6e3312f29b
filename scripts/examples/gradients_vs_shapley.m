## -*- texinfo -*-
## @deftypefn  {} {@var{r} =} gradients_vs_shapley ()
## @deftypefnx {} {@var{r} =} gradients_vs_shapley (@var{outdir})
## @deftypefnx {} {@var{r} =} gradients_vs_shapley (@var{outdir}, 'figure', @var{tf})
## Worked example: where Integrated Gradients and Shapley values part, on
## two models written as formulas, explained by @code{ee_ig} and
## @code{ee_sv} with function handles (baseline 0, the row x = [2 3] and
## x = [1 1]).
##
## @itemize
## @item f(x) = x_1^2 x_2 at x = [2 3]: both methods hand out
## f(x) - f(0) = 12, IG as 8 and 4 (along the straight path x_1 carries
## the square: its gradient 2 x_1 x_2 grows as a^2, x_2's x_1^2 as a^2
## too, in the ratio 2 : 1), the Shapley values as 6 and 6 (either player
## alone gives 0, so the product is split equally);
## @item a step, f(x) = 2 [x_1 > 0.5] + x_2 at x = [1 1]: the gradient of
## the step is 0 wherever it exists, so IG with f's own gradient gives
## x_1 nothing and completeness fails by 2 (@code{info.delta}); with
## central differences IG gives 0 when no node lies within the step h of
## the jump (20 Gauss-Legendre nodes) and about 730 when one does (21
## nodes: the middle one sits on it): a gradient method cannot see a jump.
## The Shapley values (exact, or sampled) give x_1 its 2.
## @end itemize
##
## Writes @file{gradients_vs_shapley.png} and @file{.pdf} into
## @var{outdir} (default @file{figures/examples}) unless @code{'figure'}
## is false, and returns @var{r} with every number above (@code{ig},
## @code{sv}, @code{step_ig}, @code{step_ig_delta}, @code{step_fd20},
## @code{step_fd21}, @code{step_sv}, @code{step_sv_sampled}) and
## @code{files}. Takes about a second.
## @seealso{ee_ig, ee_sv, shapley_formulas}
## @end deftypefn

function r = gradients_vs_shapley (varargin)
  [outdir, draw] = example_options ('gradients_vs_shapley', varargin);
  q = {'verbose', false};
  ## the product: its gradient is given, so no differences are needed
  r.ig = ee_ig (@square_times, [2 3], q{:});
  r.sv = ee_sv (@square_times, [2 3], 'exact', true, q{:});
  ## the step: f's own gradient, differences with and without a node on it
  [r.step_ig, info] = ee_ig (@step_fn, [1 1], q{:});
  r.step_ig_delta = info.delta;
  r.step_fd20 = ee_ig (@step_fn, [1 1], 'gradient', 'fd', q{:});
  r.step_fd21 = ee_ig (@step_fn, [1 1], 'gradient', 'fd', 'steps', 21, q{:});
  r.step_sv = ee_sv (@step_fn, [1 1], 'exact', true, q{:});
  r.step_sv_sampled = ee_sv (@step_fn, [1 1], 'samples', 5, q{:});
  r.files = {};
  if (draw)
    r.files = draw_figure (outdir, r);
  end
end

## x1^2 x2 and its gradient
function [y, g] = square_times (x)
  y = x(:,1) .^ 2 .* x(:,2);
  g = [2 * x(:,1) .* x(:,2), x(:,1) .^ 2];
end

## 2 [x1 > 0.5] + x2 and its gradient where it exists (0 for the step)
function [y, g] = step_fn (x)
  y = 2 * (x(:,1) > 0.5) + x(:,2);
  g = [zeros(rows (x), 1), ones(rows (x), 1)];
end

function files = draw_figure (outdir, r)
  files = ee_draw_figure (outdir, 'gradients_vs_shapley', 900, 360, @(fig) draw_bars (r));
end

## (a) the product, (b) the step: IG beside the Shapley values
function draw_bars (r)
  blue = [0.6 0.75 0.9]; orange = [0.95 0.65 0.5]; grey = [0.7 0.7 0.7];
  ax = axes ('position', [0.07 0.16 0.38 0.72]);
  hold (ax, 'on');
  h1 = bar (ax, [1 2] - 0.2, r.ig, 0.35, 'facecolor', blue, 'edgecolor', 'none');
  h2 = bar (ax, [1 2] + 0.2, r.sv, 0.35, 'facecolor', orange, 'edgecolor', 'none');
  set (ax, 'xtick', [1 2], 'xticklabel', {'x_1', 'x_2'}, 'xlim', [0.4 2.6], 'ylim', [0 11], 'fontsize', 10);
  ylabel (ax, 'attribution (baseline 0)', 'fontsize', 10);
  title (ax, '(a) f = x_1^2 x_2 at x = (2, 3): f(x) - f(0) = 12', 'fontsize', 10);
  legend ([h1 h2], {'Integrated Gradients', 'Shapley values'}, 'location', 'northeast');
  ax2 = axes ('position', [0.56 0.16 0.4 0.72]);
  hold (ax2, 'on');
  vals = [r.step_ig; r.step_fd20; r.step_sv];
  cols = {blue, grey, orange};
  for k = 1:3
    hb(k) = bar (ax2, [1 2] + (k - 2) * 0.27, vals(k, :), 0.25, 'facecolor', cols{k}, 'edgecolor', 'none');
  end
  set (ax2, 'xtick', [1 2], 'xticklabel', {'x_1', 'x_2'}, 'xlim', [0.4 2.6], 'ylim', [0 3.6], 'fontsize', 10);
  title (ax2, '(b) f = 2 [x_1 > 0.5] + x_2 at x = (1, 1): f(x) - f(0) = 3', 'fontsize', 10);
  legend (hb, {'IG, f''s gradient', 'IG, differences (20 nodes)', 'Shapley values'}, 'location', 'northeast');
  xlabel (ax2, sprintf ('IG misses the jump: completeness is off by %.0f', r.step_ig_delta), 'fontsize', 9);
end
