## -*- texinfo -*-
## @deftypefn  {} {@var{r} =} perturbation_methods ()
## @deftypefnx {} {@var{r} =} perturbation_methods (@var{outdir})
## @deftypefnx {} {@var{r} =} perturbation_methods (@var{outdir}, 'figure', @var{tf})
## Worked example: the perturbation methods of a function handle side by
## side on the formulas of @code{shapley_formulas} (5 columns, a background
## of 8 rows), each checked against its closed form (@code{doc/MODELS.md}).
##
## @itemize
## @item a linear model f(x) = x w + 1: exact Shapley values, KernelSHAP
## (@code{ee_sv (..., 'method', 'kernelshap')}, 40 drawn coalitions), LIME
## (@code{ee_lime}), leave-one-out occlusion (@code{ee_occlusion}) and
## expected gradients (@code{ee_ig} with @code{'background'}) all give
## w_j (x_j - E b_j);
## @item one interaction term, f(x) = x w + 2 x_1 x_2: Shapley values,
## KernelSHAP with all coalitions and expected gradients split the term's
## change in halves (2/2 (x_1 - b_1)(x_2 + b_2), averaged over the
## background; for a product of two columns the straight path and the
## average over orders agree); occlusion credits each of x_1 and x_2 with
## the whole change the term makes when it alone is removed,
## 2 (x_1 - E b_1) x_2, so the term is counted twice and efficiency fails;
## LIME's coefficients lie between;
## @item on 10 columns with two three-way terms, the error of KernelSHAP
## against the exact values falls with the coalitions drawn, faster with
## antithetic pairs, next to Shapley Value Sampling at the same number of
## coalition values per row.
## @end itemize
##
## Takes a few seconds. Writes @file{perturbation_methods.png} and
## @file{.pdf} into @var{outdir} (default @file{figures/examples}) unless
## @code{'figure'} is false: (a) one row of the interaction model by every
## method, (b) the convergence. Returns @var{r}: the largest deviations from
## the closed forms (@code{linear_error} per method, in the order of
## @code{methods}; @code{interaction_error} for KernelSHAP, occlusion and
## expected gradients; @code{occlusion_delta}, its distance from
## efficiency), the convergence (@code{evaluations}: coalition values per
## row; @code{mse_sampling}, @code{mse_kernelshap},
## @code{mse_kernelshap_paired}), and @code{files}.
## @seealso{ee_sv, ee_lime, ee_occlusion, ee_ig, shapley_formulas}
## @end deftypefn

function r = perturbation_methods (varargin)
  [outdir, draw] = example_options ('perturbation_methods', varargin);
  ## the data of shapley_formulas: fixed formulas, no global generator
  [X, bg] = formula_data (5);
  w = [1.5; -1; 0.5; 2; -0.5]; c = 2;
  m = mean (bg, 1); m12 = mean (bg(:,1) .* bg(:,2));
  opts = {'background', bg, 'verbose', false};
  r.methods = {'exact Shapley', 'KernelSHAP', 'LIME', 'occlusion', 'expected gradients'};

  ## the linear model: every method gives w .* (x - mean (bg))
  lin = @(x) x * w + 1;
  closed_lin = w' .* (X - m);
  A = run_all (lin, @(x) repmat (w', rows (x), 1), X, opts);
  r.linear_error = cellfun (@(a) max (abs (a(:) - closed_lin(:))), A);

  ## the interaction: halves for Shapley, KernelSHAP and expected gradients,
  ## the whole change for occlusion
  int = @(x) x * w + c * x(:,1) .* x(:,2);
  gint = @(x) [w(1) + c * x(:,2), w(2) + c * x(:,1), repmat(w(3:5)', rows (x), 1)];
  closed_int = closed_lin;
  closed_int(:,1) += c / 2 * (X(:,1) * m(2) - m12 + X(:,1) .* X(:,2) - m(1) * X(:,2));
  closed_int(:,2) += c / 2 * (m(1) * X(:,2) - m12 + X(:,1) .* X(:,2) - X(:,1) * m(2));
  closed_occ = closed_lin;
  closed_occ(:,1) += c * (X(:,1) - m(1)) .* X(:,2);
  closed_occ(:,2) += c * (X(:,2) - m(2)) .* X(:,1);
  [B, info_occ] = run_all (int, gint, X, opts);
  r.interaction_error = [max(abs(B{2}(:) - closed_int(:))), max(abs(B{4}(:) - closed_occ(:))), ...
                         max(abs(B{5}(:) - closed_int(:)))];
  r.occlusion_delta = max (abs (info_occ.delta));

  ## convergence on 10 columns with two three-way terms: the mean squared
  ## error against the exact values at equal numbers of coalition values
  ## per row (10 players: 1022 proper coalitions, so KernelSHAP draws)
  F10 = 10;
  [X10, bg10] = formula_data (F10);
  w10 = [w; -w];
  f3 = @(x) x * w10 + c * x(:,1) .* x(:,2) + x(:,3) .* x(:,4) .* x(:,5) - x(:,6) .* x(:,8) .* x(:,10);
  o10 = {'background', bg10, 'verbose', false};
  E = ee_sv (f3, X10, o10{:}, 'exact', true);
  s = [8 16 32 64 100];                # permutations: 1 + 9 s coalitions
  r.evaluations = 1 + (F10 - 1) * s;
  seeds = 1:4;
  [r.mse_sampling, r.mse_kernelshap, r.mse_kernelshap_paired] = deal (zeros (size (s)));
  mse = @(A) mean ((A(:) - E(:)) .^ 2) / numel (seeds);
  for k = 1:numel (s)
    n = r.evaluations(k) - 1;          # KernelSHAP: the empty coalition + n
    for seed = seeds
      r.mse_sampling(k) += mse (ee_sv (f3, X10, o10{:}, 'samples', s(k), 'seed', seed));
      r.mse_kernelshap(k) += mse (ee_sv (f3, X10, o10{:}, 'method', 'kernelshap', 'samples', n, 'seed', seed));
      r.mse_kernelshap_paired(k) += mse (ee_sv (f3, X10, o10{:}, 'method', 'kernelshap', 'samples', n, ...
                                                 'seed', seed, 'paired', true));
    end
  end

  r.files = {};
  if (draw)
    rows1 = cellfun (@(a) a(1,:), B, 'uniformoutput', false);
    r.files = ee_draw_figure (outdir, 'perturbation_methods', 900, 360, ...
                              @(fig) draw_panels (rows1, closed_int(1,:), closed_occ(1,:), r));
  end
end

## Every method on f (g: its gradient), in the order of r.methods; info of
## occlusion for its efficiency gap.
function [A, info_occ] = run_all (f, g, X, opts)
  A = cell (1, 5);
  A{1} = ee_sv (f, X, opts{:}, 'exact', true);
  ## 40 drawn coalitions fit a linear model exactly; 30 = all of them
  A{2} = ee_sv (f, X, opts{:}, 'method', 'kernelshap', 'samples', 30);
  A{3} = ee_lime (f, X, opts{:}, 'samples', 200);
  [A{4}, info_occ] = ee_occlusion (f, X, opts{:});
  A{5} = ee_ig (@(x) with_gradient (f, g, x), X, opts{1:2}, 'steps', 2, 'verbose', false);
end

function [y, gr] = with_gradient (f, g, x)
  y = f (x);
  gr = g (x);
end

## (a) row 1 of the interaction model by every method, (b) the convergence
function draw_panels (rows1, c_int, c_occ, r)
  ax = axes ('position', [0.07 0.16 0.42 0.72]);
  hold (ax, 'on');
  nm = numel (rows1); F = numel (c_int); j = 1:F;
  colors = [0.2 0.2 0.2; 0.6 0.75 0.9; 0.55 0.8 0.55; 0.95 0.65 0.5; 0.75 0.6 0.85];
  wd = 0.8 / nm; h = zeros (1, nm + 1);
  for k = 1:nm
    h(k) = bar (ax, j - 0.4 + (k - 0.5) * wd, rows1{k}, wd, 'facecolor', colors(k,:), 'edgecolor', 'none');
  end
  h(end) = plot (ax, [j - 0.4 + 0.5 * wd, j - 0.4 + 3.5 * wd], [c_int, c_occ], 'k+', 'markersize', 6, 'linewidth', 1.2);
  plot (ax, [0.4 F + 0.6], [0 0], 'k-', 'linewidth', 0.5);
  set (ax, 'xtick', j, 'xticklabel', arrayfun (@(k) sprintf ('x_%d', k), j, 'uniformoutput', false), ...
       'xlim', [0.4 F + 0.6], 'fontsize', 10);
  ylabel (ax, 'attribution', 'fontsize', 10);
  title (ax, '(a) one row of x w + 2 x_1 x_2, every method', 'fontsize', 10);
  legend (h, [r.methods, {'closed forms'}], 'location', 'northeast', 'fontsize', 8);
  ax2 = axes ('position', [0.6 0.16 0.37 0.72]);
  loglog (ax2, r.evaluations, r.mse_sampling, '-o', 'color', [0 0 0], 'linewidth', 1.5, 'markersize', 5);
  hold (ax2, 'on');
  loglog (ax2, r.evaluations, r.mse_kernelshap, '-s', 'color', [0 0.45 0.8], 'linewidth', 1.5, 'markersize', 5);
  loglog (ax2, r.evaluations, r.mse_kernelshap_paired, '-^', 'color', [0.85 0.4 0], 'linewidth', 1.5, 'markersize', 5);
  set (ax2, 'xtick', r.evaluations, 'xticklabel', arrayfun (@num2str, r.evaluations, 'uniformoutput', false), ...
       'xlim', [r.evaluations(1) * 0.8, r.evaluations(end) * 1.25], 'fontsize', 10);
  xlabel (ax2, 'coalition values per row', 'fontsize', 10);
  ylabel (ax2, 'mean squared error against exact', 'fontsize', 10);
  title (ax2, '(b) 10 columns, two three-way terms', 'fontsize', 10);
  legend (ax2, {'Shapley Value Sampling', 'KernelSHAP', 'KernelSHAP, paired'}, 'location', 'southwest');
  grid (ax2, 'on');
end
