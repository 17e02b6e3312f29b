## -*- texinfo -*-
## @deftypefn {} {@var{files} =} generalization_figure (@var{T}, @var{out})
## The generalization suite's figure (@file{generalization.png}, @file{.pdf},
## @file{.svg} in the folder @var{out}): per data set and method the
## crossing (top: the smallest s at which the expensive explainer is as
## accurate as the Empirical Explainer) and the equal-accuracy speed-up in
## wall time (bottom, log scale), a line at the median over the seeds and a
## dot for each seed (blue IG, red SV), with the aims of doc/GENERALIZATION.md as dashed lines
## (blue the IG aim, red the SV aim).  @var{T} is the struct array that
## @code{generalization} returns, or the file name of its
## @file{generalization.csv}.
## @end deftypefn
function files = generalization_figure (T, out)
  if (ischar (T))
    T = read_rows (T);
  end
  files = ee_draw_figure (out, 'generalization', 1500, 640, @(fig) draw (T), {'.png', '.pdf', '.svg'});
end

function draw (T)
  key = cellfun (@(a, b) [a ' ' b], {T.dataset}, {T.method}, 'uniformoutput', false);
  keys = unique (key, 'stable');
  n = numel (keys);
  fields = {'crossing', 'speedup_time'};
  titles = {'crossing: the smallest s at which the expensive explainer is as accurate', ...
            'equal-accuracy speed-up in wall time (x)'};
  aims = {[4 8], [5 25]};
  for k = 1:2
    ax = subplot (2, 1, k);
    hold (ax, 'on');
    for j = 1:n
      sel = T(strcmp (key, keys{j}));
      v = [sel.(fields{k})];
      ig = strcmp (sel(1).method, 'ig');
      colour = [0.2 0.4 0.8] * ig + [0.8 0.3 0.2] * ! ig;
      plot (ax, j + [-0.3 0.3], median (v) * [1 1], '-', 'color', colour, 'linewidth', 4);
      plot (ax, j * ones (size (v)), v, '.', 'color', colour * 0.6, 'markersize', 12);
    end
    plot (ax, [0.5, n + 0.5], aims{k}(1) * [1 1], '--', 'color', [0.2 0.4 0.8]);
    plot (ax, [0.5, n + 0.5], aims{k}(2) * [1 1], '--', 'color', [0.8 0.3 0.2]);
    if (k == 2)
      set (ax, 'yscale', 'log');
    else
      c = [T.crossing];
      set (ax, 'ylim', [0, max([c(! isnan (c)), 8]) + 1]);
    end
    ## (gnuplot reads an underscore in a tick label as a subscript whatever
    ## the interpreter says: the names are written with spaces)
    set (ax, 'xtick', 1:n, 'xticklabel', strrep (keys, '_', ' '), 'xlim', [0.5, n + 0.5], 'fontsize', 6);
    grid (ax, 'on');
    title (ax, titles{k}, 'interpreter', 'none', 'fontsize', 10);
  end
end

## The rows of generalization.csv (its header names the fields).
function T = read_rows (file)
  lines = strsplit (strtrim (fileread (file)), "\n");
  names = strsplit (lines{1}, ',');
  T = [];
  for i = 2:numel (lines)
    v = strsplit (lines{i}, ',');
    r = struct ();
    for j = 1:numel (names)
      x = str2double (v{j});
      if (isnan (x) && ! strcmpi (v{j}, 'nan'))
        r.(names{j}) = v{j};
      else
        r.(names{j}) = x;
      end
    end
    T = [T, r];
  end
end
