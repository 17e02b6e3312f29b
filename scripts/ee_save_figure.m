## -*- texinfo -*-
## @deftypefn  {} {} ee_save_figure (@var{fig}, @var{file})
## @deftypefnx {} {} ee_save_figure (@var{fig}, @{@var{file1}, @var{file2}, @dots{}@})
## @deftypefnx {} {} ee_save_figure (@dots{}, 'dpi', @var{dpi})
## Write a figure for publication, in the format its file name ends with.
##
## @table @asis
## @item .pdf
## vector PDF drawn by gnuplot's cairo terminal, fonts embedded (subsets);
## @item .svg
## vector SVG converted from that PDF by poppler's @command{pdftocairo}: the
## glyphs are embedded as outlines, so it looks the same everywhere;
## @item .png
## the same drawing rendered at @qcode{'dpi'} (default 300) dots per inch,
## the resolution recorded in the file; a page so long that a side would
## exceed 32,000 pixels (cairo's limit is 32,767) is rendered at the
## resolution that fits (a heatmap of thousands of words).
## @end table
##
## All formats come from one drawing, so they agree.  The page is the
## figure's paper size: the width and height of @qcode{'paperposition'}
## (in inches) when @qcode{'paperpositionmode'} is @qcode{'manual'}, else
## the figure's @qcode{'position'} at 100 pixels per inch; the figure's
## paper settings are restored afterwards.  Font sizes are points on that
## page (a 10 pt word is 10 pt in the PDF).  Draw the figure with the
## gnuplot toolkit (@code{graphics_toolkit ('gnuplot')} before
## @code{figure}); set font sizes in points.  Each file is written under a
## temporary name and renamed, so an interrupted run leaves no half file.
##
## Errors: @code{ee:badInput} (not a figure, unknown extension),
## @code{ee:noGraphics} (gnuplot with cairo, or poppler-utils, missing:
## @code{tools/install_deps.sh} installs them), @code{ee:ioError}.
## @seealso{ee_check_graphics, ee_heatmap, ee_plot_text}
## @end deftypefn

function ee_save_figure (fig, files, varargin)
  if (nargin < 2)
    print_usage ();
  end
  if (! (isnumeric (fig) && isreal (fig) && isscalar (fig) && ishghandle (fig) && strcmp (get (fig, 'type'), 'figure')))
    error ('ee:badInput', 'ee_save_figure: FIG must be a figure handle');
  end
  who = 'ee_save_figure';
  o = ee_options (struct ('dpi', 300), varargin, who);
  dpi = ee_check (who, '''dpi''', o.dpi, 'number', 10, 2400);
  files = ee_check (who, 'FILE', files, 'files', {'.pdf', '.svg', '.png'});
  ext = cellfun (@(f) lower (f(find (f == '.', 1, 'last'):end)), files, 'uniformoutput', false);
  if (! any (strcmp (available_graphics_toolkits (), 'gnuplot')) ...
      || ! strcmp (get (fig, '__graphics_toolkit__'), 'gnuplot'))
    error ('ee:noGraphics', ['ee_save_figure: the figure must be drawn with the gnuplot toolkit ' ...
                             '(graphics_toolkit (''gnuplot'') before figure; Debian package gnuplot-nox)']);
  end
  need_poppler = any (! strcmp (ext, '.pdf'));
  if (need_poppler && ! have_program ('pdftocairo'))
    error ('ee:noGraphics', ['ee_save_figure: pdftocairo not found: SVG and PNG are converted from the ' ...
                             'PDF by it; install the Debian package poppler-utils (tools/install_deps.sh)']);
  end

  ## one page of the figure's size, in inches
  props = {'paperunits', 'papersize', 'paperposition', 'paperpositionmode'};
  saved = get (fig, props);
  tmp = [tempname() '.pdf'];
  unwind_protect
    set (fig, 'paperunits', 'inches');
    if (strcmp (saved{4}, 'manual'))
      pp = get (fig, 'paperposition');
      wh = pp(3:4);
    else
      pos = get (fig, 'position');
      wh = pos(3:4) / 100;
    end
    set (fig, 'papersize', wh, 'paperposition', [0 0 wh]);
    ## gnuplot's cairo terminal draws text at 2/3 of the size Octave asks
    ## for (as its EPS terminal draws half, which Octave's print doubles):
    ## scale every font size by 3/2 meanwhile, so that points are points
    h = findall (fig, '-property', 'fontsize');
    fs = get (h, 'fontsize');
    if (! iscell (fs)) fs = {fs}; end
    unwind_protect
      set (h, {'fontsize'}, cellfun (@(v) 1.5 * v, fs, 'uniformoutput', false));
      draw_pdf (fig, tmp);
    unwind_protect_cleanup
      set (h, {'fontsize'}, fs);
    end_unwind_protect
    r = min (dpi, floor (32000 / max (wh)));     # cairo draws at most 32767 pixels a side
    save_formats (files, @(part, ext, out) convert (tmp, part, ext, out, r, who), who);
  unwind_protect_cleanup
    if (exist (tmp, 'file'))
      unlink (tmp);
    end
    set (fig, 'paperunits', saved{1});
    set (fig, 'papersize', saved{2}, 'paperposition', saved{3}, 'paperpositionmode', saved{4});
  end_unwind_protect
end

## the PDF drawn by gnuplot as the file PART in format EXT (on its way to OUT)
function convert (pdf, part, ext, out, dpi, who)
  switch (ext)
    case {'.pdf', '.svg'}
      pdf_as (pdf, part, ext, out, who);
    case '.png'
      ## pdftocairo adds the extension itself
      stem = part(1:end-4);
      run_tool ({'pdftocairo', '-png', '-singlefile', '-r', sprintf('%g', dpi), pdf, stem}, out, who);
      if (! strcmp (part(end-3:end), '.png'))
        movefile ([stem '.png'], part);
      end
  end
end

function draw_pdf (fig, file)
  ## gnuplot's cairo terminal: vector output with embedded font subsets
  [st, txt] = system (sprintf ('%s -e "set terminal pdfcairo" 2>&1', gnuplot_binary ()));
  if (st != 0 || ! isempty (strtrim (txt)))
    error ('ee:noGraphics', ['ee_save_figure: this gnuplot has no pdfcairo terminal; install the ' ...
                             'Debian package gnuplot-nox (tools/install_deps.sh)']);
  end
  try
    print (fig, file, '-dpdfcairo');
  catch err
    error ('ee:noGraphics', 'ee_save_figure: gnuplot could not draw the figure: %s', err.message);
  end
  fid = fopen (file, 'r');
  head = '';
  if (fid >= 0)
    head = fread (fid, [1 5], 'char=>char');
    fclose (fid);
  end
  if (! strcmp (head, '%PDF-'))
    error ('ee:noGraphics', 'ee_save_figure: gnuplot wrote no PDF (is gnuplot-nox installed and working?)');
  end
end

%!test
%! ## every format, with the bytes each format starts with, the PNG at 300 dpi
%! warning ('off', 'Octave:gnuplot-graphics', 'local');
%! graphics_toolkit ('gnuplot');
%! d = tempname (); mkdir (d);
%! fig = figure ('visible', 'off', 'position', [0 0 200 100]);
%! unwind_protect
%!   plot ([1 2 3], [1 3 2]); title ('ee\_save\_figure');
%!   f = fullfile (d, {'a.pdf', 'a.svg', 'a.png'});
%!   ee_save_figure (fig, f);
%!   ee_save_figure (fig, fullfile (d, 'b.png'), 'dpi', 100);
%!   fid = fopen (f{1}); assert (fread (fid, [1 5], 'uint8=>char'), '%PDF-'); fclose (fid);
%!   assert (! isempty (strfind (fileread (f{2}), '<svg')));
%!   fid = fopen (f{3}); assert (fread (fid, [1 4], 'uint8=>char'), [char(137) 'PNG']); fclose (fid);
%!   info = imfinfo (f{3});
%!   assert ([info.Width info.Height], [600 300]);      # 2 x 1 inches at 300 dpi
%!   info = imfinfo (fullfile (d, 'b.png'));
%!   assert ([info.Width info.Height], [200 100]);
%!   ## the figure's paper settings are restored
%!   assert (get (fig, 'paperpositionmode'), 'auto');
%!   assert (isempty (dir (fullfile (d, '.*tmp*'))));
%! unwind_protect_cleanup
%!   close (fig);
%!   confirm_recursive_rmdir (false, 'local');
%!   rmdir (d, 's');
%! end_unwind_protect

%!test
%! ## font sizes are points on the page: ten characters of 10 pt DejaVu Sans
%! ## Mono (advance 0.602 em) are 60 pt wide in the PDF
%! graphics_toolkit ('gnuplot');
%! f = [tempname() '.pdf'];
%! fig = figure ('visible', 'off', 'position', [0 0 400 100]);
%! unwind_protect
%!   axes ('position', [0 0 1 1], 'visible', 'off', 'xlim', [0 400], 'ylim', [0 100]);
%!   h = text (10, 50, 'MMMMMMMMMM', 'fontname', 'DejaVu Sans Mono', 'fontsize', 10);
%!   ee_save_figure (fig, f);
%!   assert (get (h, 'fontsize'), 10);                  # restored
%!   [st, out] = system (sprintf ('pdftotext -bbox %s -', f));
%!   t = regexp (out, 'xMin="([\d.]+)"[^>]*xMax="([\d.]+)"[^>]*>MMMMMMMMMM<', 'tokens', 'once');
%!   assert (st, 0);
%!   assert (diff (str2double (t)), 60.2, 2);
%! unwind_protect_cleanup
%!   close (fig);
%!   if (exist (f, 'file')) delete (f); end
%! end_unwind_protect

%!error <Invalid call> ee_save_figure ()
%!error id=ee:badInput ee_save_figure (0, 'x.pdf')
%!error id=ee:badInput ee_save_figure (-1, 'x.pdf')
%!test
%! graphics_toolkit ('gnuplot');
%! fig = figure ('visible', 'off');
%! unwind_protect
%!   fail ('ee_save_figure (fig, ''x.jpg'')', 'must end in .pdf, .svg, .png');
%!   fail ('ee_save_figure (fig, {''x.pdf'', 3})', 'FILE\{2\} must be a file name');
%!   fail ('ee_save_figure (fig, ''x.pdf'', ''dpi'', 0)', 'dpi');
%!   fail ('ee_save_figure (fig, ''x.pdf'', ''dpi'', NaN)', 'dpi');
%!   fail ('ee_save_figure (fig, ''x.pdf'', ''size'', 3)', 'unknown option');
%!   fail ('ee_save_figure (fig, ''x.pdf'', ''dpi'')', 'pairs');
%!   fail ('ee_save_figure (fig, [''x'' char(0) ''.pdf''])', 'NUL');
%!   fail ('ee_save_figure (fig, char ([120 255 46 112 100 102]))', 'UTF-8');
%! unwind_protect_cleanup
%!   close (fig);
%! end_unwind_protect

%!test
%! ## pdftocairo fails after writing part of its file: no file stays behind
%! graphics_toolkit ('gnuplot');
%! d = tempname (); mkdir (d); bin = fullfile (d, 'bin'); mkdir (bin);
%! fid = fopen (fullfile (bin, 'pdftocairo'), 'w');
%! ## like pdftocairo, -png adds the extension to the name it is given
%! fprintf (fid, '#!/bin/sh\nx=\nfor a; do last=$a; [ "$a" = -png ] && x=.png; done\necho half > "$last$x"\necho broken >&2; exit 1\n');
%! fclose (fid); system (sprintf ('chmod +x %s', fullfile (bin, 'pdftocairo')));
%! path0 = getenv ('PATH');
%! fig = figure ('visible', 'off', 'position', [0 0 200 100]);
%! unwind_protect
%!   plot ([1 2], [1 2]);
%!   setenv ('PATH', [bin ':' path0]);
%!   for f = {'a.png', 'a.svg'}
%!     try
%!       ee_save_figure (fig, fullfile (d, f{1}));
%!       error ('no error');
%!     catch err
%!       assert (err.identifier, 'ee:ioError');
%!     end
%!     left = dir (d);
%!     assert (sort ({left.name}), {'.', '..', 'bin'});
%!   end
%! unwind_protect_cleanup
%!   setenv ('PATH', path0);
%!   close (fig);
%!   confirm_recursive_rmdir (false, 'local');
%!   rmdir (d, 's');
%! end_unwind_protect
