## -*- texinfo -*-
## @deftypefn {} {@var{files} =} f5_heatmaps (@var{P}, @var{p})
## Heatmaps of one panel @var{p} (from f5_panel) into @var{P}.figures: PNGs
## of single test sequences (a good approximation, a typical one, and one
## with prominent errors among the short sequences), named after the panel,
## and one HTML page with every test sequence.
## @end deftypefn
function files = f5_heatmaps (P, p)
  files = {};
  N = rows (p.X);
  ## normalised per-sequence error of the explainer, to pick examples
  err = p.curve.explainer_mse ./ max (mean (double (p.target) .^ 2, 2), eps);
  len = sum (p.X != 1, 2);
  ok = find (len <= 110 & len >= 8);
  if (numel (ok) < min (P.heatmaps, N))
    ok = (1:N)';
  end
  [~, o] = sort (err(ok));
  ok = ok(o);
  nh = min (P.heatmaps, numel (ok));
  sel = ok(unique (round (linspace (1, numel (ok), nh))));
  tags = {'good approximation', 'typical', 'prominent approximation errors'};
  epass = p.curve.explainer_passes;
  for k = 1:numel (sel)
    i = sel(k);
    if (isfield (p, 'exact') && p.exact)
      lab_t = sprintf ('%s (exact, %.0f passes per explanation)', p.method_title, p.curve.passes(1));
    elseif (strcmp (p.method, 'ig'))
      lab_t = sprintf ('Integrated Gradients (s = %d, %.0f passes through the classifier)', p.S, p.curve.passes(p.S));
    elseif (! strcmp (p.method, 'sv'))
      lab_t = sprintf ('%s (s = %d, %.0f passes per explanation)', p.method_title, p.S, p.curve.passes(p.S));
    else
      n_real = sum (p.X(i, :) != 1 & p.X(i, :) != 3 & p.X(i, :) != 4);
      lab_t = sprintf ('Shapley Value Sampling (s = %d, %d passes through the classifier)', p.S, 2 + p.S * n_real);
    end
    if (numel (sel) == 3) tag = tags{k}; else tag = sprintf ('example %d', k); end
    file = fullfile (P.figures, sprintf ('heatmap_%s_%d.png', p.name, k));
    ee_heatmap (file, p.X(i, :), p.vocab, p.target(i, :), p.empirical(i, :), ...
                'title', sprintf ('%s, test sequence %d of the subset (%s; per-sequence MSE %.3g)', ...
                                  p.dataset, i, tag, p.curve.explainer_mse(i)), ...
                'class', sprintf ('classified as: %s (true: %s)', p.classes{p.target_class(i)}, ...
                                  p.classes{p.labels(i)}), ...
                'labels', {['Top: ' lab_t], sprintf('Bottom: Empirical Explainer (%g passes)', epass)}, ...
                'scale', 'shared');     # one colour scale: the two maps compare directly
    files{end+1} = file;
  end
  file = fullfile (P.figures, sprintf ('heatmaps_%s.html', p.name));
  ee_heatmap_html (file, p.X, p.vocab, p.target, p.empirical, ...
                   'title', sprintf ('%s: %s targets (%s) and Empirical Explainer, %d test sequences', ...
                                     p.dataset, p.label, s_text (p), N), ...
                   'classes', p.classes, 'target', p.target_class, 'labels', p.labels, ...
                   'mse', p.curve.explainer_mse, 'names', {sprintf('%s %s', p.label, strrep (s_text (p), ' ', '')), ...
                                                             'empirical'});
  files{end+1} = file;
end

## s = S, or 'exact' for a deterministic method
function t = s_text (p)
  t = sprintf ('s = %d', p.S);
  if (isfield (p, 'exact') && p.exact)
    t = 'exact';
  end
end
