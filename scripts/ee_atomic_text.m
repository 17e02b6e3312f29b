## -*- texinfo -*-
## @deftypefn  {} {} ee_atomic_text (@var{file}, @var{txt})
## @deftypefnx {} {} ee_atomic_text (@var{file}, @var{txt}, @var{who})
## Writes the char row @var{txt} to @var{file} through a temporary file and
## a rename (see ee_atomic_save). @var{who} (optional) prefixes the error
## messages ("@var{who}: cannot write ...").
## @end deftypefn
function ee_atomic_text (file, txt, who)
  pre = '';
  if (nargin > 2)
    pre = [who ': '];
  end
  if (nargin < 2 || ! (ischar (file) && isrow (file)) || ! (ischar (txt) && (isrow (txt) || isempty (txt))))
    lead = pre;
    if (isempty (lead))
      lead = 'ee_atomic_text: ';
    end
    error ('ee:badInput', '%sthe file name and the text must be char rows', lead);
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

%!test
%! f = [tempname() '.txt'];
%! unwind_protect
%!   ee_atomic_text (f, sprintf ('one\ntwo\n'));
%!   ee_atomic_text (f, sprintf ('three\n'));       # replaces the file whole
%!   assert (fileread (f), sprintf ('three\n'));
%!   ee_atomic_text (f, '');
%!   assert (isempty (fileread (f)));
%!   assert (isempty (glob ([f '.tmp*'])));          # no temporary file stays
%! unwind_protect_cleanup
%!   [~, ~] = unlink (f);
%! end_unwind_protect
%!error <mine: cannot write> ee_atomic_text (fullfile (tempname (), 'no', 'dir.txt'), 'x', 'mine')
%!error <ee_atomic_text: the file name> ee_atomic_text ('a.txt', 3)
