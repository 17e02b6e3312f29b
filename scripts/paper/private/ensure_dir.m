## -*- texinfo -*-
## @deftypefn {} {} ensure_dir (@var{d})
## Creates folder @var{d} (and its parents) unless it exists.
## @end deftypefn
function ensure_dir (d)
  if (! exist (d, 'dir'))
    [ok, msg] = mkdir (d);
    if (! ok)
      error ('ee:ioError', 'cannot create %s: %s', d, msg);
    end
  end
end
