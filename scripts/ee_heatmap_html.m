## -*- texinfo -*-
## @deftypefn  {} {} ee_heatmap_html (@var{file}, @var{X}, @var{vocab}, @var{A}, @var{B}, @dots{})
## Write an HTML page with a heatmap of every row of @var{X}: the maps
## @var{A} (e.g. the expensive explainer's targets) and @var{B} (e.g. the
## Empirical Explainer's) stacked, each token a coloured span (red
## positive, blue negative, white 0; each map normalised by its own
## maximum absolute value per sequence), like the files that accompany the
## paper.  PAD tokens are not shown.
##
## Options: @qcode{'title'}; @qcode{'names'} (cell of two row captions,
## default @{'target', 'empirical'@}); @qcode{'classes'} (cell of class
## names), @qcode{'target'} (N x 1 explained class), @qcode{'labels'}
## (N x 1 true class); @qcode{'mse'} (N x 1, shown per sequence).
## @seealso{ee_heatmap, figure5}
## @end deftypefn

function ee_heatmap_html (file, X, vocab, A, B, varargin)
  if (nargin < 5)
    print_usage ();
  end
  who = 'ee_heatmap_html';
  o = struct ('title', 'Attribution maps', 'names', {{'target', 'empirical'}}, 'classes', {{}}, ...
              'target', [], 'labels', [], 'mse', []);
  o = ee_options (o, varargin, who);
  file = ee_check (who, 'FILE', file, 'file', {});
  vocab = ee_vocab_of (vocab, who);
  X = ee_check (who, 'X', X, 'ids', numel (vocab));
  N = rows (X);
  A = ee_check (who, 'A (the size of X)', A, 'reals', size (X));
  B = ee_check (who, 'B (the size of X)', B, 'reals', size (X));
  o.title = ee_check (who, '''title''', o.title, 'text');
  o.names = ee_check (who, '''names''', o.names, 'texts', 2);
  if (! isempty (o.classes))
    o.classes = ee_check (who, '''classes''', o.classes, 'texts', []);
  end
  K = numel (o.classes);
  if (K == 0)
    K = Inf;                          # no names: the classes are not shown
  end
  if (! isempty (o.target))
    o.target = ee_check (who, '''target''', o.target, 'indices', N, K);
  end
  if (! isempty (o.labels))
    o.labels = ee_check (who, '''labels''', o.labels, 'indices', N, K);
  end
  if (! isempty (o.mse))
    if (! ((isnumeric (o.mse) || islogical (o.mse)) && isreal (o.mse) && isvector (o.mse) && numel (o.mse) == N))
      error ('ee:badInput', 'ee_heatmap_html: ''mse'' must be %d real numbers (one per row of X)', N);
    end
    o.mse = double (o.mse(:));
  end
  ## escaped vocabulary, once
  ev = cellfun (@esc, vocab, 'uniformoutput', false);
  parts = cell (1, N + 2);
  parts{1} = sprintf (['<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>%s</title>\n' ...
    '<style>body{font-family:sans-serif;max-width:1100px;margin:1em auto;} ' ...
    '.seq{border-top:1px solid #ccc;padding:.5em 0;} .map{font-family:monospace;line-height:1.7;margin:.2em 0;} ' ...
    '.map span{padding:1px 2px;border-radius:2px;} .cap{color:#555;font-size:90%%;font-style:italic;} ' ...
    '.hd{font-size:90%%;}</style></head><body>\n<h2>%s</h2>\n' ...
    '<p>Each block: the sequence coloured by the first map (%s), then by the second (%s). ' ...
    'Red: positive, blue: negative; each map normalised by its maximum |value| per sequence. ' ...
    'Hover a token for its raw value.</p>\n'], esc (o.title), esc (o.title), esc (o.names{1}), esc (o.names{2}));
  for i = 1:N
    x = double (X(i, :));
    keep = find (x != 1);
    hd = sprintf ('<b>#%d</b>', i);
    if (! isempty (o.target) && ! isempty (o.classes))
      hd = [hd sprintf(' &middot; explained class: <b>%s</b>', esc (o.classes{o.target(i)}))];
    end
    if (! isempty (o.labels) && ! isempty (o.classes))
      hd = [hd sprintf(' &middot; true class: %s', esc (o.classes{o.labels(i)}))];
    end
    if (! isempty (o.mse))
      hd = [hd sprintf(' &middot; MSE(%s, %s) = %.4g', esc (o.names{2}), esc (o.names{1}), o.mse(i))];
    end
    rowtxt = {sprintf('<div class="seq"><div class="hd">%s</div>\n', hd)};
    maps = {A(i, :), B(i, :)};
    for m = 1:2
      a = double (maps{m}(keep));
      mx = max (abs (a));
      if (! (mx > 0)) mx = 1; end
      v = a / mx;
      s = 0.85 * abs (v);
      g = round (255 * (1 - s));
      r = 255 * ones (size (v)); b = r;
      r(v < 0) = g(v < 0);
      b(v > 0) = g(v > 0);
      g = g;
      spans = arrayfun (@(k) sprintf ('<span style="background:rgb(%d,%d,%d)" title="%.4g">%s</span>', ...
                                      r(k), g(k), b(k), a(k), ev{x(keep(k))}), ...
                        1:numel (keep), 'uniformoutput', false);
      rowtxt{end+1} = sprintf ('<div class="cap">%s</div><div class="map">%s</div>\n', ...
                               esc (o.names{m}), strjoin (spans, ' '));
    end
    rowtxt{end+1} = sprintf ('</div>\n');
    parts{i + 1} = [rowtxt{:}];
  end
  parts{N + 2} = sprintf ('</body></html>\n');
  ee_atomic_text (file, [parts{:}], 'ee_heatmap_html');
end

function t = esc (t)
  t = strrep (t, '&', '&amp;');
  t = strrep (t, '<', '&lt;');
  t = strrep (t, '>', '&gt;');
  t = strrep (t, '"', '&quot;');
end

%!test
%! f = [tempname() '.html'];
%! vocab = {'[PAD]', '[UNK]', '[CLS]', '[SEP]', 'a<b', 'c'};
%! X = int32 ([3 5 6 4 1 1; 3 6 4 1 1 1]);
%! A = single ([0 2 -2 0 0 0; 0 1 0 0 0 0]);
%! B = single ([0 1 1 0 0 0; 0 -3 0 0 0 0]);
%! unwind_protect
%!   ee_heatmap_html (f, X, vocab, A, B, 'classes', {'x', 'y'}, 'target', [2; 1], 'labels', [1; 1], ...
%!                    'mse', [0.5; 0.25], 'title', 'T & t');
%!   t = fileread (f);
%! unwind_protect_cleanup
%!   delete (f);
%! end_unwind_protect
%! assert (! isempty (strfind (t, 'a&lt;b')));          # escaped
%! assert (! isempty (strfind (t, 'T &amp; t')));
%! assert (isempty (strfind (t, '[PAD]')));             # pads are not shown
%! assert (numel (strfind (t, 'class="seq"')), 2);
%! assert (! isempty (strfind (t, 'rgb(255,38,38)')));  # the maximum: full red
%! assert (! isempty (strfind (t, 'rgb(38,38,255)')));  # the minimum: full blue
%! assert (! isempty (strfind (t, 'rgb(255,255,255)'))); # zero: white
%! assert (! isempty (strfind (t, 'explained class: <b>y</b>')));

%!error <size of X> ee_heatmap_html ([tempname() '.html'], int32 ([3 4]), {'[PAD]', '[UNK]', '[CLS]', '[SEP]'}, single (0), single (0))
%!shared V, X, A
%! V = {'[PAD]', '[UNK]', '[CLS]', '[SEP]', 'a', 'b'};
%! X = int32 ([3 5 6 4; 3 6 4 1]); A = zeros (2, 4);
%!error <X must hold token ids> ee_heatmap_html ('x.html', X + 5, V, A, A)
%!error <vocabulary> ee_heatmap_html ('x.html', X, 'abc', A, A)
%!error <pairs> ee_heatmap_html ('x.html', X, V, A, A, 'title')
%!error <'names'> ee_heatmap_html ('x.html', X, V, A, A, 'names', {'one'})
%!error <'target'> ee_heatmap_html ('x.html', X, V, A, A, 'classes', {'p', 'q'}, 'target', [1; 3])
%!error <'labels'> ee_heatmap_html ('x.html', X, V, A, A, 'classes', {'p', 'q'}, 'labels', [0; 1])
%!error <'mse'> ee_heatmap_html ('x.html', X, V, A, A, 'mse', [1 2 3])
%!error <'title'> ee_heatmap_html ('x.html', X, V, A, A, 'title', 7)
%!error <FILE> ee_heatmap_html (7, X, V, A, A)
