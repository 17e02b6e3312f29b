## -*- texinfo -*-
## @deftypefn  {} {@var{files} =} ee_draw_figure (@var{outdir}, @var{name}, @var{W}, @var{H}, @var{draw})
## @deftypefnx {} {@var{files} =} ee_draw_figure (@dots{}, @var{exts})
## Draw a figure of @var{W} x @var{H} pixels (a page of @var{W}/100 x
## @var{H}/100 inches, white, invisible, gnuplot toolkit) by calling
## @code{@var{draw} (@var{fig})}, and write it with @code{ee_save_figure}
## to @var{outdir}/@var{name} with each extension of @var{exts} (default
## @code{@{'.png', '.pdf'@}}), creating @var{outdir} when it is missing.
## Returns the files written; the figure is closed however @var{draw} ends.
## The one set-up and saving of the figures of the scripts and examples.
## @seealso{ee_save_figure, ee_check_graphics}
## @end deftypefn

function files = ee_draw_figure (outdir, name, W, H, draw, exts)
  if (nargin < 5)
    print_usage ();
  end
  if (nargin < 6)
    exts = {'.png', '.pdf'};
  end
  me = 'ee_draw_figure';
  outdir = ee_check (me, 'OUTDIR', outdir, 'name');
  name = ee_check (me, 'NAME', name, 'name');
  W = ee_check (me, 'W', W, 'int', 1, 20000);
  H = ee_check (me, 'H', H, 'int', 1, 20000);
  if (! is_function_handle (draw))
    error ('ee:badInput', '%s: DRAW must be a function handle, got a %s', me, class (draw));
  end
  exts = ee_check (me, 'EXTS', exts, 'texts', []);
  ## gnuplot is the toolkit ee_save_figure draws with; its warning that it
  ## is discouraged is off until the files are written
  warning ('off', 'Octave:gnuplot-graphics', 'local');
  graphics_toolkit ('gnuplot');
  fig = figure ('visible', 'off', 'position', [0 0 W H], 'color', 'w', 'paperunits', 'inches', ...
                'paperposition', [0 0 W H] / 100, 'papersize', [W H] / 100);
  unwind_protect
    draw (fig);
    if (! exist (outdir, 'dir'))
      mkdir (outdir);
    end
    base = fullfile (outdir, name);
    files = cellfun (@(e) [base e], exts, 'uniformoutput', false);
    ee_save_figure (fig, files);
  unwind_protect_cleanup
    close (fig);
  end_unwind_protect
end

%!error <ee_draw_figure: W must be> ee_draw_figure (tempname (), 'x', 0, 10, @(f) 1)
%!error <ee_draw_figure: DRAW must be a function handle> ee_draw_figure (tempname (), 'x', 10, 10, 1)
%!test
%! if (! ee_check_graphics ())
%!   return;
%! end
%! d = tempname ();
%! unwind_protect
%!   n0 = numel (findall (0, 'type', 'figure'));
%!   files = ee_draw_figure (d, 'line', 200, 100, @(fig) plot ([1 2 3], [1 3 2]), {'.pdf', '.png'});
%!   assert (files, {fullfile(d, 'line.pdf'), fullfile(d, 'line.png')});
%!   info = imfinfo (files{2});
%!   assert ([info.Width info.Height], [600 300]);      # 2 x 1 inches at 300 dpi
%!   assert (numel (findall (0, 'type', 'figure')), n0); # closed
%!   ## closed too when draw fails, and nothing is written
%!   fail ('ee_draw_figure (d, ''bad'', 200, 100, @(fig) error (''my:id'', ''boom''))', 'boom');
%!   assert (numel (findall (0, 'type', 'figure')), n0);
%!   assert (isempty (dir (fullfile (d, 'bad*'))));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   if (exist (d, 'dir')) rmdir (d, 's'); end
%! end_unwind_protect

%!error <Invalid call> ee_draw_figure ('d', 'x', 1, 1)
