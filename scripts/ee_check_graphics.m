## -*- texinfo -*-
## @deftypefn  {} {} ee_check_graphics ()
## @deftypefnx {} {[@var{ok}, @var{msg}] =} ee_check_graphics ()
## Check that this machine can write the project's figures, before long
## work.
##
## Draws a small figure with the fonts the figures use (DejaVu Sans, and
## DejaVu Sans Mono for the words of heatmaps) and writes it as PNG, PDF
## and SVG through @code{ee_save_figure}, then a small picture of words as
## @code{ee_heatmap} and @code{ee_plot_text} write theirs (an SVG drawing
## converted by @command{rsvg-convert}), and checks each file: its format,
## the PNG's size at 300 dpi, and that the PDF embeds the fonts.  Without
## outputs a failure is an @code{ee:noGraphics} error whose message names
## what is missing and the Debian package that brings it (all of them are
## installed by @code{tools/install_deps.sh}); with outputs it returns
## @var{ok} (logical) and @var{msg} instead.  Takes about a second.
## @seealso{ee_save_figure, main_job}
## @end deftypefn

function [ok, msg] = ee_check_graphics ()
  msg = '';
  try
    check ();
  catch err
    msg = err.message;
    if (nargout == 0)
      if (strncmp (err.identifier, 'ee:', 3))
        error (err.identifier, '%s', msg);
      end
      error ('ee:noGraphics', 'ee_check_graphics: %s', msg);
    end
  end
  ok = isempty (msg);
end

function check ()
  tools = {'gnuplot', 'gnuplot-nox'; 'pdftocairo', 'poppler-utils'; 'pdffonts', 'poppler-utils'; ...
           'rsvg-convert', 'librsvg2-bin'};
  for k = 1:rows (tools)
    if (system (sprintf ('command -v %s >/dev/null 2>&1', tools{k, 1})) != 0)
      error ('ee:noGraphics', ['ee_check_graphics: %s not found: install the Debian package %s ' ...
                               '(tools/install_deps.sh installs everything the figures need)'], ...
             tools{k, 1}, tools{k, 2});
    end
  end
  warning ('off', 'Octave:gnuplot-graphics', 'local');
  graphics_toolkit ('gnuplot');
  d = tempname ();
  mkdir (d);
  fig = figure ('visible', 'off', 'position', [0 0 240 120], 'color', 'w');
  unwind_protect
    axes ('position', [0 0 1 1], 'visible', 'off', 'xlim', [0 1], 'ylim', [0 1]);
    patch ([0.1 0.9 0.9 0.1], [0.1 0.1 0.4 0.4], [0.9 0.3 0.3], 'edgecolor', 'none');
    text (0.1, 0.7, 'Sans 123', 'fontname', 'DejaVu Sans', 'fontsize', 12);
    text (0.1, 0.25, 'mono', 'fontname', 'DejaVu Sans Mono', 'fontsize', 12);
    f = fullfile (d, {'check.png', 'check.pdf', 'check.svg'});
    ee_save_figure (fig, f);
    ## 2.4 x 1.2 inches at 300 dpi (the PDF page is rounded to whole points)
    check_files (f, [720 360], {'DejaVuSans', 'DejaVuSansMono'});
    ## the words' pictures (ee_heatmap, ee_plot_text) are drawn as SVG and
    ## converted by rsvg-convert
    o = struct ('title', 'check', 'class', '', 'labels', {{''}}, 'width', 20, 'font', 'DejaVu Sans Mono', ...
                'scale', 'each', 'colorbar', false);
    [svg, pt] = scene_svg (words_scene ({'mono', 'words'}, {[1 -1]}, o));
    f = fullfile (d, {'words.png', 'words.pdf', 'words.svg'});
    save_svg (svg, pt, f, 300, 'ee_check_graphics');
    check_files (f, pt / 72 * 300, {'DejaVuSansMono'});
  unwind_protect_cleanup
    close (fig);
    confirm_recursive_rmdir (false, 'local');
    rmdir (d, 's');
  end_unwind_protect
end

## f: a PNG, a PDF and an SVG of one drawing; wh: the PNG's size in pixels
## at 300 dpi (within 4); fonts: the fonts the PDF must embed
function check_files (f, wh, fonts_wanted)
  b = read_head (f{1}, 8);
  if (! isequal (b(1:4), [137 80 78 71]))
    error ('ee:noGraphics', 'ee_check_graphics: the PNG written is not a PNG');
  end
  info = imfinfo (f{1});
  if (abs (info.Width - wh(1)) > 4 || abs (info.Height - wh(2)) > 4)
    error ('ee:noGraphics', 'ee_check_graphics: the PNG is %dx%d pixels, not about %dx%d', ...
           info.Width, info.Height, round (wh));
  end
  if (! strcmp (char (read_head (f{2}, 5)), '%PDF-'))
    error ('ee:noGraphics', 'ee_check_graphics: the PDF written is not a PDF');
  end
  if (isempty (strfind (fileread (f{3}), '<svg')))
    error ('ee:noGraphics', 'ee_check_graphics: the SVG written is not an SVG');
  end
  [st, txt] = system (sprintf ('pdffonts %s 2>&1', f{2}));
  if (st != 0)
    error ('ee:noGraphics', 'ee_check_graphics: pdffonts failed: %s', txt);
  end
  fonts = strsplit (strtrim (txt), "\n")(3:end);        # after the two header lines
  names = regexprep (fonts, '^\S+\+|\s.*$', '');          # subset prefix and columns off
  if (isempty (fonts))
    error ('ee:noGraphics', ['ee_check_graphics: the PDF has no text (no font was found): install the ' ...
                             'Debian package fonts-dejavu-core (tools/install_deps.sh)']);
  end
  if (any (cellfun (@isempty, regexp (fonts, '\syes\s+(yes|no)\s+(yes|no)\s'))))
    error ('ee:noGraphics', 'ee_check_graphics: the PDF does not embed its fonts:\n%s', txt);
  end
  for want = fonts_wanted
    if (! any (strcmp (names, want{1})))
      error ('ee:noGraphics', ['ee_check_graphics: font %s missing (the PDF has %s): install the ' ...
                               'Debian package fonts-dejavu-core (tools/install_deps.sh)'], ...
             want{1}, strjoin (names, ', '));
    end
  end
end

function b = read_head (file, n)
  fid = fopen (file, 'r');
  if (fid < 0)
    error ('ee:noGraphics', 'ee_check_graphics: %s was not written', file);
  end
  b = fread (fid, [1 n], 'uint8=>double');
  fclose (fid);
end

## Drawing must work on every machine the tests run on: a failure here is a
## failure, never a skip (tools/install_deps.sh brings what is needed).
%!test
%! ee_check_graphics ();
%! [ok, msg] = ee_check_graphics ();
%! assert (ok);
%! assert (msg, '');

## A machine without the tools: each is named with its package.
%!test
%! d = tempname (); mkdir (d);
%! old = getenv ('PATH');
%! unwind_protect
%!   [~, p] = system ('command -v pdftocairo');
%!   pdftocairo = strtrim (p);
%!   for t = {'gnuplot', 'pdffonts', 'sh'}
%!     [~, p] = system (sprintf ('command -v %s', t{1}));
%!     symlink (strtrim (p), fullfile (d, t{1}));
%!   end
%!   setenv ('PATH', d);                       # gnuplot and pdffonts, no pdftocairo
%!   [ok, msg] = ee_check_graphics ();
%!   assert (! ok);
%!   assert (! isempty (strfind (msg, 'pdftocairo')) && ! isempty (strfind (msg, 'poppler-utils')), msg);
%!   symlink (pdftocairo, fullfile (d, 'pdftocairo'));
%!   [ok, msg] = ee_check_graphics ();        # all but rsvg-convert
%!   assert (! ok);
%!   assert (! isempty (strfind (msg, 'rsvg-convert')) && ! isempty (strfind (msg, 'librsvg2-bin')), msg);
%!   setenv ('PATH', '/nonexistent');
%!   fail ('ee_check_graphics ()', 'gnuplot-nox');
%! unwind_protect_cleanup
%!   setenv ('PATH', old);
%!   confirm_recursive_rmdir (false, 'local');
%!   rmdir (d, 's');
%! end_unwind_protect

## Missing fonts are found too (fontconfig without any font directory).
%!test
%! d = tempname (); mkdir (d);
%! conf = fullfile (d, 'fonts.conf');
%! fid = fopen (conf, 'w');
%! fprintf (fid, '<?xml version="1.0"?>\n<fontconfig><cachedir>%s</cachedir></fontconfig>\n', d);
%! fclose (fid);
%! old = getenv ('FONTCONFIG_FILE');
%! unwind_protect
%!   setenv ('FONTCONFIG_FILE', conf);
%!   [ok, msg] = ee_check_graphics ();
%!   assert (! ok);
%!   assert (! isempty (strfind (msg, 'fonts-dejavu-core')), msg);
%! unwind_protect_cleanup
%!   if (isempty (old)) unsetenv ('FONTCONFIG_FILE'); else setenv ('FONTCONFIG_FILE', old); end
%!   confirm_recursive_rmdir (false, 'local');
%!   rmdir (d, 's');
%! end_unwind_protect
