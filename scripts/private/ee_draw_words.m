## [fig, shown] = ee_draw_words (words, maps, o): draws words on
## backgrounds coloured by attribution maps, the picture of ee_heatmap and
## ee_plot_text (one drawing, two callers).
##
## words: 1 x n cell of the words shown (UTF-8); maps: cell of 1 x n
## vectors, one block of the words per map; o: struct with title, class
## (header lines, '' for none; class may be a cell of lines), labels (a
## caption per map), width
## (characters per line), font (monospaced: the layout is a character
## grid and each line of words is one text), scale ('each' | 'shared' | a positive
## number), colorbar (logical), visible (logical), toolkit ('' keeps the
## current one).  Returns the figure and shown.scale (the |value| that
## full colour stands for, per map).
##
## Colours: red positive, blue negative, white 0, linear in value/scale and
## capped at 85% ink so that black words stay readable.  The layout is in
## pixels at 100 per inch (ee_save_figure's page size), fonts in points:
## a 10 pt mono character is 8.4 px wide.
function [fig, shown] = ee_draw_words (words, maps, o)
  n = numel (words);
  nm = numel (maps);
  ## the value that full colour stands for, per map
  mx = cellfun (@(a) max ([abs(double (a(:)')) 0]), maps);
  if (isnumeric (o.scale))
    scale = repmat (double (o.scale), 1, nm);
  elseif (strcmp (o.scale, 'shared'))
    scale = repmat (max ([mx 0]), 1, nm);
  else
    scale = mx;
  end
  scale(! (scale > 0)) = 1;
  shown.scale = scale;

  ## token layout on a character grid: [line, column] of every word;
  ## widths in characters (UTF-8 continuation bytes do not count)
  len = text_width (words);
  W = o.width;
  pos = zeros (n, 2);
  line = 0; col = 0;
  for i = 1:n
    if (col > 0 && col + len(i) > W)
      line++; col = 0;
    end
    pos(i, :) = [line col];
    col += len(i) + 1;
  end
  nl = line + 1;

  ## header lines: the title, then the class line(s) (a cell for several);
  ## the page is as wide as the longest line needs
  header = {};
  if (! isempty (o.title)) header{end+1} = o.title; end
  if (iscell (o.class)) header = [header o.class(:)']; elseif (! isempty (o.class)) header{end+1} = o.class; end
  hlen = text_width ([header {''}]);
  nrow = numel (header) + nm * (nl + 1.6) + 0.4 + 2.6 * o.colorbar;
  cw = 8.4; lh = 21;
  Wpx = round (max ([W, 60, hlen]) * cw + 40);
  Hpx = round (nrow * lh + 20);

  if (! isempty (o.toolkit))
    warning ('off', 'Octave:gnuplot-graphics', 'local');
    graphics_toolkit (o.toolkit);
  end
  vis = 'off';
  if (o.visible) vis = 'on'; end
  fig = figure ('visible', vis, 'position', [0 0 Wpx Hpx], 'color', 'w', 'paperunits', 'inches', ...
                'paperposition', [0 0 Wpx Hpx] / 100, 'papersize', [Wpx Hpx] / 100);
  try
    ax = axes ('position', [0 0 1 1], 'xlim', [0 Wpx], 'ylim', [0 Hpx], 'ydir', 'reverse', ...
               'visible', 'off');
    hold (ax, 'on');
    y = 12;
    for h = 1:numel (header)
      weight = 'normal';
      if (h == 1 && ! isempty (o.title)) weight = 'bold'; end
      text (ax, 20, y + lh / 2, header{h}, 'fontname', o.font, 'fontsize', 10, ...
            'fontweight', weight, 'verticalalignment', 'middle', 'interpreter', 'none');
      y += lh;
    end
    for m = 1:nm
      v = double (maps{m}(:)') / scale(m);
      y += 0.3 * lh;
      cap = '';
      if (m <= numel (o.labels)) cap = o.labels{m}; end
      if (ischar (o.scale) && strcmp (o.scale, 'each') && o.colorbar)
        cap = strtrim (sprintf ('%s  (full colour: |value| %.3g)', cap, scale(m)));
      end
      if (! isempty (cap))
        text (ax, 20, y + lh / 2, cap, 'fontname', o.font, 'fontsize', 9, 'fontangle', 'italic', ...
              'color', [0.25 0.25 0.25], 'verticalalignment', 'middle', 'interpreter', 'none');
      end
      y += lh;
      if (n > 0)
        ## one patch for all backgrounds (faces coloured per word)
        x0 = 20 + pos(:, 2)' * cw - 1;
        x1 = x0 + len * cw + 2;
        y0 = y + pos(:, 1)' * lh + 1;
        y1 = y0 + lh - 2;
        ## one patch for all backgrounds (faces coloured per word); a box
        ## that is white in the file's 8-bit colours is the page itself
        ## and is not drawn (attribution maps are mostly near 0)
        c = attr_colors (v);
        ink = any (round (255 * c) < 255, 2)';
        if (any (ink))
          patch (ax, [x0(ink); x1(ink); x1(ink); x0(ink)], [y0(ink); y0(ink); y1(ink); y1(ink)], ...
                 reshape (c(ink, :), [1 sum(ink) 3]), 'edgecolor', 'none', 'facecolor', 'flat');
        end
        ## one text object per line, not per word: the words of a line
        ## joined by single spaces sit on their backgrounds because the
        ## layout is a grid of monospaced characters (one space between
        ## words); a long text then costs its lines, not its words
        first = [1, find(diff (pos(:, 1)'))+1];
        last = [first(2:end) - 1, n];
        for l = 1:numel (first)
          i = first(l);
          text (ax, x0(i) + 1, (y0(i) + y1(i)) / 2, strjoin (words(i:last(l)), ' '), 'fontname', o.font, ...
                'fontsize', 10, 'verticalalignment', 'middle', 'interpreter', 'none');
        end
      end
      y += nl * lh + 0.3 * lh;
    end
    if (o.colorbar)
      draw_colorbar (ax, 60, y + 0.4 * lh, min (320, Wpx - 80), o, scale(1));   # room for the first label
    end
    hold (ax, 'off');
  catch err
    close (fig);
    rethrow (err);
  end
end

## A horizontal bar from -scale (blue) to +scale (red) with five ticks;
## with 'each' scale the ticks are fractions of each map's own maximum.
function draw_colorbar (ax, x, y, w, o, scale)
  k = 101;
  v = linspace (-1, 1, k);
  e = linspace (x, x + w, k + 1);
  h = 12;
  patch (ax, [e(1:k); e(2:k+1); e(2:k+1); e(1:k)], repmat ([y; y; y + h; y + h], 1, k), ...
         reshape (attr_colors (v), [1 k 3]), 'edgecolor', 'none', 'facecolor', 'flat');
  plot (ax, [x x + w x + w x x], [y y y + h y + h y], '-', 'color', [0.5 0.5 0.5]);
  for t = -1:0.5:1
    xt = x + (t + 1) / 2 * w;
    plot (ax, [xt xt], [y + h, y + h + 4], '-', 'color', [0.3 0.3 0.3]);
    if (ischar (o.scale) && strcmp (o.scale, 'each'))
      lab = sprintf ('%g', t);
    else
      lab = sprintf ('%.3g', t * scale);
    end
    text (ax, xt, y + h + 12, lab, 'fontname', o.font, 'fontsize', 8, 'horizontalalignment', 'center', ...
          'verticalalignment', 'middle', 'interpreter', 'none');
  end
  cap = 'attribution';
  if (ischar (o.scale) && strcmp (o.scale, 'each'))
    cap = 'attribution / the map''s maximum |value|';
  end
  text (ax, x + w + 12, y + h / 2, cap, 'fontname', o.font, 'fontsize', 8, 'verticalalignment', 'middle', ...
        'color', [0.25 0.25 0.25], 'interpreter', 'none');
end

## v in [-1, 1]: red positive, blue negative, white 0 (capped at 85% ink)
function c = attr_colors (v)
  v = max (-1, min (1, v(:)));
  s = 0.85 * abs (v);
  c = ones (numel (v), 3);
  pos = v > 0;
  c(pos, 2) = 1 - s(pos); c(pos, 3) = 1 - s(pos);
  c(! pos, 1) = 1 - s(! pos); c(! pos, 2) = 1 - s(! pos);
end

## Characters per word (UTF-8 continuation bytes do not count), for all
## words at once: a long text is one vector, not a call per word.
function len = text_width (words)
  bytes = cellfun ('length', words);
  if (isempty (bytes))
    len = bytes;
    return;
  end
  b = double ([words{:}]);
  cont = [0, cumsum(b >= 128 & b < 192)];
  ends = cumsum (bytes);
  len = bytes - (cont(ends + 1) - cont(ends - bytes + 1));
end
