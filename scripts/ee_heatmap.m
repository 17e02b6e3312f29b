## -*- texinfo -*-
## @deftypefn  {} {} ee_heatmap (@var{file}, @var{x}, @var{vocab}, @var{top}, @var{bottom}, @dots{})
## @deftypefnx {} {@var{shown} =} ee_heatmap (@dots{})
## Write a heatmap of one sequence, as in Figures 1-4 of the paper.
##
## @var{x} is one row of token ids (1 x T); @var{vocab} the vocabulary cell
## or a model that carries it (@code{vocab_words}, see @code{ee_train});
## @var{top} and @var{bottom} are two attribution maps of @var{x} (1 x T;
## e.g. the expensive explainer's above, the Empirical Explainer's below;
## @var{bottom} may be empty).  Each word is drawn on a background coloured
## by its attribution: red positive, blue negative, white 0.  PAD tokens
## are not shown.
##
## @var{file} ends in @file{.png} (300 dpi, or less where a side would pass
## 32,000 pixels), @file{.pdf} (vector, fonts embedded) or @file{.svg}
## (vector, glyphs as outlines); a cell of names writes several formats of
## the one drawing.  The picture is drawn as one SVG drawing and converted
## by @command{rsvg-convert} (PDF, PNG) and @command{pdftocairo} (SVG from
## that PDF), not as a figure, whose boxes gnuplot draws one by one: a
## text costs about 0.3 s of CPU per 1,000 words for a PDF or SVG and, for
## a 300 dpi PNG, 1.6 s per 1,000 words (its pixels; less from about 5,000
## words on, where the resolution is capped) (@file{bench/heatmap.m}).  Each file is written under a temporary name and
## renamed, so a failed call leaves no file behind.  Errors:
## @code{ee:badInput}, @code{ee:noGraphics} (a converter missing: the Debian
## packages librsvg2-bin and poppler-utils, see
## @code{tools/install_deps.sh}), @code{ee:ioError}.
##
## Options:
## @table @asis
## @item 'title', 'class'
## header lines (e.g. the explained class).
## @item 'labels'
## cell of captions, one per map.
## @item 'scale'
## @qcode{'each'} (default): each map normalised by its own maximum |value|
## over the shown tokens; @qcode{'shared'}: one scale for both maps (their
## common maximum), so their colours compare; a positive number: that
## |value| is full colour (the same number across several heatmaps makes
## them comparable).
## @item 'colorbar'
## true (default): a colour bar under the maps with its values.
## @item 'text', 'info'
## show the words as written in the original text instead of the
## vocabulary's (so an @qcode{'[UNK]'} shows the word it replaced):
## @qcode{'text'} the text @var{x} was made from (it is tokenized again with
## @var{vocab} and must give @var{x}), or @qcode{'info'} the @var{info}
## output of @code{ee_tokenize} for that one text.
## @item 'specials'
## true (default) shows [CLS] and [SEP].
## @item 'width', 'font'
## characters per line (100), the font of the words (@qcode{'DejaVu Sans Mono'}).
## @end table
##
## The output @var{shown} has the words drawn (@code{words}) and the
## |value| that full colour stands for, per map (@code{scale}).
## @seealso{ee_heatmap_html, ee_plot_text, ee_check_graphics, ee_tokenize, figure5}
## @end deftypefn

function shown = ee_heatmap (file, x, vocab, top, bottom, varargin)
  if (nargin < 4)
    print_usage ();
  end
  if (nargin < 5)
    bottom = [];
  end
  who = 'ee_heatmap';
  o = struct ('title', '', 'class', '', 'labels', {{'', ''}}, 'width', 100, ...
              'font', 'DejaVu Sans Mono', 'scale', 'each', 'colorbar', true, 'text', [], ...
              'info', [], 'specials', true);
  o = ee_options (o, varargin, who);
  file = ee_check (who, 'FILE', file, 'files', {'.png', '.pdf', '.svg'});
  o.title = ee_check (who, '''title''', o.title, 'text');
  if (iscell (o.class))
    o.class = ee_check (who, '''class''', o.class, 'texts', []);
  else
    o.class = ee_check (who, '''class''', o.class, 'text');
  end
  if (! iscell (o.labels))
    o.labels = {o.labels};
  end
  o.labels = ee_check (who, '''labels''', o.labels, 'texts', []);
  o.width = ee_check (who, '''width''', o.width, 'int', 1, 10000);
  o.font = ee_check (who, '''font''', o.font, 'name');
  o.scale = scale_option (who, o.scale);
  o.colorbar = ee_check (who, '''colorbar''', o.colorbar, 'flag');
  o.specials = ee_check (who, '''specials''', o.specials, 'flag');
  vocab = ee_vocab_of (vocab, who);
  if (! (isnumeric (x) && isvector (x)))
    error ('ee:badInput', 'ee_heatmap: X must be one row of token ids');
  end
  x = ee_check (who, 'X', x(:)', 'ids', numel (vocab));
  words = ee_detokenize (vocab, x);
  words = words{1};
  if (! isempty (o.text) && ! isempty (o.info))
    error ('ee:badInput', 'ee_heatmap: give ''text'' or ''info'', not both');
  end
  if (! isempty (o.text))
    o.text = ee_check (who, '''text''', o.text, 'text');
    [xt, o.info] = ee_tokenize (vocab, o.text, 'T', max (3, numel (x)));
    if (! isequal (double (xt), x))
      error ('ee:badInput', 'ee_heatmap: ''text'' does not tokenize to X with this vocabulary');
    end
  end
  if (! isempty (o.info))
    if (! (isstruct (o.info) && isscalar (o.info) && isfield (o.info, 'text') && numel (o.info.text) == 1))
      error ('ee:badInput', 'ee_heatmap: ''info'' must be the info of ee_tokenize for one text');
    end
    words = ee_detokenize (vocab, x, o.info){1};
  end
  if (isempty (top))
    error ('ee:badInput', 'ee_heatmap: TOP must be a map of X (one number per token)');
  end
  keep = x != 1;                                   # PAD is not shown
  maps = {top, bottom};
  maps = maps(! cellfun (@isempty, maps));
  for m = 1:numel (maps)
    a = maps{m};
    if (! ((isnumeric (a) || islogical (a)) && isreal (a) && ! issparse (a) && numel (a) == numel (x) && all (isfinite (a(:)))))
      error ('ee:badInput', 'ee_heatmap: each map must be %d finite numbers (one per token of X)', numel (x));
    end
    maps{m} = double (a(:)')(keep);
  end
  if (! o.specials)
    real = ! ismember (x(keep), [3 4]);
    words = words(real);
    maps = cellfun (@(a) a(real), maps, 'uniformoutput', false);
  end
  ## drawn as SVG and converted, not as a figure: gnuplot draws a figure's
  ## boxes one by one (a 10,000-word text took minutes), and the same
  ## drawing costs rsvg-convert a fraction of a second
  [scene, s] = words_scene (words, maps, o);
  [svg, pt] = scene_svg (scene);
  save_svg (svg, pt, file, 300, who);
  if (nargout > 0)
    shown = struct ('words', {words}, 'scale', s.scale);
  end
end

%!shared vocab, x
%! vocab = {'[PAD]', '[UNK]', '[CLS]', '[SEP]', 'good', 'bad', 'movie'};
%! x = int32 ([3 5 7 6 4 1 1]);

%!test
%! f = [tempname() '.png'];
%! unwind_protect
%!   ee_heatmap (f, x, vocab, [0 1 0.2 -1 0 0 0], [0 0.5 0 -0.5 0 0 0], 'title', 'a test', ...
%!               'class', 'classified as: positive', 'labels', {'top', 'bottom'}, 'width', 40);
%!   img = imread (f);
%!   info = imfinfo (f);
%! unwind_protect_cleanup
%!   if (exist (f, 'file')) delete (f); end
%! end_unwind_protect
%! assert (size (img, 3), 3);
%! r = double (img(:, :, 1)); g = double (img(:, :, 2)); b = double (img(:, :, 3));
%! assert (any (r(:) > 230 & g(:) < 80 & b(:) < 80));     # a full red background
%! assert (any (b(:) > 230 & g(:) < 80 & r(:) < 80));     # a full blue background
%! assert (mean (r(:) > 240 & g(:) > 240 & b(:) > 240) > 0.5);   # mostly white
%! ## 300 dpi: the page is 100 px per inch of layout, so 3 pixels per layout pixel
%! assert (info.Width, round (3 * (60 * 8.4 + 40)), 4);
%! ## the colour bar: a row running from blue through white to red
%! row = find (sum (r > 200 & g < 80 & b < 80, 2) > 0 & sum (b > 200 & g < 80 & r < 80, 2) > 0);
%! assert (! isempty (row));

%!test
%! ## vector formats (one drawing, three files), the shared scale, a model as vocabulary
%! d = tempname (); mkdir (d);
%! m = struct ('vocab_words', {vocab});
%! unwind_protect
%!   f = fullfile (d, {'h.pdf', 'h.svg', 'h.png'});
%!   s = ee_heatmap (f, x, m, [0 2 0 -1 0 0 0], [0 0.5 0 0 0 0 0], 'scale', 'shared');
%!   assert (s.scale, [2 2]);
%!   fid = fopen (f{1}); assert (fread (fid, [1 5], 'char=>char'), '%PDF-'); fclose (fid);
%!   assert (! isempty (strfind (fileread (f{2}), '<svg')));
%!   s = ee_heatmap (f{3}, x, vocab, [0 2 0 -1 0 0 0], [0 0.5 0 0 0 0 0]);
%!   assert (s.scale, [2 0.5]);
%!   s = ee_heatmap (f{3}, x, vocab, [0 2 0 -1 0 0 0], [], 'scale', 4, 'colorbar', false);
%!   assert (s.scale, 4);
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   rmdir (d, 's');
%! end_unwind_protect

%!test
%! ## the original words: [UNK] shows what it replaced
%! f = [tempname() '.png'];
%! txt = "Good MOVIE, na\xc3\xafve!";
%! [X, info] = ee_tokenize (vocab, txt);
%! unwind_protect
%!   s = ee_heatmap (f, X, vocab, rand (size (X)), [], 'text', txt);
%!   assert (s.words, {'[CLS]', 'Good', 'MOVIE', "na\xc3\xafve", '!', '[SEP]'});
%!   s = ee_heatmap (f, X, vocab, rand (size (X)), [], 'info', info, 'specials', false);
%!   assert (s.words, {'Good', 'MOVIE', "na\xc3\xafve", '!'});
%!   s = ee_heatmap (f, X, vocab, rand (size (X)));
%!   assert (s.words, {'[CLS]', 'good', 'movie', '[UNK]', '[UNK]', '[SEP]'});
%! unwind_protect_cleanup
%!   if (exist (f, 'file')) delete (f); end
%! end_unwind_protect

%!test
%! ## the three files of one drawing: the PNG records its 300 dpi, the PDF
%! ## embeds its fonts and has the words as text (markup characters and a
%! ## control character in words and title drawn, not read as SVG), the
%! ## SVG is pdftocairo's (glyphs as outlines, the page in points)
%! d = tempname (); mkdir (d);
%! V = {'[PAD]', '[UNK]', '[CLS]', '[SEP]', 'a<b', 'x&y', '"q"', "caf\xc3\xa9"};
%! unwind_protect
%!   f = fullfile (d, {'h.png', 'h.pdf', 'h.svg'});
%!   ee_heatmap (f, [3 5 6 7 8 4 1], V, [0 1 -1 0.5 0 0 0], [], 'title', ["t <&>" char(1) "z"], 'width', 30);
%!   info = imfinfo (f{1});
%!   assert (info.ResolutionUnit, 'Centimeter');
%!   assert ([info.XResolution info.YResolution], [300 300] / 2.54, 0.01);
%!   assert (info.Width, round (300 / 72 * floor (0.72 * (60 * 8.4 + 40))), 1);
%!   [st, fonts] = system (sprintf ('pdffonts %s', f{2}));
%!   assert (st, 0);
%!   assert (! isempty (regexp (fonts, 'DejaVuSansMono-Bold\s.*\syes\s+yes', 'once')), fonts);
%!   assert (! isempty (regexp (fonts, 'DejaVuSansMono\s.*\syes\s+yes', 'once')), fonts);
%!   [st, txt] = system (sprintf ('pdftotext -raw %s -', f{2}));
%!   assert (st, 0);
%!   assert (! isempty (strfind (txt, "[CLS] a<b x&y \"q\" caf\xc3\xa9 [SEP]")), txt);
%!   assert (! isempty (strfind (txt, "t <&>\xef\xbf\xbdz")), txt);
%!   svg = fileread (f{3});
%!   assert (! isempty (regexp (svg, '<svg [^>]*width="\d+pt"', 'once')));
%!   assert (! isempty (strfind (svg, '<use xlink:href="#glyph')));
%!   assert (isempty (strfind (svg, '<text')));
%!   left = dir (d);
%!   assert (sort ({left.name}), {'.', '..', 'h.pdf', 'h.png', 'h.svg'});
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   rmdir (d, 's');
%! end_unwind_protect

%!test
%! ## rsvg-convert fails after writing part of its file, or is missing: an
%! ## ee: error, and no file left behind, temporary ones included
%! d = tempname (); mkdir (d); bin = fullfile (d, 'bin'); mkdir (bin); tmp = fullfile (d, 'tmp'); mkdir (tmp);
%! fid = fopen (fullfile (bin, 'rsvg-convert'), 'w');
%! fprintf (fid, '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done\necho half > "$out"\necho broken >&2; exit 1\n');
%! fclose (fid); system (sprintf ('chmod +x %s', fullfile (bin, 'rsvg-convert')));
%! path0 = getenv ('PATH'); tmp0 = getenv ('TMPDIR');
%! unwind_protect
%!   setenv ('PATH', [bin ':' path0]); setenv ('TMPDIR', tmp);
%!   for f = {'a.png', 'a.pdf', 'a.svg', {'a.png', 'a.pdf'}}
%!     try
%!       ee_heatmap (fullfile (d, f{1}), x, vocab, [0 1 0.2 -1 0 0 0]);
%!       error ('no error');
%!     catch err
%!       assert (err.identifier, 'ee:ioError');
%!       assert (! isempty (strfind (err.message, 'broken')), err.message);
%!     end
%!     left = dir (d);
%!     assert (sort ({left.name}), {'.', '..', 'bin', 'tmp'});
%!     assert (numel (dir (tmp)), 2);
%!   end
%!   setenv ('PATH', '/nonexistent');
%!   fail ('ee_heatmap (fullfile (d, ''a.png''), x, vocab, [0 1 0.2 -1 0 0 0])', 'librsvg2-bin');
%! unwind_protect_cleanup
%!   setenv ('PATH', path0); setenv ('TMPDIR', tmp0);
%!   confirm_recursive_rmdir (false, 'local');
%!   rmdir (d, 's');
%! end_unwind_protect

%!error <Invalid call> ee_heatmap ('x.png', [3 4])
%!error id=ee:badInput ee_heatmap ('x.png', x, vocab, [1 2])
%!error id=ee:badInput ee_heatmap ('x.png', x, vocab, [0 NaN 0 0 0 0 0])
%!error id=ee:badInput ee_heatmap ('x.jpg', x, vocab, zeros (1, 7))
%!error id=ee:badInput ee_heatmap ('x.png', x, vocab, zeros (1, 7), [], 'scale', 'global')
%!error id=ee:badInput ee_heatmap ('x.png', x, vocab, zeros (1, 7), [], 'nosuch', 1)
%!error id=ee:badInput ee_heatmap ('x.png', x, vocab, zeros (1, 7), [], 'text', 'bad good movie')
%!error id=ee:badInput ee_heatmap ('x.png', x, vocab(2:end), zeros (1, 7))
%!error id=ee:badModel ee_heatmap ('x.png', x, struct ('kind', 'cnn'), zeros (1, 7))
%!error <'width'> ee_heatmap ('x.png', x, vocab, zeros (1, 7), [], 'width', Inf)
%!error <'width'> ee_heatmap ('x.png', x, vocab, zeros (1, 7), [], 'width', '40')
%!error <'width'> ee_heatmap ('x.png', x, vocab, zeros (1, 7), [], 'width', [40 50])
%!error <'colorbar'> ee_heatmap ('x.png', x, vocab, zeros (1, 7), [], 'colorbar', NaN)
%!error <'font'> ee_heatmap ('x.png', x, vocab, zeros (1, 7), [], 'font', 12)
%!error <'title'> ee_heatmap ('x.png', x, vocab, zeros (1, 7), [], 'title', 12)
%!error <UTF-8> ee_heatmap (char ([120 255 46 112 110 103]), x, vocab, zeros (1, 7))
%!error <NUL> ee_heatmap (['x' char(0) '.png'], x, vocab, zeros (1, 7))
