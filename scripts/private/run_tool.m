## run_tool (argv, out, who): runs the program argv{1} with the arguments
## argv{2:end} (each passed as one word to the shell, whatever it holds) to
## write the file OUT; when it fails, an ee:ioError "WHO: cannot write OUT:
## ..." with the tool's own lines joined into one line.
function run_tool (argv, out, who)
  q = cellfun (@(a) ['''' strrep(a, '''', '''\''''') ''''], argv, 'uniformoutput', false);
  [st, txt] = system ([strjoin(q, ' ') ' 2>&1']);
  if (st != 0)
    lines = strtrim (strsplit (strtrim (txt), {"\n", "\r"}));
    error ('ee:ioError', '%s: cannot write %s: %s', who, out, strjoin (lines(! cellfun ('isempty', lines)), '; '));
  end
end
