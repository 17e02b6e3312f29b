## -*- texinfo -*-
## @deftypefn {} {@var{files} =} f5_cost_figure (@var{P}, @var{panels})
## The cost-accuracy figure beside Figure 5: per panel, the MSE against the
## s = S target (log) over the wall seconds per explanation (log).  The
## expensive explainer is a curve over s (each s timed once on the test
## rows in the same run; the s that decides the speed-up as the median of 3), every
## Empirical Explainer of the panel a point labelled with its passes, the
## floor a dotted line.  A point left of and below the curve costs less
## than the expensive explainer at equal accuracy.  A deterministic
## method's panel has no curve: its one cost and the explainer's
## (f5_exact_axes).  Writes
## figure5_cost.png, .pdf and .svg into @var{P}.figures.
## @end deftypefn
function files = f5_cost_figure (P, panels)
  n = numel (panels);
  ncol = min (n, 2);
  nrow = ceil (n / ncol);
  Wp = 640; Hp = 520;
  W = Wp * ncol; H = Hp * nrow;
  files = ee_draw_figure (P.figures, 'figure5_cost', W, H, @(fig) draw_grid (panels, ncol, Wp, Hp, H), ...
                          {'.png', '.pdf', '.svg'});
end

## the panels row by row, ncol to a row
function draw_grid (panels, ncol, Wp, Hp, H)
  for k = 1:numel (panels)
    c = mod (k - 1, ncol); r = floor ((k - 1) / ncol);
    draw_panel (panels(k), [c * Wp, H - (r + 1) * Hp, Wp, Hp]);
  end
end

function draw_panel (p, box)
  red = [0.85 0 0]; green = [0 0.6 0]; blue = [0.2 0.35 0.8]; grey = [0.45 0.45 0.45];
  if (isfield (p, 'exact') && p.exact)     # a deterministic method: its one cost, no curve
    f5_exact_axes (p, [box(1) + 95, box(2) + 110, box(3) - 125, box(4) - 160]);
    na = axes ('units', 'pixels', 'position', [box(1) + 10, box(2) + 5, box(3) - 20, 40], 'visible', 'off', ...
               'xlim', [0 1], 'ylim', [0 2]);
    text (na, 0, 1.5, sprintf ('black: %s, one run per explanation (exact), %d test rows; star: the explainer', ...
                               p.label, p.n.test), 'fontsize', 8, 'interpreter', 'none');
    text (na, 0, 0.5, sprintf ('speed ratio (not at equal accuracy): %.3gx in wall time, %.3gx in passes (medians of 3)', ...
                               p.speedup.speedup_time, p.speedup.speedup_passes), 'fontsize', 8, 'interpreter', 'none');
    return;
  end
  C = p.curve; K = p.cost_curve; R = p.speedup;
  S = p.S;
  s = 1:S-1;                               # s = S is the target: MSE 0, off the log axis
  ok = isfinite (K.seconds(s)) & K.seconds(s) > 0 & C.curve(s) > 0;
  ax = axes ('units', 'pixels', 'position', [box(1) + 95, box(2) + 110, box(3) - 125, box(4) - 160]);
  hold (ax, 'on');
  h = plot (ax, K.seconds(s(ok)), C.curve(s(ok)), 'k-o');
  set (h, 'linewidth', 2.5, 'markersize', 4, 'markerfacecolor', 'k');
  for j = s(ok)(ismember (s(ok), [1 2 5 10 15 S-1]))
    text (ax, K.seconds(j) * 1.08, C.curve(j), sprintf ('s = %d', j), 'fontsize', 9, 'color', grey);
  end
  xs = [K.seconds(s(ok)), C.explainer_seconds / p.n.test];
  ys = [C.curve(s(ok)), C.explainer_curve, C.floor];
  xs = xs(xs > 0 & isfinite (xs)); ys = ys(ys > 0 & isfinite (ys));
  xl = [10 ^ floor(log10 (min (xs)) - 0.3), 10 ^ ceil(log10 (max (xs)) + 0.3)];
  yl = [10 ^ floor(log10 (min (ys)) - 0.3), 10 ^ ceil(log10 (max (ys)))];
  if (C.floor > 0)
    hf = plot (ax, xl, [C.floor C.floor], ':');
    set (hf, 'color', blue, 'linewidth', 2.5);
    text (ax, xl(1) * 1.3, C.floor * 1.35, 'floor', 'color', blue, 'fontsize', 10);
  end
  ex = C.explainer_seconds / p.n.test;
  he = plot (ax, ex, C.explainer_curve, 'p');
  set (he, 'color', green, 'markerfacecolor', green, 'markersize', 14);
  ## the label on the side of the point with more room
  right = log (ex / xl(1)) < log (xl(2) / ex);
  text (ax, ex * ifelse (right, 1.3, 1 / 1.3), C.explainer_curve * 1.25, ...
        sprintf ('Empirical Explainer, %s', pass_text (C.explainer_passes)), 'color', green, ...
        'fontsize', 10, 'fontweight', 'bold', 'horizontalalignment', ifelse (right, 'left', 'right'));
  ## the expensive explainer where it is as accurate (or the bound at s = S)
  xc = R.expensive_seconds;
  yc = C.explainer_curve;
  if (! R.bound)
    yc = C.curve(R.crossing);
  end
  hc = plot (ax, xc, yc, 'o');
  set (hc, 'color', red, 'markersize', 12, 'linewidth', 2);
  plot (ax, [ex xc], [C.explainer_curve C.explainer_curve], '--', 'color', red, 'linewidth', 1.5);
  gt = ifelse (R.bound, '>', '');
  text (ax, sqrt (ex * xc), C.explainer_curve / 1.6, sprintf ('%s%.3gx faster at equal MSE', gt, R.speedup_time), ...
        'color', red, 'fontsize', 10, 'horizontalalignment', 'center');
  set (ax, 'xscale', 'log', 'yscale', 'log', 'xlim', xl, 'ylim', yl, 'box', 'on', 'fontsize', 11);
  xlabel (ax, 'wall seconds per explanation');
  ylabel (ax, sprintf ('MSE against %s at s = %d', p.label, S));
  if (strcmp (p.method, 'ig'))
    ttl = sprintf ('Integrated Gradients, %s', p.dataset);
  elseif (strcmp (p.method, 'sv'))
    ttl = sprintf ('Shapley Value Sampling, %s', p.dataset);
  else
    ttl = sprintf ('%s, %s', p.method_title, p.dataset);
  end
  title (ax, ttl, 'fontsize', 13, 'fontweight', 'bold', 'interpreter', 'none');   # names as written (fashion_patches)
  hold (ax, 'off');
  na = axes ('units', 'pixels', 'position', [box(1) + 10, box(2) + 5, box(3) - 20, 40], 'visible', 'off', ...
             'xlim', [0 1], 'ylim', [0 2]);
  if (R.bound)
    where = sprintf ('red: none as accurate before s = %d (a bound)', S);
  else
    where = sprintf ('red: %s at s = %d, the first as accurate', p.label, R.crossing);
  end
  text (na, 0, 1.5, sprintf ('black: %s at s = 1..%d, each timed once in this run on %d test rows; %s', p.label, S - 1, ...
                             p.n.test, where), 'fontsize', 8, 'interpreter', 'none');
  text (na, 0, 0.5, sprintf ('equal accuracy: %s%.3gx in wall time, %s%.3gx in passes (star, red: medians of 3)', ...
                             gt, R.speedup_time, gt, R.speedup_passes), 'fontsize', 8, 'interpreter', 'none');
end
