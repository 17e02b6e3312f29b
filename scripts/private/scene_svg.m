## [svg, pt] = scene_svg (scene): a scene of words_scene as the text of one
## SVG drawing (UTF-8) and its page size in points, [width height], for
## save_svg to turn into files.
##
## The drawing repeats what the gnuplot toolkit made of the same scene
## through ee_save_figure, so that files keep their look: the page is the
## scene's size at 100 px per inch truncated to whole points; the layout
## fills it less a 0.5 pt margin on every side; the filled boxes reach
## 0.25 pt further up, down and right (gnuplot strokes three of their
## edges with a 0.5 pt line of their colour); the lines are 0.25 pt wide;
## a text's baseline lies 0.3757 em below the middle it is given (how
## gnuplot's cairo terminal centres DejaVu Sans Mono, measured on its PDF).
## Each text is one <text> element in the scene's font, so a long text
## costs its lines, and each box one <rect>.
function [svg, pt] = scene_svg (s)
  W = s.size(1); H = s.size(2);
  Wpt = floor (0.72 * W);
  Hpt = floor (0.72 * H);
  pt = [Wpt Hpt];
  sx = (Wpt - 1) / W; sy = (Hpt - 1) / H;
  X = @(x) 0.5 + x * sx;
  Y = @(y) 0.5 + y * sy;

  head = sprintf (['<?xml version="1.0" encoding="UTF-8"?>\n' ...
                   '<svg xmlns="http://www.w3.org/2000/svg" width="%dpt" height="%dpt" viewBox="0 0 %d %d">\n' ...
                   '<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>\n'], Wpt, Hpt, Wpt, Hpt, Wpt, Hpt);

  b = s.boxes;
  c = round (255 * s.rgb);
  boxes = sprintf ('<rect x="%.3f" y="%.3f" width="%.3f" height="%.3f" fill="#%02x%02x%02x"/>\n', ...
                   [X(b(:, 1)), Y(b(:, 2)) - 0.25, (b(:, 3) - b(:, 1)) * sx + 0.25, ...
                    (b(:, 4) - b(:, 2)) * sy + 0.5, c]');

  lines = cell (1, numel (s.lines));
  for k = 1:numel (s.lines)
    l = s.lines(k);
    d = sprintf (' L %.3f %.3f', [X(l.x(2:end)); Y(l.y(2:end))]);
    if (numel (l.x) > 2 && l.x(1) == l.x(end) && l.y(1) == l.y(end))
      d = [sprintf(' L %.3f %.3f', [X(l.x(2:end-1)); Y(l.y(2:end-1))]) ' Z'];
    end
    lines{k} = sprintf ('<path d="M %.3f %.3f%s" fill="none" stroke="%s" stroke-width="0.25"/>\n', ...
                        X(l.x(1)), Y(l.y(1)), d, hex (l.rgb));
  end

  t = s.texts;
  texts = cell (1, numel (t));
  for k = 1:numel (t)
    a = '';
    if (t(k).size != 10) a = [a sprintf(' font-size="%g"', t(k).size)]; end
    if (strcmp (t(k).weight, 'bold')) a = [a ' font-weight="bold"']; end
    if (strcmp (t(k).angle, 'italic')) a = [a ' font-style="italic"']; end
    if (any (t(k).rgb != 0)) a = [a ' fill="' hex(t(k).rgb) '"']; end
    if (strcmp (t(k).align, 'center')) a = [a ' text-anchor="middle"']; end
    texts{k} = sprintf ('<text x="%.3f" y="%.3f"%s>%s</text>\n', X(t(k).x), Y(t(k).y) + 0.3757 * t(k).size, ...
                        a, xml_text (t(k).str));
  end
  svg = [head, boxes, lines{:}, ...
         sprintf('<g font-family="%s" font-size="10" fill="#000000" xml:space="preserve">\n', xml_text (s.font)), ...
         texts{:}, sprintf('</g>\n</svg>\n')];
end

function h = hex (rgb)
  h = sprintf ('#%02x%02x%02x', round (255 * rgb));
end

## Text as XML character data (also good inside a quoted attribute): the
## markup characters escaped, and the characters XML 1.0 does not allow
## (the C0 controls but tab, U+FFFE, U+FFFF) drawn as U+FFFD.
function s = xml_text (s)
  s = strrep (s, '&', '&amp;');
  s = strrep (s, '<', '&lt;');
  s = strrep (s, '>', '&gt;');
  s = strrep (s, '"', '&quot;');
  if (any (s < 32 & s != 9))
    s = regexprep (s, '[\x00-\x08\x0a-\x1f]', "\xef\xbf\xbd");
  end
  s = strrep (s, "\xef\xbf\xbe", "\xef\xbf\xbd");
  s = strrep (s, "\xef\xbf\xbf", "\xef\xbf\xbd");
end
