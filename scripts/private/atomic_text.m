## -*- texinfo -*-
## @deftypefn {} {} atomic_text (@var{file}, @var{txt})
## Writes the char row @var{txt} to @var{file} through a temporary file and
## a rename (see atomic_save).
## @end deftypefn
function atomic_text (file, txt)
  tmp = sprintf ('%s.tmp%d', file, getpid ());
  fid = fopen (tmp, 'w');
  if (fid < 0)
    error ('ee:ioError', 'cannot write %s', tmp);
  end
  fputs (fid, txt);
  fclose (fid);
  [err, msg] = rename (tmp, file);
  if (err)
    error ('ee:ioError', 'cannot write %s: %s', file, msg);
  end
end
