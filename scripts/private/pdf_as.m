## pdf_as (pdf, part, ext, out, who): the PDF file PDF as the file PART
## (on its way to OUT) in format EXT: '.pdf', a copy; '.svg', pdftocairo's
## SVG of it (glyphs as outlines kept once each). Both ways of drawing a
## figure (ee_save_figure's gnuplot PDF, save_svg's rsvg-convert PDF) end
## in these two conversions; their PNGs differ.
function pdf_as (pdf, part, ext, out, who)
  switch (ext)
    case '.pdf'
      [ok, msg] = copyfile (pdf, part);
      if (! ok)
        error ('ee:ioError', '%s: cannot write %s: %s', who, out, msg);
      end
    case '.svg'
      run_tool ({'pdftocairo', '-svg', pdf, part}, out, who);
  end
end
