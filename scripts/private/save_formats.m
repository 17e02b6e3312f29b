## save_formats (files, make, who): writes each of FILES (a cell of names
## checked by ee_check 'files') through a temporary name in its folder and
## a rename, so that an interrupted or failed call leaves no half file:
## make (tmp, ext, out) writes the file tmp in the format ext (lower case,
## with the dot) on its way to out (the name for messages).  tmp is '.NAME.tmpPID' plus the file's extension; a tool that
## adds '.png' itself may also leave '.NAME.tmpPID.png' or '.NAME.tmpPID'
## behind, which are removed too when make fails.
function save_formats (files, make, who)
  part = '';                          # the file being made: removed if the call fails
  unwind_protect
    for k = 1:numel (files)
      out = files{k};
      [d, b, e] = fileparts (out);
      part = fullfile (d, sprintf ('.%s.tmp%d', b, getpid ()));
      make ([part e], lower (e), out);
      [err, msg] = rename ([part e], out);
      if (err)
        error ('ee:ioError', '%s: cannot write %s: %s', who, out, msg);
      end
      part = '';
    end
  unwind_protect_cleanup
    if (! isempty (part))
      for f = {[part e], [part '.png'], part}
        if (exist (f{1}, 'file'))
          unlink (f{1});
        end
      end
    end
  end_unwind_protect
end
