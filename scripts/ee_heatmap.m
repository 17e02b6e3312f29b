## -*- texinfo -*-
## @deftypefn  {} {} ee_heatmap (@var{file}, @var{x}, @var{vocab}, @var{top}, @var{bottom}, @dots{})
## Write a PNG heatmap of one sequence, as in Figures 1-4 of the paper.
##
## @var{x} is one row of token ids (1 x T int32), @var{vocab} the vocabulary
## cell; @var{top} and @var{bottom} are two attribution maps of @var{x}
## (1 x T; e.g. the expensive explainer's above, the Empirical Explainer's
## below; @var{bottom} may be empty).  Each token is drawn on a background
## coloured by its attribution: red positive, blue negative, white 0, each
## map normalised by its own maximum absolute value over the shown tokens.
## PAD tokens are not shown.
##
## Options: @qcode{'title'} (first line), @qcode{'class'} (a line above the
## maps, e.g. the target class), @qcode{'labels'} (cell of two captions for
## the maps), @qcode{'width'} (characters per line, default 100),
## @qcode{'font'} (default @qcode{'DejaVu Sans Mono'}).
## @seealso{ee_heatmap_html, figure5}
## @end deftypefn

function ee_heatmap (file, x, vocab, top, bottom, varargin)
  if (nargin < 4)
    print_usage ();
  end
  if (nargin < 5)
    bottom = [];
  end
  o = struct ('title', '', 'class', '', 'labels', {{'', ''}}, 'width', 100, ...
              'font', 'DejaVu Sans Mono');
  for k = 1:2:numel (varargin)
    if (! isfield (o, lower (varargin{k})))
      error ('ee:badInput', 'ee_heatmap: unknown option ''%s''', varargin{k});
    end
    o.(lower (varargin{k})) = varargin{k+1};
  end
  x = double (x(:)');
  keep = x != 1;                                  # PAD is not shown
  words = vocab(x(keep));
  maps = {top, bottom};
  maps = maps(! cellfun (@isempty, maps));
  W = o.width;

  ## token layout on a character grid: [line, column] of every token
  len = cellfun (@numel, words);
  pos = zeros (numel (words), 2);
  line = 0; col = 0;
  for i = 1:numel (words)
    if (col > 0 && col + len(i) > W)
      line++; col = 0;
    end
    pos(i, :) = [line col];
    col += len(i) + 1;
  end
  nl = line + 1;

  ## rows of the picture: header lines, then per map a caption and nl lines
  header = {};
  if (! isempty (o.title)) header{end+1} = o.title; end
  if (! isempty (o.class)) header{end+1} = o.class; end
  nrow = numel (header) + numel (maps) * (nl + 1.6) + 0.4;
  cw = 8.4; lh = 21;                              # pixels per character / line
  Wpx = round (W * cw + 40);
  Hpx = round (nrow * lh + 20);

  warning ('off', 'Octave:gnuplot-graphics', 'local');
  graphics_toolkit ('gnuplot');
  fig = figure ('visible', 'off', 'position', [0 0 Wpx Hpx], 'color', 'w', 'paperunits', 'inches', ...
                'paperposition', [0 0 Wpx Hpx] / 100, 'papersize', [Wpx Hpx] / 100);
  unwind_protect
    ax = axes ('position', [0 0 1 1], 'xlim', [0 Wpx], 'ylim', [0 Hpx], 'ydir', 'reverse', ...
               'visible', 'off');
    hold (ax, 'on');
    y = 12;
    for h = 1:numel (header)
      text (ax, 20, y + lh / 2, header{h}, 'fontname', o.font, 'fontsize', 10, ...
            'fontweight', choose (h == 1, 'bold', 'normal'), 'verticalalignment', 'middle');
      y += lh;
    end
    for m = 1:numel (maps)
      a = double (maps{m}(:)');
      a = a(keep);
      mx = max (abs (a));
      if (! (mx > 0)) mx = 1; end
      v = a / mx;
      y += 0.3 * lh;
      if (m <= numel (o.labels) && ! isempty (o.labels{m}))
        text (ax, 20, y + lh / 2, o.labels{m}, 'fontname', o.font, 'fontsize', 9, ...
              'fontangle', 'italic', 'color', [0.25 0.25 0.25], 'verticalalignment', 'middle');
      end
      y += lh;
      ## one patch for all backgrounds (faces coloured per token)
      nx = numel (words);
      x0 = 20 + pos(:, 2)' * cw - 1;
      x1 = x0 + len * cw + 2;
      y0 = y + pos(:, 1)' * lh + 1;
      y1 = y0 + lh - 2;
      c = attr_colors (v);
      patch (ax, [x0; x1; x1; x0], [y0; y0; y1; y1], reshape (c, [1 nx 3]), ...
             'edgecolor', 'none', 'facecolor', 'flat');
      for i = 1:nx
        text (ax, x0(i) + 1, (y0(i) + y1(i)) / 2, words{i}, 'fontname', o.font, 'fontsize', 10, ...
              'verticalalignment', 'middle', 'interpreter', 'none');
      end
      y += nl * lh + 0.3 * lh;
    end
    hold (ax, 'off');
    [d, b, e] = fileparts (file);
    tmp = fullfile (d, sprintf ('.%s.tmp%d%s', b, getpid (), e));
    print (fig, tmp, '-dpng', '-r150');
    [err, msg] = rename (tmp, file);
    if (err)
      error ('ee:ioError', 'ee_heatmap: cannot write %s: %s', file, msg);
    end
  unwind_protect_cleanup
    close (fig);
  end_unwind_protect
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

function r = choose (c, a, b)
  if (c) r = a; else r = b; end
end

%!test
%! f = [tempname() '.png'];
%! vocab = {'[PAD]', '[UNK]', '[CLS]', '[SEP]', 'good', 'bad', 'movie'};
%! x = int32 ([3 5 7 6 4 1 1]);
%! unwind_protect
%!   ee_heatmap (f, x, vocab, [0 1 0.2 -1 0 0 0], [0 0.5 0 -0.5 0 0 0], 'title', 'a test', ...
%!               'class', 'classified as: positive', 'labels', {'top', 'bottom'}, 'width', 40);
%!   img = imread (f);
%! unwind_protect_cleanup
%!   if (exist (f, 'file')) delete (f); end
%! end_unwind_protect
%! assert (size (img, 3), 3);
%! r = double (img(:, :, 1)); g = double (img(:, :, 2)); b = double (img(:, :, 3));
%! assert (any (r(:) > 230 & g(:) < 80 & b(:) < 80));     # a full red background
%! assert (any (b(:) > 230 & g(:) < 80 & r(:) < 80));     # a full blue background
%! assert (mean (r(:) > 240 & g(:) > 240 & b(:) > 240) > 0.5);   # mostly white
