## -*- texinfo -*-
## @deftypefn {} {} atomic_save (@var{file}, @var{s})
## Saves the fields of struct @var{s} as variables of @var{file} (Octave
## binary format) through a temporary file and a rename, so that a reader
## never sees a half-written file and an interrupted run leaves the old one.
## @end deftypefn
function atomic_save (file, s)
  tmp = sprintf ('%s.tmp%d', file, getpid ());
  save ('-binary', tmp, '-struct', 's');
  [err, msg] = rename (tmp, file);
  if (err)
    error ('ee:ioError', 'cannot write %s: %s', file, msg);
  end
end
