## [fig, shown] = ee_draw_words (words, maps, o): the picture of words on
## backgrounds coloured by attribution maps (words_scene) drawn as a
## figure, for the screen (ee_plot_text without 'file'); files are written
## from the same scene as SVG (scene_svg, save_svg), which is much faster
## than a figure for long texts.
##
## o: the fields of words_scene, and visible (logical), toolkit ('' keeps
## the current one).  Returns the figure and shown.scale.  The axes are the
## page in pixels at 100 per inch (ee_save_figure's page size), fonts in
## points.
function [fig, shown] = ee_draw_words (words, maps, o)
  [s, shown] = words_scene (words, maps, o);
  if (! isempty (o.toolkit))
    warning ('off', 'Octave:gnuplot-graphics', 'local');
    graphics_toolkit (o.toolkit);
  end
  vis = 'off';
  if (o.visible) vis = 'on'; end
  W = s.size(1); H = s.size(2);
  fig = figure ('visible', vis, 'position', [0 0 W H], 'color', 'w', 'paperunits', 'inches', ...
                'paperposition', [0 0 W H] / 100, 'papersize', [W H] / 100);
  try
    ax = axes ('position', [0 0 1 1], 'xlim', [0 W], 'ylim', [0 H], 'ydir', 'reverse', 'visible', 'off');
    hold (ax, 'on');
    if (! isempty (s.boxes))
      ## one patch for all backgrounds (faces coloured per box)
      b = s.boxes';
      patch (ax, b([1 3 3 1], :), b([2 2 4 4], :), reshape (s.rgb, [1 rows(s.rgb) 3]), ...
             'edgecolor', 'none', 'facecolor', 'flat');
    end
    for l = s.lines
      plot (ax, l.x, l.y, '-', 'color', l.rgb);
    end
    for t = s.texts
      text (ax, t.x, t.y, t.str, 'fontname', s.font, 'fontsize', t.size, 'fontweight', t.weight, ...
            'fontangle', t.angle, 'color', t.rgb, 'horizontalalignment', t.align, ...
            'verticalalignment', 'middle', 'interpreter', 'none');
    end
    hold (ax, 'off');
  catch err
    close (fig);
    rethrow (err);
  end
end
