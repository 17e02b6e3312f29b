## [scene, shown] = words_scene (words, maps, o): the picture of ee_heatmap
## and ee_plot_text (words on backgrounds coloured by attribution maps) as
## data, for the two ways it is drawn: a figure on screen (ee_draw_words)
## and an SVG drawing written as files (scene_svg, save_svg).
##
## words: 1 x n cell of the words shown (UTF-8); maps: cell of 1 x n
## vectors, one block of the words per map; o: struct with title, class
## (header lines, '' for none; class may be a cell of lines), labels (a
## caption per map), width (characters per line), font (monospaced: the
## layout is a character grid and each line of words is one text), scale
## ('each' | 'shared' | a positive number), colorbar (logical).
##
## scene (coordinates in layout pixels, 100 per inch, y down):
##   size   [W H], the page
##   boxes  k x 4 [x0 y0 x1 y1] filled rectangles, painted in order
##          (the words' backgrounds, then the colour bar's steps)
##   rgb    k x 3 their colours in [0, 1]
##   lines  struct array of polylines: x, y, rgb (drawn 0.25 pt wide)
##   texts  struct array: x, y (left end or centre; the vertical middle),
##          str, size (points), weight ('normal' | 'bold'), angle
##          ('normal' | 'italic'), rgb, align ('left' | 'center')
##   font   the font of every text
## shown.scale: the |value| that full colour stands for, per map.
##
## Colours: red positive, blue negative, white 0, linear in value/scale and
## capped at 85% ink so that black words stay readable.  A 10 pt mono
## character is 8.4 px wide.  A background that is white in 8-bit colour is
## the page itself and is left out (attribution maps are mostly near 0).
function [scene, shown] = words_scene (words, maps, o)
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

  texts = struct ('x', {}, 'y', {}, 'str', {}, 'size', {}, 'weight', {}, 'angle', {}, 'rgb', {}, 'align', {});
  boxes = cell (1, nm + 1);
  rgb = cell (1, nm + 1);
  y = 12;
  for h = 1:numel (header)
    weight = 'normal';
    if (h == 1 && ! isempty (o.title)) weight = 'bold'; end
    texts(end+1) = text_of (20, y + lh / 2, header{h}, 10, weight, 'normal', [0 0 0], 'left');
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
      texts(end+1) = text_of (20, y + lh / 2, cap, 9, 'normal', 'italic', [0.25 0.25 0.25], 'left');
    end
    y += lh;
    if (n > 0)
      x0 = 20 + pos(:, 2)' * cw - 1;
      x1 = x0 + len * cw + 2;
      y0 = y + pos(:, 1)' * lh + 1;
      y1 = y0 + lh - 2;
      c = attr_colors (v);
      ink = any (round (255 * c) < 255, 2)';
      boxes{m} = [x0(ink); y0(ink); x1(ink); y1(ink)]';
      rgb{m} = c(ink, :);
      ## one text per line, not per word: the words of a line joined by
      ## single spaces sit on their backgrounds because the layout is a
      ## grid of monospaced characters (one space between words); a long
      ## text then costs its lines, not its words
      first = [1, find(diff (pos(:, 1)'))+1];
      last = [first(2:end) - 1, n];
      str = arrayfun (@(a, b) strjoin (words(a:b), ' '), first, last, 'uniformoutput', false);
      texts = [texts, text_of(num2cell (x0(first) + 1), num2cell ((y0(first) + y1(first)) / 2), str, 10, ...
                              'normal', 'normal', {[0 0 0]}, 'left')];
    end
    y += nl * lh + 0.3 * lh;
  end
  lines = struct ('x', {}, 'y', {}, 'rgb', {});
  if (o.colorbar)
    [boxes{end}, rgb{end}, lines, t] = colorbar (60, y + 0.4 * lh, min (320, Wpx - 80), o, scale(1));
    texts = [texts t];
  end
  scene = struct ('size', [Wpx Hpx], 'boxes', vertcat (zeros (0, 4), boxes{:}), ...
                  'rgb', vertcat (zeros (0, 3), rgb{:}), 'lines', lines, 'texts', texts, 'font', o.font);
end

## a text; with x, y and str cells of one size, a row of texts alike in the rest
function t = text_of (x, y, str, size, weight, angle, rgb, align)
  if (! iscell (str))
    str = {str};
  end
  if (! iscell (rgb))
    rgb = {rgb};
  end
  t = struct ('x', x, 'y', y, 'str', str, 'size', size, 'weight', weight, 'angle', angle, ...
              'rgb', rgb, 'align', align);
end

## A horizontal bar from -scale (blue) to +scale (red) with five ticks;
## with 'each' scale the ticks are fractions of each map's own maximum.
## The first label has room at x = 60.
function [boxes, rgb, lines, texts] = colorbar (x, y, w, o, scale)
  k = 101;
  e = linspace (x, x + w, k + 1);
  h = 12;
  boxes = [e(1:k); repmat(y, 1, k); e(2:k+1); repmat(y + h, 1, k)]';
  rgb = attr_colors (linspace (-1, 1, k));
  lines = struct ('x', [x x + w x + w x x], 'y', [y y y + h y + h y], 'rgb', [0.5 0.5 0.5]);
  texts = struct ('x', {}, 'y', {}, 'str', {}, 'size', {}, 'weight', {}, 'angle', {}, 'rgb', {}, 'align', {});
  for t = -1:0.5:1
    xt = x + (t + 1) / 2 * w;
    lines(end+1) = struct ('x', [xt xt], 'y', [y + h, y + h + 4], 'rgb', [0.3 0.3 0.3]);
    if (ischar (o.scale) && strcmp (o.scale, 'each'))
      lab = sprintf ('%g', t);
    else
      lab = sprintf ('%.3g', t * scale);
    end
    texts(end+1) = text_of (xt, y + h + 12, lab, 8, 'normal', 'normal', [0 0 0], 'center');
  end
  cap = 'attribution';
  if (ischar (o.scale) && strcmp (o.scale, 'each'))
    cap = 'attribution / the map''s maximum |value|';
  end
  texts(end+1) = text_of (x + w + 12, y + h / 2, cap, 8, 'normal', 'normal', [0.25 0.25 0.25], 'left');
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
