## -*- texinfo -*-
## @deftypefn  {} {} atomic_text (@var{file}, @var{txt})
## @deftypefnx {} {} atomic_text (@var{file}, @var{txt}, @var{who})
## Writes the char row @var{txt} to @var{file} through a temporary file and
## a rename (see atomic_save). @var{who} (optional) prefixes the error
## messages ("@var{who}: cannot write ...").
## @end deftypefn
function atomic_text (file, txt, who)
  pre = '';
  if (nargin > 2)
    pre = [who ': '];
  end
  tmp = sprintf ('%s.tmp%d', file, getpid ());
  fid = fopen (tmp, 'w');
  if (fid < 0)
    error ('ee:ioError', '%scannot write %s', pre, tmp);
  end
  fputs (fid, txt);
  fclose (fid);
  [err, msg] = rename (tmp, file);
  if (err)
    error ('ee:ioError', '%scannot write %s: %s', pre, file, msg);
  end
end
