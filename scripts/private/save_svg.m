## save_svg (svg, pt, files, dpi, who): writes the SVG drawing SVG (its
## text, a page of PT = [width height] points) as each of FILES (a cell of
## names checked by ee_check 'files') through save_formats.  librsvg's
## rsvg-convert makes the PDF (cairo, fonts embedded as subsets) and the
## PNG at DPI dots per inch, recorded in the file, or at the resolution
## that keeps both sides within 32,000 pixels (cairo draws at most
## 32,767); poppler's pdftocairo makes the SVG from that PDF (glyphs as
## outlines, as in the SVG files of ee_save_figure).  Errors: ee:noGraphics
## (rsvg-convert, or for SVG pdftocairo, missing), ee:ioError.
function save_svg (svg, pt, files, dpi, who)
  if (! have_program ('rsvg-convert'))
    error ('ee:noGraphics', ['%s: rsvg-convert not found: the picture''s files are drawn by it; install ' ...
                             'the Debian package librsvg2-bin (tools/install_deps.sh)'], who);
  end
  r = min (dpi, floor (32000 / (max (pt) / 72)));
  master = [tempname() '.svg'];
  pdf = [master(1:end-4) '.pdf'];
  ext = cellfun (@(f) lower (f(find (f == '.', 1, 'last'):end)), files, 'uniformoutput', false);
  unwind_protect
    fid = fopen (master, 'w');
    if (fid < 0)
      error ('ee:ioError', '%s: cannot write the temporary file %s', who, master);
    end
    n = fwrite (fid, uint8 (svg), 'uint8');
    if (fclose (fid) != 0 || n != numel (svg))
      error ('ee:ioError', '%s: cannot write the temporary file %s', who, master);
    end
    if (any (ismember (ext, {'.pdf', '.svg'})))
      if (any (strcmp (ext, '.svg')) && ! have_program ('pdftocairo'))
        error ('ee:noGraphics', ['%s: pdftocairo not found: SVG files are converted by it; install ' ...
                                 'the Debian package poppler-utils (tools/install_deps.sh)'], who);
      end
      rsvg ({'-f', 'pdf', '-o', pdf}, master, files{find (ismember (ext, {'.pdf', '.svg'}), 1)}, who);
    end
    save_formats (files, @(part, ext, out) convert (master, pdf, part, ext, out, r, who), who);
  unwind_protect_cleanup
    for f = {master, pdf}
      if (exist (f{1}, 'file'))
        unlink (f{1});
      end
    end
  end_unwind_protect
end

## the drawing as the file PART in format EXT (on its way to OUT): the PDF
## rsvg-convert made of it, that PDF as SVG by pdftocairo (glyphs as
## outlines kept once each, where rsvg-convert's own SVG draws every glyph
## of the text as a path: a file several times larger), or the PNG
## rendered by rsvg-convert from the drawing itself (pdftocairo's PNG
## writer takes seconds where it takes a fraction of one)
function convert (master, pdf, part, ext, out, dpi, who)
  switch (ext)
    case {'.pdf', '.svg'}
      pdf_as (pdf, part, ext, out, who);
    case '.png'
      d = sprintf ('%g', dpi);
      rsvg ({'-f', 'png', '-d', d, '-p', d, '-b', 'white', '-o', part}, master, out, who);
      png_dpi (part, dpi, out, who);
  end
end

function rsvg (args, master, out, who)
  ## --unlimited: a long text's drawing may pass libxml2's guard on file size
  run_tool ([{'rsvg-convert', '--unlimited'}, args, {master}], out, who);
end

## Records DPI in the PNG file F (a pHYs chunk after IHDR, as pdftocairo
## writes it): cairo's PNG writer leaves the resolution out.
function png_dpi (f, dpi, out, who)
  fid = fopen (f, 'r');
  if (fid < 0)
    error ('ee:ioError', '%s: cannot write %s: cannot read back its PNG', who, out);
  end
  b = fread (fid, Inf, 'uint8=>uint8')';
  fclose (fid);
  if (numel (b) < 45 || ! isequal (b(1:8), uint8 ([137 80 78 71 13 10 26 10])) || ! strcmp (char (b(13:16)), 'IHDR'))
    error ('ee:ioError', '%s: cannot write %s: rsvg-convert wrote no PNG', who, out);
  end
  ## the chunks before the pixels: leave a resolution already there
  at = 9;
  while (at + 7 <= numel (b))
    type = char (b(at+4:at+7));
    if (strcmp (type, 'pHYs'))
      return;
    elseif (strcmp (type, 'IDAT'))
      break;
    end
    at += 12 + sum (double (b(at:at+3)) .* 256 .^ (3:-1:0));
  end
  ppm = round (dpi / 0.0254);                      # pixels per metre
  data = [uint8('pHYs'), be32(ppm), be32(ppm), uint8(1)];
  chunk = [be32(9), data, be32(crc32 (data))];
  fid = fopen (f, 'w');
  if (fid < 0)
    error ('ee:ioError', '%s: cannot write %s', who, out);
  end
  n = fwrite (fid, [b(1:33), chunk, b(34:end)], 'uint8');
  if (fclose (fid) != 0 || n != numel (b) + numel (chunk))
    error ('ee:ioError', '%s: cannot write %s', who, out);
  end
end

function b = be32 (v)
  b = uint8 (mod (floor (double (v) ./ 256 .^ (3:-1:0)), 256));
end

## CRC-32 of the bytes B (ISO 3309, as PNG chunks carry it)
function c = crc32 (b)
  c = uint32 (4294967295);
  for x = double (b)
    c = bitxor (c, uint32 (x));
    for k = 1:8
      if (bitand (c, 1))
        c = bitxor (bitshift (c, -1), uint32 (3988292384));
      else
        c = bitshift (c, -1);
      end
    end
  end
  c = bitxor (c, uint32 (4294967295));
end
