## -*- texinfo -*-
## @deftypefn {} {@var{files} =} f5_figure (@var{P}, @var{panels})
## Draws Figure 5: one panel per element of @var{panels} (from f5_panel),
## IG panels in the left column and SV panels in the right one, as in the
## paper, a panel of another method (a function handle's KernelSHAP) in a
## column of its own; a deterministic method's panel (no curve) is its cost
## plane (f5_exact_axes); writes figure5.png, .pdf and .svg into
## @var{P}.figures.
## @end deftypefn
function files = f5_figure (P, panels)
  methods = {panels.method};
  cols = {};
  for m = unique ([{'ig', 'sv'}, methods], 'stable')
    if (any (strcmp (methods, m{1}))) cols{end+1} = m{1}; end
  end
  nrow = max (cellfun (@(m) sum (strcmp (methods, m)), cols));
  Wp = 640; Hp = 560;
  W = Wp * numel (cols); H = Hp * nrow;
  ## vector PDF/SVG with embedded fonts, 300 dpi PNG
  files = ee_draw_figure (P.figures, 'figure5', W, H, @(fig) draw_columns (P, panels, methods, cols, Wp, Hp, H), ...
                          {'.png', '.pdf', '.svg'});
end

## IG panels in the left column, SV panels in the right one
function draw_columns (P, panels, methods, cols, Wp, Hp, H)
  for c = 1:numel (cols)
    idx = find (strcmp (methods, cols{c}));
    for r = 1:numel (idx)
      draw_panel (P, panels(idx(r)), [(c - 1) * Wp, H - r * Hp, Wp, Hp]);
    end
  end
end

## One panel in the pixel box [x0 y0 w h] of the figure.
function draw_panel (P, p, box)
  grey = [0.4 0.4 0.4]; red = [0.85 0 0]; green = [0 0.6 0]; blue = [0.2 0.35 0.8];
  if (isfield (p, 'exact') && p.exact)  # no curve: the method's cost against the explainer's
    f5_exact_axes (p, [box(1) + 95, box(2) + 150, box(3) - 125, box(4) - 200]);
    draw_notes (P, p, box);
    return;
  end
  C = p.curve;
  S = p.S;
  s = 1:S-1;                       # s = S is exactly 0: off a log axis
  q = C.quartiles(:, s);
  axh = box(4) - 150 - 50;
  ax = axes ('units', 'pixels', 'position', [box(1) + 95, box(2) + 150, box(3) - 125, axh]);
  hold (ax, 'on');
  ok = ! isnan (C.curve(s)) & C.curve(s) > 0;
  okq = ok & q(1, :) > 0;
  e = C.explainer_curve;
  fl = C.floor;
  ## y range: the mean curve, the explainer's line and the floor, one decade
  ## below (the band of per-sequence values is clipped to it)
  lo = [C.curve(s(ok)) e fl]; lo = lo(lo > 0 & isfinite (lo));
  hi = [C.curve(s(ok)) q(3, okq) e]; hi = hi(hi > 0 & isfinite (hi));
  if (isempty (lo)) lo = 1e-3; hi = 1; end
  yl = [10 ^ (floor (log10 (min (lo))) - 1), 10 ^ ceil(log10 (max (hi)))];
  if (any (okq))
    xs = s(okq);
    band = max (yl(1), min (yl(2), [q(1, okq) fliplr(q(3, okq))]));
    patch (ax, [xs fliplr(xs)], band, [0.86 0.86 0.86], 'edgecolor', 'none');
  end
  h1 = plot (ax, s(ok), C.curve(s(ok)), 'k-');
  set (h1, 'linewidth', 3);
  if (isfinite (fl) && fl > 0)
    hf = plot (ax, [0.5 S - 0.5], [fl fl], ':');
    set (hf, 'color', blue, 'linewidth', 2.5);
  end
  if (isfinite (e))
    h2 = plot (ax, [0.5 S - 0.5], [e e], '--');
    set (h2, 'color', green, 'linewidth', 3);
  end
  set (ax, 'yscale', 'log', 'xlim', [0.5 S - 0.5], 'ylim', yl, 'box', 'on', 'fontsize', 11);
  dec = log10 (yl);
  set (ax, 'ytick', 10 .^ (dec(1):max (1, ceil (diff (dec) / 8)):dec(2)));
  ## x ticks: s, and below them the model passes per explanation
  cx = f5_crossing (C);
  tk = unique ([1 2 5:5:S-1 cx(isfinite (cx))]);
  set (ax, 'xtick', tk);
  lg = @(px) 10 ^ (log10 (yl(1)) - px / axh * diff (log10 (yl)));
  for t = tk(isfinite (C.passes(tk)))   # (none where no run at s determined the values)
    text (ax, t, lg (36), sprintf ('%.0f', C.passes(t)), 'horizontalalignment', 'center', ...
          'fontsize', 9, 'color', grey);
  end
  text (ax, 0.3, lg (36), 'passes:', 'horizontalalignment', 'right', 'fontsize', 9, 'color', grey);
  text (ax, 0.3, lg (17), 's:', 'horizontalalignment', 'right', 'fontsize', 9);
  what = 'IG steps / SV permutations';
  if (isfield (p, 'unit') && ! any (strcmp (p.method, {'ig', 'sv'})))   # a panel of another method
    what = p.unit;
  elseif (any (strcmp (p.method, {'kernelshap', 'lime'})))
    what = sprintf ('%d coalitions each', C.coalitions);
  end
  text (ax, S / 2, lg (62), sprintf ('s: %s; grey: passes per explanation (%.0f at s = %d)', what, ...
                                     C.passes(S), S), 'horizontalalignment', 'center', 'fontsize', 9);
  ylabel (ax, sprintf ('MSE to the target (s = %d), log scale', S), 'fontsize', 11);
  ## labels of the explainer's line and of the floor: above or below them,
  ## where the curve leaves room
  if (isfinite (e))
    above = ok(end) && C.curve(S - 1) < e;
    up = 0.035 * above - 0.06 * (! above);
    text (ax, S - 0.7, e * 10 ^ (up * diff (log10 (yl))), ...
          sprintf ('Empirical Explainer (%s): %.3g, %s the floor', pass_text (C.explainer_passes), e, ...
                   times_text (e / fl)), ...
          'color', green, 'horizontalalignment', 'right', 'fontsize', 10, 'fontweight', 'bold');
  end
  if (isfinite (fl) && fl > 0)
    text (ax, 1, fl * 10 ^ (-0.05 * diff (log10 (yl))), sprintf ('floor: %.3g', fl), 'color', blue, ...
          'fontsize', 10);
  end
  ## crossing point: a circle on the curve, a dotted line down to the s axis
  if (isfinite (cx))
    h4 = plot (ax, [cx cx], [yl(1) C.curve(cx)], ':');
    set (h4, 'color', red, 'linewidth', 2);
    h3 = plot (ax, cx, C.curve(cx), 'o');
    set (h3, 'markersize', 14, 'color', red, 'linewidth', 2.5);
    left = cx < S / 2;     # the label on the side with room
    text (ax, cx + 0.3 * (2 * left - 1), lg (-22), ...
          sprintf ('crossing: s = %d (%.0f passes)', cx, C.passes(cx)), 'color', red, 'fontsize', 11, ...
          'fontweight', 'bold', 'horizontalalignment', ifelse (left, 'left', 'right'));
  elseif (isfinite (e))
    text (ax, 1, lg (-22), sprintf ('no crossing for s < %d', S), 'color', red, ...
          'fontsize', 11, 'fontweight', 'bold');
  end
  if (isfield (p, 'title'))          # a panel on a function handle (f5_fn_panel)
    ttl = p.title;
  else                               # the method's name (f5_method), on the dataset
    ttl = sprintf ('%s, %s', p.method_title, p.dataset);
  end
  title (ax, ttl, 'fontsize', 13, 'fontweight', 'bold', 'interpreter', 'none');   # names as written (fashion_patches)
  hold (ax, 'off');
  draw_notes (P, p, box);
end

## notes under the panel
function draw_notes (P, p, box)
  na = axes ('units', 'pixels', 'position', [box(1) + 10, box(2) + 5, box(3) - 20, 68], 'visible', 'off', ...
             'xlim', [0 1], 'ylim', [0 4]);
  if (isfield (p, 'notes'))
    lines = p.notes;
  else
    lines = token_notes (P, p);
  end
  for j = 1:numel (lines)
    text (na, 0, 4 - j + 0.5, lines{j}, 'fontsize', 8, 'interpreter', 'none');
  end
end

## the notes under a panel of a token classifier (f5_panel)
function lines = token_notes (P, p)
  x = p.explainer;
  first = sprintf ('black: expensive %s, mean MSE over %d test sequences (grey: 25th-75th percentile)', ...
                   p.label, p.n.test);
  if (isfield (p, 'exact') && p.exact)
    first = sprintf ('black: %s, deterministic: one run is exact (the target), %d test sequences; no floor', ...
                     p.label, p.n.test);
  end
  lines = {first, ...
           sprintf('green: Empirical Explainer (%s head, %s%s), Spearman %.2f, top-5 overlap %.2f', ...
                   p.explainer_head, p.explainer_inputs, ensemble_text (x.ensemble), mean_ok (p.curve.explainer_spearman), ...
                   mean_ok (p.curve.explainer_top5)), ...
           sprintf('%s %s (%s), accuracy %.3f, T = %d', p.dataset, p.kind, ...
                   model_text (p.spec), p.test_accuracy, p.T), ...
           sprintf('training rows %d + %d unlabelled (s = %d), valid %d, test %d; preset %s', ...
                   p.n.train, p.n.unlabelled, p.targets_s.train, p.n.valid, p.n.test, P.preset)};
end

function t = times_text (r)
  if (r < 10)
    t = sprintf ('%.1fx', r);
  else
    t = sprintf ('%.0fx', r);
  end
end

function t = ensemble_text (k)
  t = '';
  if (k > 1)
    t = sprintf (', ensemble of %d', k);
  end
end

function m = mean_ok (v)
  m = mean (v(! isnan (v)));
end
