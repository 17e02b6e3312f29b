## -*- texinfo -*-
## @deftypefn  {} {@var{T} =} explainer_study ()
## @deftypefnx {} {@var{T} =} explainer_study (@var{preset}, @var{name}, @var{value}, @dots{})
## The measurements behind the explainer's default design: every variant of
## a list trained on the same classifiers and targets as figure5's panels
## (shared through figure5's cache, so only the explainers are new), each
## scored like the figure: MSE against the s = 20 target, its multiple of
## the floor, the crossing s and its passes, Spearman and top-5 agreement,
## passes and milliseconds per explanation, the equal-accuracy speed-up
## (ee_speedup: in wall time, timed in the same run, and in passes) and
## training time.
##
## Options: @qcode{'panels'} (as for figure5; default all four),
## @qcode{'variants'} (a cell of @{name, struct of explainer settings@}
## pairs; default: the list of doc/FIGURE5_LOG.md), @qcode{'results'} (figure5's
## results folder of the preset), @qcode{'file'} (the csv written, default
## @file{figures/explainer_study_<preset>.csv}), @qcode{'verbose'}.
##
## @var{T} is a struct array, one element per panel and variant; the csv
## holds the same, and a markdown table is printed at the end.
## @seealso{figure5}
## @end deftypefn
function T = explainer_study (varargin)
  root = fileparts (fileparts (fileparts (mfilename ('fullpath'))));   # the checkout: scripts/paper/ is two below it
  addpath (fullfile (root, 'mex'), fullfile (root, 'scripts'));   # the gateways and the toolbox
  preset = 'default';
  args = varargin;
  if (mod (numel (args), 2) == 1)
    preset = args{1};
    args = args(2:end);
  end
  o = struct ('panels', {{}}, 'variants', {default_variants()}, 'results', '', 'file', '', 'verbose', true);
  for k = 1:2:numel (args)
    if (! ischar (args{k}) || ! isfield (o, lower (args{k})))
      error ('ee:badInput', 'explainer_study: unknown option ''%s''', num2str (args{k}));
    end
    o.(lower (args{k})) = args{k+1};
  end
  P = f5_presets (root, preset);
  if (! isempty (o.results)) P.results = o.results; end
  P.verbose = o.verbose;
  if (! isempty (o.panels))
    sel = o.panels;
    if (ischar (sel)) sel = {sel}; end
    P.panels = P.panels(ismember ({P.panels.name}, sel) | ismember ({P.panels.method}, sel));
  end
  if (isempty (o.file))
    o.file = fullfile (root, 'figures', sprintf ('explainer_study_%s.csv', preset));
  end
  V = o.variants;
  T = struct ([]);
  m = @(v) mean (v(! isnan (v)));
  for i = 1:numel (P.panels)
    for j = 1:rows (V)
      q = P.panels(i);
      q.expl = merge (q.expl, V{j, 2});
      t0 = tic ();
      S = f5_panel (P, q);
      C = S.curve;
      r = struct ('panel', q.name, 'variant', V{j, 1}, 'mse', C.explainer_curve, 'floor', C.floor, ...
                  'over_floor', C.explainer_curve / C.floor, 'crossing', f5_crossing (C), ...
                  'crossing_passes', NaN, 'passes', C.explainer_passes, ...
                  'spearman', m (C.explainer_spearman), 'top5', m (C.explainer_top5), ...
                  'zero_map', mean (mean (double (C.target) .^ 2, 2)), ...
                  'train_seconds', S.runtime.explainer_seconds, 'epochs', S.explainer_epochs, ...
                  'best_epoch', S.explainer_best_epoch, ...
                  'explainer_ms', 1e3 * C.explainer_seconds / S.n.test, ...
                  'speedup_time', S.speedup.speedup_time, 'speedup_passes', S.speedup.speedup_passes, ...
                  'speedup_bound', S.speedup.bound, 'seconds', toc (t0));
      if (isfinite (r.crossing))
        r.crossing_passes = C.passes(r.crossing);
      end
      if (isempty (T)) T = r; else T(end+1) = r; end
      if (o.verbose)
        printf ('== study %s / %s: MSE %.4g (%.2f x floor), crossing s = %g, Spearman %.3f, top-5 %.3f, %.0f s\n', ...
                r.panel, r.variant, r.mse, r.over_floor, r.crossing, r.spearman, r.top5, r.train_seconds);
        fflush (stdout);
      end
    end
  end
  write_csv (o.file, T);
  printf (['\n| panel | variant | MSE | x floor | crossing s (passes) | passes | ms per explanation | ' ...
           'equal-accuracy speed-up, time / passes | Spearman | top-5 | training s |\n']);
  printf ('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n');
  for r = T
    gt = ''; if (r.speedup_bound) gt = '>'; end
    printf ('| %s | %s | %.3g | %.2f | %s | %g | %.3g | %s%.3gx / %s%.3gx | %.3f | %.3f | %.0f |\n', r.panel, r.variant, ...
            r.mse, r.over_floor, crossing_text (r), r.passes, r.explainer_ms, gt, r.speedup_time, gt, ...
            r.speedup_passes, r.spearman, r.top5, r.train_seconds);
  end
  printf ('(written to %s)\n', o.file);
end

## The variants of doc/FIGURE5_LOG.md: the paper's design, then this
## project's one change at a time (each relative to the panel's preset).
function V = default_variants ()
  paper = struct ('head', 'flat', 'inputs', 'tokens', 'attend', 'all', 'outputs', 'all', ...
                  'freeze', 'none', 'schedule', 'constant', 'lr', 1e-4);
  V = {'paper: flat head, token ids, every position, lr 1e-4', paper;
       'token head, token ids, every position', struct('inputs', 'tokens', 'attend', 'all', 'outputs', 'all');
       'token head, token ids, attend tokens, 0 at specials', struct('inputs', 'tokens');
       'preset', struct();
       'preset without efficiency', struct('efficiency', false);
       'preset, gradient x input at x only', struct('inputs', 'gradient');
       'preset, gradient x input terms (vector)', struct('inputs', 'gradient_vector');
       'preset, gradient x input at x and at the baseline', struct('inputs', 'gradient_ends');
       'preset, both ends and the occlusion scores', struct('inputs', 'occlusion');
       'preset, both ends and the gradient inside the path', struct('inputs', 'path');
       'preset, embeddings frozen', struct('freeze', 'embeddings');
       'preset, embeddings trained', struct('freeze', 'none');
       'preset, constant learning rate', struct('schedule', 'constant');
       'preset, targets not standardised', struct('standardize', false);
       'preset, ensemble of 3', struct('ensemble', 3)};
end

function a = merge (a, b)
  for f = fieldnames (b)'
    a.(f{1}) = b.(f{1});
  end
end

function t = crossing_text (r)
  if (isfinite (r.crossing))
    t = sprintf ('%d (%.0f)', r.crossing, r.crossing_passes);
  else
    t = 'none before s = S';
  end
end

function write_csv (file, T)
  f = fieldnames (T)';
  txt = [strjoin(f, ',') "\n"];
  for r = T
    c = cellfun (@(n) val (r.(n)), f, 'uniformoutput', false);
    txt = [txt strjoin(c, ',') "\n"];
  end
  ensure_dir (fileparts (file));
  ee_atomic_text (file, txt);
end

function s = val (v)
  if (ischar (v))
    s = ['"' strrep(v, '"', '""') '"'];
  else
    s = sprintf ('%.6g', v);
  end
end

%!error <unknown option> explainer_study ('tiny', 'nosuch', 1)
