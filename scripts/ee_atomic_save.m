## -*- texinfo -*-
## @deftypefn {} {} ee_atomic_save (@var{file}, @var{s})
## Saves the fields of struct @var{s} as variables of @var{file} (Octave
## binary format) through a temporary file and a rename, so that a reader
## never sees a half-written file and an interrupted run leaves the old one.
## @end deftypefn
function ee_atomic_save (file, s)
  if (nargin != 2 || ! (ischar (file) && isrow (file)) || ! (isstruct (s) && isscalar (s)))
    error ('ee:badInput', 'ee_atomic_save: call ee_atomic_save (FILE, S) with a file name and a scalar struct');
  end
  tmp = sprintf ('%s.tmp%d', file, getpid ());
  try
    save ('-binary', tmp, '-struct', 's');
  catch err
    [~, ~] = unlink (tmp);   # a part written before the failure, if any
    error ('ee:ioError', 'cannot write %s: %s', file, err.message);
  end
  [err, msg] = rename (tmp, file);
  if (err)
    error ('ee:ioError', 'cannot write %s: %s', file, msg);
  end
end

%!test
%! d = tempname (); mkdir (d);
%! unwind_protect
%!   f = fullfile (d, 'a.mat');
%!   ee_atomic_save (f, struct ('x', [1 2 3], 'y', 'text'));
%!   ee_atomic_save (f, struct ('x', 7));            # replaces the file whole
%!   v = load (f);
%!   assert (v, struct ('x', 7));
%!   left = dir (d);
%!   assert (sort ({left.name}), {'.', '..', 'a.mat'});   # no temporary file stays
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local'); rmdir (d, 's');
%! end_unwind_protect
%!error <cannot write .*dir.mat> ee_atomic_save (fullfile (tempname (), 'no', 'such', 'dir.mat'), struct ('x', 1))
%!error id=ee:badInput ee_atomic_save ('f.mat', 1)
%!error id=ee:badInput ee_atomic_save ('f.mat')
