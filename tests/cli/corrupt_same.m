## corrupt_same (PAIRS): tests/cli/corrupt.sh's comparison of outputs.
## Each line of the file PAIRS names two result files and a label; the two
## must hold the same variables with the same classes, sizes and values
## (NaN equal to NaN), the run times and the input file names (fields
## named seconds, feature_seconds or file, at any depth) left out. Prints DIFFERENT LABEL for
## each pair that is not, then "compared N".
function corrupt_same (pairs)
  fid = fopen (pairs, 'r');
  n = 0;
  while (true)
    line = fgetl (fid);
    if (! ischar (line)) break; end
    f = strsplit (line, ' ');
    n++;
    a = no_time (load (f{1}));
    b = no_time (load (f{2}));
    if (! same (a, b)) printf ('DIFFERENT %s\n', f{3}); end
  end
  fclose (fid);
  printf ('compared %d\n', n);
endfunction

function t = same (a, b)
  try   # isequaln in Octave 7 fails on structs of other fields
    t = strcmp (class (a), class (b)) && isequaln (a, b);
  catch
    t = false;
  end
endfunction

function s = no_time (s)
  if (isstruct (s))
    for k = fieldnames (s)'
      if (any (strcmp (k{1}, {'seconds', 'feature_seconds', 'file'})))
        [s.(k{1})] = deal (0);
      else
        for i = 1:numel (s)
          s(i).(k{1}) = no_time (s(i).(k{1}));
        end
      end
    end
  elseif (iscell (s))
    s = cellfun (@no_time, s, 'UniformOutput', false);
  end
endfunction
